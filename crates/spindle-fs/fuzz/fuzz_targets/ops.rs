//! Fuzzes sequences of filesystem operations (an enum of actions, as talc does) on one `Fs`
//! with a writable and a read-only mount, checking the tree's invariants after every step and
//! that no fd leaks at the end. Paths come from a small alphabet so operations collide.
//! Run: `cd crates/spindle-fs/fuzz && cargo +nightly fuzz run ops -- -max_total_time=60`
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spindle_fs::*;

#[derive(Arbitrary, Debug)]
enum Action {
    Open { dir: u8, path: Path, oflags: u8, write: bool, follow: bool, append: bool },
    Close(u8),
    Write(u8, u16, u8),
    Pwrite(u8, u16, u16),
    Read(u8, u16),
    Pread(u8, u16, u16),
    Seek(u8, i16, u8),
    Truncate(u8, u16),
    Allocate(u8, u16, u16),
    Renumber(u8, u8),
    Fstat(u8),
    Stat { dir: u8, path: Path, follow: bool },
    Mkdir(u8, Path),
    Rmdir(u8, Path),
    Unlink(u8, Path),
    Rename(u8, Path, u8, Path),
    Link(u8, Path, u8, Path, bool),
    Symlink(Path, u8, Path),
    Readlink(u8, Path),
    Readdir(u8, u64, u8),
    SetTimes(u8, Path, u64, u16),
}

#[derive(Arbitrary, Debug)]
struct Path(Vec<u8>);

impl Path {
    /// Maps arbitrary bytes onto an alphabet of names, separators and dots.
    fn bytes(&self) -> Vec<u8> {
        const ALPHA: &[u8] = b"ab/c./d/.";
        self.0.iter().take(12).map(|b| ALPHA[*b as usize % ALPHA.len()]).collect()
    }
}

