//! Behaviour of single calls.
mod common;
use common::*;
use spindle_fs::*;

#[test]
fn write_read_seek_pread_pwrite() {
    let (fs, root) = fresh();
    let fd = fs.path_open(root, FOLLOW, b"f", oflags::CREAT | oflags::EXCL, RW, RW, 0).unwrap();
    assert_eq!(fs.fd_write(fd, &[b"hello ", b"world"]).unwrap(), 11);
    assert_eq!(fs.fd_tell(fd).unwrap(), 11);
    assert_eq!(fs.fd_seek(fd, -5, Whence::End).unwrap(), 6);
    let mut b = [0u8; 16];
    assert_eq!(fs.fd_read(fd, &mut [&mut b]).unwrap(), 5);
    assert_eq!(&b[..5], b"world");
    assert_eq!(fs.fd_pwrite(fd, &[b"J"], 0).unwrap(), 1);
    assert_eq!(fs.fd_pread(fd, &mut [&mut b[..5]], 0).unwrap(), 5);
    assert_eq!(&b[..5], b"Jello");
    assert_eq!(fs.fd_tell(fd).unwrap(), 11);
    assert_eq!(fs.fd_seek(fd, -100, Whence::Cur), Err(Errno::Inval));
    fs.fd_pwrite(fd, &[b"!"], 20).unwrap();
    assert_eq!(read(&fs, root, "f").unwrap(), b"Jello world\0\0\0\0\0\0\0\0\0!");
    assert_eq!(fs.path_open(root, FOLLOW, b"f", oflags::CREAT | oflags::EXCL, RW, RW, 0), Err(Errno::Exist));
    fs.fd_filestat_set_size(fd, 3).unwrap();
    assert_eq!(read(&fs, root, "f").unwrap(), b"Jel");
    fs.fd_close(fd).unwrap();
    assert_eq!(fs.fd_close(fd), Err(Errno::Badf));
}

#[test]
fn append_and_trunc() {
    let (fs, root) = fresh();
    create(&fs, root, "log", b"a");
    let fd = fs.path_open(root, FOLLOW, b"log", 0, RW, RW, fdflags::APPEND).unwrap();
    fs.fd_write(fd, &[b"b"]).unwrap();
    fs.fd_seek(fd, 0, Whence::Set).unwrap();
    fs.fd_write(fd, &[b"c"]).unwrap();
    assert_eq!(read(&fs, root, "log").unwrap(), b"abc");
    assert_eq!(fs.fd_fdstat_get(fd).unwrap().flags, fdflags::APPEND);
    fs.fd_fdstat_set_flags(fd, 0).unwrap();
    fs.fd_seek(fd, 0, Whence::Set).unwrap();
    fs.fd_write(fd, &[b"X"]).unwrap();
    assert_eq!(read(&fs, root, "log").unwrap(), b"Xbc");
    let t = fs.path_open(root, FOLLOW, b"log", oflags::TRUNC, RW, RW, 0).unwrap();
    assert_eq!(fs.fd_filestat_get(t).unwrap().size, 0);
    fs.fd_allocate(t, 10, 5).unwrap();
    assert_eq!(fs.fd_filestat_get(t).unwrap().size, 15);
}

#[test]
fn unlinked_file_lives_until_last_close() {
    let (fs, root) = fresh();
    create(&fs, root, "f", b"data");
    let fd = fs.path_open(root, FOLLOW, b"f", 0, RW, RW, 0).unwrap();
    fs.path_unlink_file(root, b"f").unwrap();
    assert_eq!(read(&fs, root, "f"), Err(Errno::Noent));
    assert_eq!(fs.fd_filestat_get(fd).unwrap().nlink, 0);
    fs.fd_pwrite(fd, &[b"more"], 4).unwrap();
    let mut b = [0u8; 8];
    assert_eq!(fs.fd_pread(fd, &mut [&mut b], 0).unwrap(), 8);
    assert_eq!(&b, b"datamore");
    assert_eq!(fs.path_link(root, 0, b"f", root, b"g"), Err(Errno::Noent));
    fs.fd_close(fd).unwrap();
}

