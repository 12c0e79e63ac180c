//! Every escape attempt is refused with the right errno.
mod common;
use common::*;
use spindle_fs::*;

#[test]
fn dotdot_cannot_leave_the_preopen() {
    let (fs, root) = fresh();
    fs.mount_memory(b"/secret", false).unwrap();
    let s = fs.preopen(b"/secret").unwrap();
    create(&fs, s, "key", b"k");
    fs.path_create_directory(root, b"a").unwrap();
    for p in ["..", "../secret/key", "a/../..", "a/../../secret", "./..", "a/./../../x"] {
        assert_eq!(fs.path_open(root, FOLLOW, p.as_bytes(), 0, RO, RO, 0), Err(Errno::Notcapable), "{p}");
        assert_eq!(fs.path_filestat_get(root, FOLLOW, p.as_bytes()).err(), Some(Errno::Notcapable), "{p}");
    }
    assert_eq!(fs.path_create_directory(root, b"../evil"), Err(Errno::Notcapable));
    assert_eq!(fs.path_unlink_file(root, b"../secret/key"), Err(Errno::Notcapable));
    assert_eq!(fs.path_rename(root, b"a", root, b"../moved"), Err(Errno::Notcapable));
    // Going down and back up inside is fine.
    fs.path_filestat_get(root, FOLLOW, b"a/../a/.").unwrap();
    // A dir fd opened below the preopen is its own capability: `..` above it is refused too.
    let a = fs.path_open(root, FOLLOW, b"a", oflags::DIRECTORY, RO, RW, 0).unwrap();
    assert_eq!(fs.path_filestat_get(a, FOLLOW, b"..").err(), Some(Errno::Notcapable));
    assert_eq!(read(&fs, s, "key").unwrap(), b"k");
}

#[test]
fn absolute_paths_and_symlinks_are_refused() {
    let (fs, root) = fresh();
    create(&fs, root, "f", b"x");
    assert_eq!(fs.path_open(root, FOLLOW, b"/sandbox/f", 0, RO, RO, 0), Err(Errno::Notcapable));
    fs.path_symlink(b"/sandbox/f", root, b"abs").unwrap();
    assert_eq!(fs.path_open(root, FOLLOW, b"abs", 0, RO, RO, 0), Err(Errno::Notcapable));
    fs.path_symlink(b"../sandbox/f", root, b"up").unwrap();
    assert_eq!(fs.path_open(root, FOLLOW, b"up", 0, RO, RO, 0), Err(Errno::Notcapable));
    fs.path_create_directory(root, b"d").unwrap();
    fs.path_symlink(b"../../sandbox", root, b"d/up2").unwrap();
    assert_eq!(fs.path_filestat_get(root, FOLLOW, b"d/up2/f").err(), Some(Errno::Notcapable));
    // A relative link that stays inside works, also through `..`.
    fs.path_symlink(b"../f", root, b"d/ok").unwrap();
    assert_eq!(read(&fs, root, "d/ok").unwrap(), b"x");
    // Not followed: the link itself can be stat'ed and read.
    assert_eq!(fs.path_filestat_get(root, 0, b"abs").unwrap().filetype, FileType::SymbolicLink);
    let mut b = [0u8; 64];
    let n = fs.path_readlink(root, b"abs", &mut b).unwrap();
    assert_eq!(&b[..n], b"/sandbox/f");
    // Creating through an absolute link is refused as well.
    fs.path_symlink(b"/tmp/new", root, b"abs2").unwrap();
    assert_eq!(fs.path_open(root, FOLLOW, b"abs2", oflags::CREAT, RW, RW, 0), Err(Errno::Notcapable));
}

#[test]
fn symlink_loops_are_eloop() {
    let (fs, root) = fresh();
    fs.path_symlink(b"b", root, b"a").unwrap();
    fs.path_symlink(b"a", root, b"b").unwrap();
    assert_eq!(fs.path_open(root, FOLLOW, b"a", 0, RO, RO, 0), Err(Errno::Loop));
    assert_eq!(fs.path_filestat_get(root, FOLLOW, b"a/x").err(), Some(Errno::Loop));
    fs.path_symlink(b"self", root, b"self").unwrap();
    assert_eq!(fs.path_open(root, FOLLOW, b"self", oflags::CREAT, RW, RW, 0), Err(Errno::Loop));
    // A chain of 40 links resolves, 41 is ELOOP.
    create(&fs, root, "t0", b"end");
    for i in 1..=41 {
        fs.path_symlink(format!("t{}", i - 1).as_bytes(), root, format!("t{i}").as_bytes()).unwrap();
    }
    assert_eq!(read(&fs, root, "t40").unwrap(), b"end");
    assert_eq!(read(&fs, root, "t41"), Err(Errno::Loop));
    // O_NOFOLLOW on a link is ELOOP.
    assert_eq!(fs.path_open(root, 0, b"t1", 0, RO, RO, 0), Err(Errno::Loop));
}

