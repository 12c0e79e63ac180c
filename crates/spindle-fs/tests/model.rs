//! Model-based property test: random operation sequences run on spindle-fs and on the real
//! Linux filesystem (a directory on tmpfs, all calls `*at` relative to it), and every result
//! and errno must agree. Intentional differences (see the crate docs) are handled here:
//! - spindle refuses to leave the root (ENOTCAPABLE); the Linux call is then skipped;
//! - directory sizes and timestamps are not compared; listings are compared as sorted sets.
//!
//! Cases: `SPINDLE_MODEL_CASES` (default 20000 per test, two tests: 40000 sequences of up to 40 and 12 operations).

mod common;
use common::*;
use proptest::prelude::*;
use spindle_fs::*;
use std::ffi::CString;

#[derive(Clone, Debug)]
enum Op {
    Open {
        path: String,
        creat: bool,
        excl: bool,
        trunc: bool,
        dir: bool,
        nofollow: bool,
        append: bool,
        acc: u8,
    },
    Close(usize),
    Write(usize, usize, u8),
    Pwrite(usize, u64, usize, u8),
    Read(usize, usize),
    Pread(usize, u64, usize),
    Seek(usize, i64, u8),
    Truncate(usize, u64),
    Fstat(usize),
    Stat(String, bool),
    Mkdir(String),
    Rmdir(String),
    Unlink(String),
    Rename(String, String),
    Link(String, String, bool),
    Symlink(String, String),
    Readlink(String),
    Readdir(String),
}

#[derive(Debug, PartialEq)]
enum Out {
    Err(Errno),
    Unit,
    N(u64),
    Bytes(Vec<u8>),
    Stat { ft: FileType, size: Option<u64>, nlink: u64 },
    Names(Vec<Vec<u8>>),
}

fn path() -> impl Strategy<Value = String> {
    let comp = prop_oneof![4 => Just("a"), 4 => Just("b"), 2 => Just("c"), 1 => Just("."), 1 => Just("..")];
    (prop::collection::vec(comp, 1..4), prop::bool::weighted(0.1))
        .prop_map(|(v, slash)| v.join("/") + if slash { "/" } else { "" })
}

fn op() -> impl Strategy<Value = Op> {
    let slot = 0usize..6;
    prop_oneof![
        6 => (path(), any::<[bool; 6]>(), 0u8..3).prop_map(|(path, f, acc)| Op::Open {
            path, creat: f[0], excl: f[1] && f[0], trunc: f[2], dir: f[3] && !f[0], nofollow: f[4] && f[5], append: f[5], acc
        }),
        2 => slot.clone().prop_map(Op::Close),
        4 => (slot.clone(), 0usize..6000, any::<u8>()).prop_map(|(s, n, b)| Op::Write(s, n, b)),
        2 => (slot.clone(), 0u64..10000, 0usize..5000, any::<u8>()).prop_map(|(s, o, n, b)| Op::Pwrite(s, o, n, b)),
        3 => (slot.clone(), 0usize..6000).prop_map(|(s, n)| Op::Read(s, n)),
        2 => (slot.clone(), 0u64..10000, 0usize..5000).prop_map(|(s, o, n)| Op::Pread(s, o, n)),
        2 => (slot.clone(), -5000i64..10000, 0u8..3).prop_map(|(s, o, w)| Op::Seek(s, o, w)),
        1 => (slot.clone(), 0u64..9000).prop_map(|(s, n)| Op::Truncate(s, n)),
        1 => slot.clone().prop_map(Op::Fstat),
        3 => (path(), any::<bool>()).prop_map(|(p, f)| Op::Stat(p, f)),
        3 => path().prop_map(Op::Mkdir),
        2 => path().prop_map(Op::Rmdir),
        2 => path().prop_map(Op::Unlink),
        3 => (path(), path()).prop_map(|(a, b)| Op::Rename(a, b)),
        1 => (path(), path(), any::<bool>()).prop_map(|(a, b, f)| Op::Link(a, b, f)),
        2 => (path(), path()).prop_map(|(a, b)| Op::Symlink(a, b)),
        1 => path().prop_map(Op::Readlink),
        2 => path().prop_map(Op::Readdir),
    ]
}

struct Linux {
    root: i32,
}

fn errno() -> Errno {
    Errno::from_linux(std::io::Error::last_os_error().raw_os_error().unwrap())
}