#[test]
fn directories_links_renames() {
    let (fs, root) = fresh();
    fs.path_create_directory(root, b"a").unwrap();
    fs.path_create_directory(root, b"a/b/").unwrap();
    assert_eq!(fs.path_create_directory(root, b"a"), Err(Errno::Exist));
    assert_eq!(fs.path_filestat_get(root, 0, b"a").unwrap().nlink, 3);
    create(&fs, root, "a/b/f", b"1");
    fs.path_link(root, 0, b"a/b/f", root, b"g").unwrap();
    assert_eq!(fs.path_filestat_get(root, 0, b"g").unwrap().nlink, 2);
    assert_eq!(fs.path_remove_directory(root, b"a/b"), Err(Errno::Notempty));
    assert_eq!(fs.path_rename(root, b"a", root, b"a/b/c"), Err(Errno::Inval));
    fs.path_rename(root, b"a/b", root, b"b2").unwrap();
    assert_eq!(fs.path_filestat_get(root, 0, b"a").unwrap().nlink, 2);
    assert_eq!(names(&fs, root, "."), ["a", "b2", "g"]);
    // Two names of one file: rename is a no-op (POSIX).
    fs.path_rename(root, b"g", root, b"b2/f").unwrap();
    assert_eq!(fs.path_filestat_get(root, 0, b"b2/f").unwrap().nlink, 2);
    fs.path_unlink_file(root, b"g").unwrap();
    assert_eq!(fs.path_filestat_get(root, 0, b"b2/f").unwrap().nlink, 1);
    assert_eq!(fs.path_rename(root, b"a", root, b"b2"), Err(Errno::Notempty));
    fs.path_rename(root, b"b2", root, b"a").unwrap();
    assert_eq!(names(&fs, root, "."), ["a"]);
    assert_eq!(names(&fs, root, "a"), ["f"]);
    assert_eq!(fs.path_unlink_file(root, b"a"), Err(Errno::Isdir));
    assert_eq!(fs.path_link(root, 0, b"a", root, b"x"), Err(Errno::Perm));
    fs.path_unlink_file(root, b"a/f").unwrap();
    fs.path_remove_directory(root, b"a/").unwrap();
    assert_eq!(names(&fs, root, "."), Vec::<String>::new());
}

#[test]
fn removed_directory_refuses_creation() {
    let (fs, root) = fresh();
    fs.path_create_directory(root, b"d").unwrap();
    let d = fs.path_open(root, FOLLOW, b"d", oflags::DIRECTORY, RO, RW, 0).unwrap();
    fs.path_remove_directory(root, b"d").unwrap();
    assert_eq!(fs.path_open(d, FOLLOW, b"x", oflags::CREAT, RW, RW, 0), Err(Errno::Noent));
    assert_eq!(fs.path_create_directory(d, b"x"), Err(Errno::Noent));
    assert_eq!(fs.fd_filestat_get(d).unwrap().nlink, 0);
}

#[test]
fn readdir_cookies_are_stable() {
    let (fs, root) = fresh();
    for i in 0..10 {
        create(&fs, root, &format!("f{i}"), b"");
    }
    let d = fs.path_open(root, FOLLOW, b".", oflags::DIRECTORY, RO, RW, 0).unwrap();
    let first = fs.fd_readdir(d, 0, 6).unwrap();
    assert_eq!(first[0].name, b".");
    assert_eq!(first[1].name, b"..");
    let cookie = first.last().unwrap().next;
    let seen: Vec<String> = first[2..].iter().map(|e| String::from_utf8(e.name.clone()).unwrap()).collect();
    let unseen: Vec<String> = (0..10).map(|i| format!("f{i}")).filter(|n| !seen.contains(n)).collect();
    // Changes between two pages: remove a seen and an unseen name, re-create the seen one, add one.
    fs.path_unlink_file(root, seen[0].as_bytes()).unwrap();
    fs.path_unlink_file(root, unseen[0].as_bytes()).unwrap();
    create(&fs, root, &seen[0], b"again");
    create(&fs, root, "new", b"");
    let rest = fs.fd_readdir(d, cookie, usize::MAX).unwrap();
    let all: Vec<String> =
        first.iter().chain(rest.iter()).map(|e| String::from_utf8(e.name.clone()).unwrap()).collect();
    for n in seen.iter().chain(unseen[1..].iter()) {
        assert_eq!(all.iter().filter(|x| *x == n).count(), 1, "{n} exactly once in {all:?}");
    }
    assert!(!all.contains(&unseen[0]));
    // Same listing from the start again: every live name once.
    let again: Vec<_> = fs.fd_readdir(d, 0, usize::MAX).unwrap();
    assert_eq!(again.len(), 2 + 10);
    // The largest cookie has nothing after it (found by the fuzzer: `cookie + 1` overflowed,
    // and in release builds wrapped to a listing from the start).
    assert!(fs.fd_readdir(d, u64::MAX, usize::MAX).unwrap().is_empty());
    assert!(fs.fd_readdir(d, u64::MAX - 1, usize::MAX).unwrap().iter().all(|e| e.next == u64::MAX));
}