fuzz_target!(|actions: Vec<Action>| {
    let fs = Fs::new(|| 5);
    fs.mount_memory(b"/ro", false).unwrap();
    let rw = fs.preopen(b"/rw").unwrap();
    let ro = fs.preopen(b"/ro").unwrap();
    fs.path_create_directory(ro, b"d").unwrap();
    let f = fs.path_open(ro, 0, b"d/file", oflags::CREAT, rights::ALL, 0, 0).unwrap();
    fs.fd_write(f, &[b"read only"]).unwrap();
    fs.fd_close(f).unwrap();
    fs.set_readonly(b"/ro", true).unwrap();
    let dirs = [rw, ro];
    let mut fds: Vec<Fd> = Vec::new();
    let fd = |fds: &Vec<Fd>, i: u8| if fds.is_empty() { 1000 } else { fds[i as usize % fds.len()] };
    let dir = |i: u8| dirs[i as usize % 2];
    for a in actions.iter().take(200) {
        match a {
            Action::Open { dir: d, path, oflags: o, write, follow, append } => {
                let rights = if *write { rights::ALL } else { rights::ALL & !rights::WRITE_MODE };
                let lf = if *follow { lookupflags::SYMLINK_FOLLOW } else { 0 };
                let ff = if *append { fdflags::APPEND } else { 0 };
                if let Ok(f) = fs.path_open(dir(*d), lf, &path.bytes(), (*o as u16) & 0xf, rights, rights, ff)
                {
                    let st = fs.fd_filestat_get(f).unwrap();
                    assert!(
                        st.dev != 1 || !*write || st.filetype != FileType::RegularFile,
                        "writable open on ro mount"
                    );
                    fds.push(f);
                }
            }
            Action::Close(i) => {
                if !fds.is_empty() {
                    let f = fds.swap_remove(*i as usize % fds.len());
                    fs.fd_close(f).unwrap();
                }
            }
            Action::Write(i, n, b) => {
                let _ = fs.fd_write(fd(&fds, *i), &[&vec![*b; *n as usize % 9000]]);
            }
            Action::Pwrite(i, off, n) => {
                let data: Vec<u8> = (0..*n % 9000).map(|x| x as u8 | 1).collect();
                let f = fd(&fds, *i);
                if fs.fd_pwrite(f, &[&data], *off as u64).is_ok()
                    && fs.fd_fdstat_get(f).unwrap().flags & fdflags::APPEND == 0
                {
                    let mut back = vec![0u8; data.len()];
                    if fs.fd_pread(f, &mut [&mut back], *off as u64).is_ok() {
                        assert_eq!(back, data, "pread after pwrite");
                    }
                }
            }
            Action::Read(i, n) => {
                let _ = fs.fd_read(fd(&fds, *i), &mut [&mut vec![0u8; *n as usize % 9000]]);
            }
            Action::Pread(i, off, n) => {
                let f = fd(&fds, *i);
                let mut b = vec![0xAAu8; *n as usize % 9000];
                if let (Ok(k), Ok(st)) = (fs.fd_pread(f, &mut [&mut b], *off as u64), fs.fd_filestat_get(f)) {
                    assert_eq!(k as u64, st.size.saturating_sub(*off as u64).min(b.len() as u64));
                }
            }
            Action::Seek(i, off, w) => {
                let _ = fs.fd_seek(fd(&fds, *i), *off as i64, Whence::from_raw(*w % 3).unwrap());
            }
            Action::Truncate(i, n) => {
                let f = fd(&fds, *i);
                if fs.fd_filestat_set_size(f, *n as u64).is_ok() {
                    assert_eq!(fs.fd_filestat_get(f).unwrap().size, *n as u64);
                }
            }
            Action::Allocate(i, off, n) => {
                let _ = fs.fd_allocate(fd(&fds, *i), *off as u64, *n as u64);
            }
            Action::Renumber(i, j) => {
                let (a, b) = (fd(&fds, *i), fd(&fds, *j));
                if fs.fd_renumber(a, b).is_ok() && a != b {
                    fds.retain(|&x| x != a);
                }
            }
            Action::Fstat(i) => {
                let _ = fs.fd_filestat_get(fd(&fds, *i));
            }
            Action::Stat { dir: d, path, follow } => {
                let _ = fs.path_filestat_get(dir(*d), *follow as u32, &path.bytes());
            }
            Action::Mkdir(d, p) => {
                let _ = fs.path_create_directory(dir(*d), &p.bytes());
            }
            Action::Rmdir(d, p) => {
                let _ = fs.path_remove_directory(dir(*d), &p.bytes());
            }
            Action::Unlink(d, p) => {
                let _ = fs.path_unlink_file(dir(*d), &p.bytes());
            }
            Action::Rename(d1, p1, d2, p2) => {
                let _ = fs.path_rename(dir(*d1), &p1.bytes(), dir(*d2), &p2.bytes());
            }
            Action::Link(d1, p1, d2, p2, follow) => {
                let _ = fs.path_link(dir(*d1), *follow as u32, &p1.bytes(), dir(*d2), &p2.bytes());
            }
            Action::Symlink(t, d, p) => {
                let _ = fs.path_symlink(&t.bytes(), dir(*d), &p.bytes());
            }
            Action::Readlink(d, p) => {
                let _ = fs.path_readlink(dir(*d), &p.bytes(), &mut [0u8; 16]);
            }
            Action::Readdir(i, cookie, len) => {
                let mut buf = vec![0u8; *len as usize];
                if let Ok(n) = fs.fd_readdir_into(fd(&fds, *i), &mut buf, *cookie) {
                    assert!(n <= buf.len());
                }
            }
            Action::SetTimes(d, p, t, flags) => {
                let _ = fs.path_filestat_set_times(dir(*d), 0, &p.bytes(), *t, *t, *flags & 0xf);
            }
        }
        fs.check_invariants().unwrap();
        // The read-only mount never changes.
        let mut b = [0u8; 16];
        let f = fs.path_open(ro, 0, b"d/file", 0, rights::FD_READ, 0, 0).unwrap();
        assert_eq!(fs.fd_read(f, &mut [&mut b]).unwrap(), 9);
        fs.fd_close(f).unwrap();
    }
    for f in fds {
        fs.fd_close(f).unwrap();
    }
    assert_eq!(fs.open_fds(), 2, "fd leak");
});