fn cs(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn ft_of(mode: u32) -> FileType {
    match mode & libc::S_IFMT {
        libc::S_IFDIR => FileType::Directory,
        libc::S_IFREG => FileType::RegularFile,
        libc::S_IFLNK => FileType::SymbolicLink,
        _ => FileType::Unknown,
    }
}

fn stat_out(ft: FileType, size: u64, nlink: u64) -> Out {
    Out::Stat { ft, size: if ft == FileType::Directory { None } else { Some(size) }, nlink }
}

impl Linux {
    fn r(&self, v: i64) -> Out {
        if v < 0 {
            Out::Err(errno())
        } else {
            Out::Unit
        }
    }
    fn n(&self, v: isize) -> Out {
        if v < 0 {
            Out::Err(errno())
        } else {
            Out::N(v as u64)
        }
    }
    fn stat(&self, st: libc::stat) -> Out {
        stat_out(ft_of(st.st_mode), st.st_size as u64, st.st_nlink)
    }

    fn run(&self, op: &Op, fds: &mut [Option<(Fd, i32)>]) -> Out {
        // SAFETY: plain libc calls on fds we own and NUL-terminated paths we built.
        unsafe {
            match op {
                Op::Open { path, creat, excl, trunc, dir, nofollow, append, acc } => {
                    let mut fl = [libc::O_RDONLY, libc::O_WRONLY, libc::O_RDWR][*acc as usize];
                    if *creat {
                        fl |= libc::O_CREAT
                    }
                    if *excl {
                        fl |= libc::O_EXCL
                    }
                    if *trunc {
                        fl |= libc::O_TRUNC
                    }
                    if *dir {
                        fl |= libc::O_DIRECTORY
                    }
                    if *nofollow {
                        fl |= libc::O_NOFOLLOW
                    }
                    if *append {
                        fl |= libc::O_APPEND
                    }
                    let fd = libc::openat(self.root, cs(path).as_ptr(), fl, 0o644);
                    if fd < 0 {
                        Out::Err(errno())
                    } else {
                        Out::N(fd as u64)
                    }
                }
                Op::Close(s) => {
                    let (_, l) = fds[*s].take().unwrap();
                    self.r(libc::close(l) as i64)
                }
                Op::Write(s, n, b) => {
                    let v = vec![*b; *n];
                    self.n(libc::write(fds[*s].unwrap().1, v.as_ptr().cast(), *n))
                }
                Op::Pwrite(s, o, n, b) => {
                    let v = vec![*b; *n];
                    self.n(libc::pwrite(fds[*s].unwrap().1, v.as_ptr().cast(), *n, *o as i64))
                }
                Op::Read(s, n) => {
                    let mut v = vec![0u8; *n];
                    let r = libc::read(fds[*s].unwrap().1, v.as_mut_ptr().cast(), *n);
                    if r < 0 {
                        Out::Err(errno())
                    } else {
                        v.truncate(r as usize);
                        Out::Bytes(v)
                    }
                }
                Op::Pread(s, o, n) => {
                    let mut v = vec![0u8; *n];
                    let r = libc::pread(fds[*s].unwrap().1, v.as_mut_ptr().cast(), *n, *o as i64);
                    if r < 0 {
                        Out::Err(errno())
                    } else {
                        v.truncate(r as usize);
                        Out::Bytes(v)
                    }
                }
                Op::Seek(s, o, w) => {
                    let w = [libc::SEEK_SET, libc::SEEK_CUR, libc::SEEK_END][*w as usize];
                    let r = libc::lseek(fds[*s].unwrap().1, *o, w);
                    if r < 0 {
                        Out::Err(errno())
                    } else {
                        Out::N(r as u64)
                    }
                }
                Op::Truncate(s, n) => self.r(libc::ftruncate(fds[*s].unwrap().1, *n as i64) as i64),
                Op::Fstat(s) => {
                    let mut st = std::mem::zeroed();
                    if libc::fstat(fds[*s].unwrap().1, &mut st) < 0 {
                        Out::Err(errno())
                    } else {
                        self.stat(st)
                    }
                }
                Op::Stat(p, follow) => {
                    let mut st = std::mem::zeroed();
                    let fl = if *follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
                    if libc::fstatat(self.root, cs(p).as_ptr(), &mut st, fl) < 0 {
                        Out::Err(errno())
                    } else {
                        self.stat(st)
                    }
                }
                Op::Mkdir(p) => self.r(libc::mkdirat(self.root, cs(p).as_ptr(), 0o755) as i64),
                Op::Rmdir(p) => self.r(libc::unlinkat(self.root, cs(p).as_ptr(), libc::AT_REMOVEDIR) as i64),
                Op::Unlink(p) => self.r(libc::unlinkat(self.root, cs(p).as_ptr(), 0) as i64),
                Op::Rename(a, b) => {
                    self.r(libc::renameat(self.root, cs(a).as_ptr(), self.root, cs(b).as_ptr()) as i64)
                }
                Op::Link(a, b, f) => {
                    let fl = if *f { libc::AT_SYMLINK_FOLLOW } else { 0 };
                    self.r(libc::linkat(self.root, cs(a).as_ptr(), self.root, cs(b).as_ptr(), fl) as i64)
                }
                Op::Symlink(t, p) => {
                    self.r(libc::symlinkat(cs(t).as_ptr(), self.root, cs(p).as_ptr()) as i64)
                }
                Op::Readlink(p) => {
                    let mut v = vec![0u8; 64];
                    let r = libc::readlinkat(self.root, cs(p).as_ptr(), v.as_mut_ptr().cast(), 64);
                    if r < 0 {
                        Out::Err(errno())
                    } else {
                        v.truncate(r as usize);
                        Out::Bytes(v)
                    }
                }
                Op::Readdir(p) => {
                    let fd = libc::openat(self.root, cs(p).as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY);
                    if fd < 0 {
                        return Out::Err(errno());
                    }
                    let d = libc::fdopendir(fd);
                    let mut names = Vec::new();
                    loop {
                        let e = libc::readdir(d);
                        if e.is_null() {
                            break;
                        }
                        let name = std::ffi::CStr::from_ptr((*e).d_name.as_ptr()).to_bytes().to_vec();
                        if name != b"." && name != b".." {
                            names.push(name)
                        }
                    }
                    libc::closedir(d);
                    names.sort();
                    Out::Names(names)
                }
            }
        }
    }
}

fn spindle(fs: &Fs, root: Fd, op: &Op, fds: &[Option<(Fd, i32)>]) -> Out {
    fn r(v: Result<()>) -> Out {
        v.map_or_else(Out::Err, |_| Out::Unit)
    }
    fn n(v: Result<usize>) -> Out {
        v.map_or_else(Out::Err, |x| Out::N(x as u64))
    }
    let st = |v: Result<Filestat>| v.map_or_else(Out::Err, |s| stat_out(s.filetype, s.size, s.nlink));
    let fd = |s: &usize| fds[*s].unwrap().0;
    match op {
        Op::Open { path, creat, excl, trunc, dir, nofollow, append, acc } => {
            let rights = [RO, rights::ALL & !rights::READ_MODE, RW][*acc as usize];
            let mut of = 0;
            if *creat {
                of |= oflags::CREAT
            }
            if *excl {
                of |= oflags::EXCL
            }
            if *trunc {
                of |= oflags::TRUNC
            }
            if *dir {
                of |= oflags::DIRECTORY
            }
            let lf = if *nofollow { 0 } else { FOLLOW };
            let ff = if *append { fdflags::APPEND } else { 0 };
            match fs.path_open(root, lf, path.as_bytes(), of, rights, rights, ff) {
                Ok(f) => Out::N(f as u64),
                Err(e) => Out::Err(e),
            }
        }
        Op::Close(s) => r(fs.fd_close(fd(s))),
        Op::Write(s, len, b) => n(fs.fd_write(fd(s), &[&vec![*b; *len]])),
        Op::Pwrite(s, o, len, b) => n(fs.fd_pwrite(fd(s), &[&vec![*b; *len]], *o)),
        Op::Read(s, len) => {
            let mut v = vec![0u8; *len];
            fs.fd_read(fd(s), &mut [&mut v]).map_or_else(Out::Err, |k| {
                v.truncate(k);
                Out::Bytes(v)
            })
        }
        Op::Pread(s, o, len) => {
            let mut v = vec![0u8; *len];
            fs.fd_pread(fd(s), &mut [&mut v], *o).map_or_else(Out::Err, |k| {
                v.truncate(k);
                Out::Bytes(v)
            })
        }
        Op::Seek(s, o, w) => {
            fs.fd_seek(fd(s), *o, Whence::from_raw(*w).unwrap()).map_or_else(Out::Err, Out::N)
        }
        Op::Truncate(s, len) => r(fs.fd_filestat_set_size(fd(s), *len)),
        Op::Fstat(s) => st(fs.fd_filestat_get(fd(s))),
        Op::Stat(p, f) => st(fs.path_filestat_get(root, if *f { FOLLOW } else { 0 }, p.as_bytes())),
        Op::Mkdir(p) => r(fs.path_create_directory(root, p.as_bytes())),
        Op::Rmdir(p) => r(fs.path_remove_directory(root, p.as_bytes())),
        Op::Unlink(p) => r(fs.path_unlink_file(root, p.as_bytes())),
        Op::Rename(a, b) => r(fs.path_rename(root, a.as_bytes(), root, b.as_bytes())),
        Op::Link(a, b, f) => {
            r(fs.path_link(root, if *f { FOLLOW } else { 0 }, a.as_bytes(), root, b.as_bytes()))
        }
        Op::Symlink(t, p) => r(fs.path_symlink(t.as_bytes(), root, p.as_bytes())),
        Op::Readlink(p) => {
            let mut v = vec![0u8; 64];
            fs.path_readlink(root, p.as_bytes(), &mut v).map_or_else(Out::Err, |k| {
                v.truncate(k);
                Out::Bytes(v)
            })
        }
        Op::Readdir(p) => match fs.path_open(root, FOLLOW, p.as_bytes(), oflags::DIRECTORY, RO, RO, 0) {
            Err(e) => Out::Err(e),
            Ok(d) => {
                let mut names: Vec<Vec<u8>> = fs
                    .fd_readdir(d, 0, usize::MAX)
                    .unwrap()
                    .into_iter()
                    .map(|e| e.name)
                    .filter(|n| n != b"." && n != b"..")
                    .collect();
                fs.fd_close(d).unwrap();
                names.sort();
                Out::Names(names)
            }
        },
    }
}

fn slot_of(op: &Op) -> Option<usize> {
    match op {
        Op::Close(s)
        | Op::Write(s, ..)
        | Op::Pwrite(s, ..)
        | Op::Read(s, ..)
        | Op::Pread(s, ..)
        | Op::Seek(s, ..)
        | Op::Truncate(s, ..)
        | Op::Fstat(s) => Some(*s),
        _ => None,
    }
}

fn case_dir() -> std::path::PathBuf {
    // Nested deep so that even a wrongly allowed `..` stays inside our own directory.
    let base =
        if std::path::Path::new("/dev/shm").is_dir() { "/dev/shm".into() } else { std::env::temp_dir() };
    let tid = format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
    base.join(format!("spindle-model-{}-{tid}", std::process::id())).join("n1/n2/n3/n4/n5/n6/n7/n8/root")
}

fn run_case(ops: &[Op]) -> std::result::Result<(), TestCaseError> {
    let dir = case_dir();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let croot = cs(dir.to_str().unwrap());
    // SAFETY: opening a directory path we just created.
    let lroot = unsafe { libc::open(croot.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY) };
    assert!(lroot >= 0);
    let linux = Linux { root: lroot };
    let fs = Fs::new(|| 0);
    let root = fs.preopen(b"/root").unwrap();
    let mut fds: Vec<Option<(Fd, i32)>> = vec![None; 6];
    let mut result = Ok(());
    for (i, op) in ops.iter().enumerate() {
        if let Some(s) = slot_of(op) {
            if fds[s].is_none() {
                continue;
            }
        }
        let ours = spindle(&fs, root, op, &fds);
        if ours == Out::Err(Errno::Notcapable) {
            continue; // intentional: Linux would leave the root
        }
        let theirs = linux.run(op, &mut fds);
        if let Op::Close(s) = op {
            fds[*s] = None;
        }
        if let Op::Open { .. } = op {
            match (&ours, &theirs) {
                (Out::N(a), Out::N(b)) => {
                    if let Some(s) = fds.iter().position(|f| f.is_none()) {
                        fds[s] = Some((*a as Fd, *b as i32));
                    } else {
                        fs.fd_close(*a as Fd).unwrap();
                        // SAFETY: closing the fd Linux just gave us.
                        unsafe { libc::close(*b as i32) };
                    }
                    continue;
                }
                (Out::N(a), _) => {
                    let _ = fs.fd_close(*a as Fd);
                }
                // SAFETY: closing the fd Linux just gave us.
                (_, Out::N(b)) => unsafe {
                    libc::close(*b as i32);
                },
                _ => {}
            }
        }
        if ours != theirs {
            result = Err(TestCaseError::fail(format!("op #{i} {op:?}: spindle {ours:?}, linux {theirs:?}")));
            break;
        }
    }
    for (_, l) in fds.iter().flatten() {
        // SAFETY: closing fds we opened.
        unsafe { libc::close(*l) };
    }
    // SAFETY: closing the root fd we opened.
    unsafe { libc::close(lroot) };
    result
}

fn cases() -> u32 {
    std::env::var("SPINDLE_MODEL_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(20000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, max_shrink_iters: 4000, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_linux(ops in prop::collection::vec(op(), 1..40)) {
        run_case(&ops)?;
    }

    #[test]
    fn agrees_with_linux_short(ops in prop::collection::vec(op(), 1..12)) {
        run_case(&ops)?;
    }
}