#[test]
fn dirent_serialization_truncates_like_wasmtime() {
    let (fs, root) = fresh();
    create(&fs, root, "abc", b"");
    let d = fs.path_open(root, FOLLOW, b".", oflags::DIRECTORY, RO, RW, 0).unwrap();
    let mut big = [0u8; 256];
    let n = fs.fd_readdir_into(d, &mut big, 0).unwrap();
    assert_eq!(n, 3 * DIRENT_SIZE + 1 + 2 + 3);
    assert_eq!(u64::from_le_bytes(big[0..8].try_into().unwrap()), 1);
    assert_eq!(u32::from_le_bytes(big[16..20].try_into().unwrap()), 1);
    assert_eq!(big[20], FileType::Directory as u8);
    assert_eq!(&big[24..25], b".");
    let last = 2 * DIRENT_SIZE + 3;
    assert_eq!(&big[last + DIRENT_SIZE..last + DIRENT_SIZE + 3], b"abc");
    let mut small = [0u8; 30];
    assert_eq!(fs.fd_readdir_into(d, &mut small, 0).unwrap(), 30);
    assert_eq!(&small[..], &big[..30]);
}

#[test]
fn preopens_and_fds() {
    let fs = Fs::new(|| 7);
    let a = fs.preopen(b"/tmp").unwrap();
    assert_eq!(a, 3);
    assert_eq!(fs.fd_prestat_get(a).unwrap().name_len, 4);
    let mut n = [0u8; 4];
    fs.fd_prestat_dir_name(a, &mut n).unwrap();
    assert_eq!(&n, b"/tmp");
    assert_eq!(fs.fd_prestat_dir_name(a, &mut n[..2]), Err(Errno::Nametoolong));
    let f = fs.path_open(a, 0, b"x", oflags::CREAT, RW, RW, 0).unwrap();
    assert_eq!(fs.fd_prestat_get(f), Err(Errno::Badf));
    assert_eq!(fs.fd_renumber(f, 99), Err(Errno::Badf));
    let g = fs.path_open(a, 0, b"y", oflags::CREAT, RW, RW, 0).unwrap();
    fs.fd_renumber(f, g).unwrap();
    assert_eq!(fs.fd_filestat_get(f), Err(Errno::Badf));
    assert_eq!(fs.fd_filestat_get(g).unwrap().ino, fs.path_filestat_get(a, 0, b"x").unwrap().ino);
    assert_eq!(fs.open_fds(), 2);
    assert_eq!(fs.fd_filestat_get(g).unwrap().mtim, 7);
    assert_eq!(fs.fd_read(a, &mut [&mut [0u8; 4][..]]), Err(Errno::Isdir));
}

#[test]
fn many_fds_grow_the_table_and_reuse_low_numbers() {
    let (fs, root) = fresh();
    let fds: Vec<Fd> = (0..500)
        .map(|i| fs.path_open(root, 0, format!("f{i}").as_bytes(), oflags::CREAT, RW, RW, 0).unwrap())
        .collect();
    let mut sorted = fds.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 500);
    assert_eq!(fs.open_fds(), 501);
    fs.fd_close(fds[10]).unwrap();
    let again = fs.path_open(root, 0, b"f0", 0, RW, RW, 0).unwrap();
    assert_eq!(again, fds[10], "lowest free number is reused");
    fs.fd_renumber(fds[499], root).unwrap();
    // The preopen moved away; `root` now names f499.
    assert_eq!(fs.fd_prestat_get(root), Err(Errno::Badf));
    assert_eq!(fs.fd_filestat_get(root).unwrap().filetype, FileType::RegularFile);
    assert_eq!(fs.fd_filestat_get(fds[499]), Err(Errno::Badf));
    for &f in &fds[..499] {
        fs.fd_close(f).unwrap();
    }
    assert_eq!(fs.open_fds(), 1);
}