#[test]
fn bad_names() {
    let (fs, root) = fresh();
    create(&fs, root, "file", b"");
    assert_eq!(fs.path_open(root, FOLLOW, b"a\0b", oflags::CREAT, RW, RW, 0), Err(Errno::Inval));
    assert_eq!(fs.path_create_directory(root, b"x\0"), Err(Errno::Inval));
    assert_eq!(fs.path_symlink(b"t\0", root, b"l"), Err(Errno::Inval));
    assert_eq!(fs.path_open(root, FOLLOW, b"", 0, RO, RO, 0), Err(Errno::Noent));
    let long = vec![b'n'; 256];
    assert_eq!(fs.path_open(root, FOLLOW, &long, oflags::CREAT, RW, RW, 0), Err(Errno::Nametoolong));
    assert_eq!(fs.path_create_directory(root, &long), Err(Errno::Nametoolong));
    fs.path_create_directory(root, &long[..255]).unwrap();
    let mut deep = Vec::new();
    while deep.len() < 4096 {
        deep.extend_from_slice(b"d/");
    }
    assert_eq!(fs.path_filestat_get(root, FOLLOW, &deep).err(), Some(Errno::Nametoolong));
    // `/` inside what must be a name: the last component of a file path is a name, so a
    // file used as a directory is ENOTDIR and a trailing slash on a file is ENOTDIR.
    assert_eq!(fs.path_open(root, FOLLOW, b"file/x", oflags::CREAT, RW, RW, 0), Err(Errno::Notdir));
    assert_eq!(fs.path_open(root, FOLLOW, b"file/", 0, RO, RO, 0), Err(Errno::Notdir));
    assert_eq!(fs.path_unlink_file(root, b"file/"), Err(Errno::Notdir));
    assert_eq!(fs.path_open(root, FOLLOW, b"new/", oflags::CREAT, RW, RW, 0), Err(Errno::Isdir));
    // `.` and `..` are not names.
    assert_eq!(fs.path_create_directory(root, b"."), Err(Errno::Exist));
    assert_eq!(fs.path_remove_directory(root, b"."), Err(Errno::Inval));
    assert_eq!(fs.path_rename(root, b"file", root, b".."), Err(Errno::Busy));
    assert_eq!(fs.path_link(root, 0, b"file", root, b"."), Err(Errno::Exist));
}

#[test]
fn readonly_mount_refuses_every_write_including_trunc() {
    let fs = Fs::new(|| 1);
    fs.mount_memory(b"/ro", false).unwrap();
    let d = fs.preopen(b"/ro").unwrap();
    create(&fs, d, "f", b"keep me");
    fs.path_create_directory(d, b"sub").unwrap();
    fs.set_readonly(b"/ro", true).unwrap();
    // GHSA-2r75: O_TRUNC with read-only rights must not truncate.
    assert_eq!(fs.path_open(d, FOLLOW, b"f", oflags::TRUNC, RO, RO, 0), Err(Errno::Rofs));
    assert_eq!(read(&fs, d, "f").unwrap(), b"keep me");
    assert_eq!(fs.path_open(d, FOLLOW, b"f", 0, RW, RW, 0), Err(Errno::Rofs));
    assert_eq!(fs.path_open(d, FOLLOW, b"g", oflags::CREAT, RO, RO, 0), Err(Errno::Rofs));
    assert_eq!(fs.path_create_directory(d, b"x"), Err(Errno::Rofs));
    assert_eq!(fs.path_unlink_file(d, b"f"), Err(Errno::Rofs));
    assert_eq!(fs.path_remove_directory(d, b"sub"), Err(Errno::Rofs));
    assert_eq!(fs.path_rename(d, b"f", d, b"g"), Err(Errno::Rofs));
    assert_eq!(fs.path_symlink(b"f", d, b"l"), Err(Errno::Rofs));
    assert_eq!(fs.path_link(d, 0, b"f", d, b"h"), Err(Errno::Rofs));
    assert_eq!(fs.path_filestat_set_times(d, FOLLOW, b"f", 5, 5, fstflags::MTIM), Err(Errno::Rofs));
    // Reading still works, and O_CREAT on an existing file without write is fine.
    let fd = fs.path_open(d, FOLLOW, b"f", oflags::CREAT, RO, RO, 0).unwrap();
    assert_eq!(fs.fd_write(fd, &[b"x"]), Err(Errno::Badf));
    fs.fd_close(fd).unwrap();
}

#[test]
fn rights_are_capabilities() {
    let (fs, root) = fresh();
    create(&fs, root, "f", b"abc");
    let fd = fs.path_open(root, FOLLOW, b"f", 0, rights::FD_READ, 0, 0).unwrap();
    assert_eq!(fs.fd_seek(fd, 1, Whence::Set), Err(Errno::Notcapable));
    assert_eq!(fs.fd_fdstat_set_rights(fd, rights::FD_READ | rights::FD_WRITE, 0), Err(Errno::Notcapable));
    fs.fd_fdstat_set_rights(fd, 0, 0).unwrap();
    assert_eq!(fs.fd_fdstat_get(fd).unwrap().rights_base, 0);
    let d = fs.path_open(root, FOLLOW, b".", oflags::DIRECTORY, rights::FD_READDIR, 0, 0).unwrap();
    assert_eq!(fs.path_open(d, FOLLOW, b"f", 0, RO, RO, 0), Err(Errno::Notcapable));
    assert_eq!(fs.path_create_directory(d, b"x"), Err(Errno::Notcapable));
}