/// One thread gets POSIX's lowest free fd number (its stripe's hint drops on close), and fds
/// closed by another thread are found again before the table grows.
#[test]
fn fd_numbers_reuse_the_lowest_free() {
    let (fs, root) = fresh();
    let open = |p: &str| fs.path_open(root, FOLLOW, p.as_bytes(), oflags::CREAT, RW, RW, 0).unwrap();
    let (a, b, c) = (open("a"), open("b"), open("c"));
    assert!(a < b && b < c);
    fs.fd_close(b).unwrap();
    assert_eq!(open("d"), b);
    let fs = std::sync::Arc::new(fs);
    let f2 = fs.clone();
    let many: Vec<Fd> = std::thread::spawn(move || {
        (0..200)
            .map(|i| {
                f2.path_open(root, FOLLOW, format!("m{i}").as_bytes(), oflags::CREAT, RW, RW, 0).unwrap()
            })
            .collect()
    })
    .join()
    .unwrap();
    for fd in &many {
        fs.fd_close(*fd).unwrap();
    }
    let again: Vec<Fd> = (0..200)
        .map(|i| fs.path_open(root, FOLLOW, format!("m{i}").as_bytes(), 0, RW, RW, 0).unwrap())
        .collect();
    assert!(
        again.iter().all(|fd| *fd <= *many.iter().max().unwrap()),
        "the table grew instead of reusing closed fds"
    );
    assert_eq!(fs.open_fds(), 1 + 3 + 200); // the preopen, a, c, d and the 200
}

static TICKS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(100);
fn ticking_clock() -> Timestamp {
    TICKS.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
}
fn ticks() -> u64 {
    TICKS.load(std::sync::atomic::Ordering::SeqCst)
}

/// Writes mark mtime/ctime for update; the clock is read once when the mark is resolved (stat,
/// close, fsync, set_times), and a resolved time is never older than the write.
#[test]
fn writes_mark_times_and_the_clock_is_read_when_they_are_observed() {
    let fs = Fs::new(ticking_clock);
    let root = fs.preopen(b"/t").unwrap();
    let fd = fs.path_open(root, 0, b"f", oflags::CREAT, RW, RW, 0).unwrap();
    let created = fs.fd_filestat_get(fd).unwrap().mtim;
    let before = ticks();
    for _ in 0..1000 {
        fs.fd_write(fd, &[b"x"]).unwrap();
    }
    fs.fd_pwrite(fd, &[b"y"], 5).unwrap();
    fs.fd_filestat_set_size(fd, 2000).unwrap();
    assert_eq!(ticks(), before, "writes read the clock");
    let st = fs.path_filestat_get(root, 0, b"f").unwrap();
    assert_eq!(ticks(), before + 1);
    assert!(st.mtim >= before && st.mtim > created && st.ctim == st.mtim);
    assert_eq!(fs.fd_filestat_get(fd).unwrap().mtim, st.mtim, "an unmarked stat must not move the time");
    fs.fd_write(fd, &[b"z"]).unwrap();
    fs.fd_close(fd).unwrap();
    let closed = ticks();
    assert_eq!(fs.path_filestat_get(root, 0, b"f").unwrap().mtim, closed - 1, "close stamps the write");
    // O_TRUNC marks too; explicit times set afterwards win over the mark.
    let fd = fs.path_open(root, 0, b"f", oflags::TRUNC, RW, RW, 0).unwrap();
    fs.fd_filestat_set_times(fd, 5, 7, fstflags::ATIM | fstflags::MTIM).unwrap();
    fs.fd_close(fd).unwrap();
    let st = fs.path_filestat_get(root, 0, b"f").unwrap();
    assert_eq!((st.atim, st.mtim, st.size), (5, 7, 0));
}
