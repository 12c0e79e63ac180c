//! The conformance corners of issue 17 (item 1) through Rust's std, on the directory preopened as
//! /d (empty): trailing slashes on the new name of a symlink and a hard link, a directory opened
//! for writing, APPEND set at open and cleared later, and times set to the nanosecond one at a
//! time. Each check asserts wasmtime 46's (and Linux's) answer; the same program runs on
//! wasmtime, spindle's host directories, memory mounts and in-program FS. Prints
//! "conformance_rust ok".

// Built with the crate feature: the in-program FS (run with SPINDLE_FS_MOUNTS=/d).
#[cfg(feature = "crate")]
use spindle_wasi_fs as _;

use std::ffi::CString;
use std::fs::{self, File, FileTimes, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

extern "C" {
    // wasi-libc's symlink(2) (Rust's std has no stable symlink on WASI) and its raw WASI wrapper
    // (std cannot clear O_APPEND); both go through the in-program FS when it is linked.
    fn symlink(target: *const i8, path: *const i8) -> i32;
    fn __wasi_fd_fdstat_set_flags(fd: u32, flags: u16) -> u16;
}

const ENOENT: i32 = 44;
const EISDIR: i32 = 31;

fn errno_of<T: std::fmt::Debug>(r: std::io::Result<T>) -> i32 {
    r.expect_err("the call must fail").raw_os_error().unwrap_or(-1)
}

fn main() {
    fs::write("/d/file", b"0123456789").unwrap();
    // A new name with a trailing slash asks for a directory: ENOENT for a symlink and a link.
    let (target, name) = (CString::new("file").unwrap(), CString::new("/d/target/").unwrap());
    // SAFETY: both are NUL-terminated strings that outlive the call.
    let r = unsafe { symlink(target.as_ptr(), name.as_ptr()) };
    assert_eq!((r, std::io::Error::last_os_error().raw_os_error()), (-1, Some(ENOENT)), "symlink to target/");
    assert_eq!(errno_of(fs::hard_link("/d/file", "/d/link/")), ENOENT, "hard_link to link/");
    assert!(fs::metadata("/d/link").is_err() && fs::symlink_metadata("/d/target").is_err());
    // A directory opened for writing is EISDIR (std asks for FD_WRITE).
    assert_eq!(errno_of(OpenOptions::new().read(true).write(true).open("/d")), EISDIR, "open /d rw");
    assert_eq!(errno_of(OpenOptions::new().write(true).open("/d/.")), EISDIR, "open /d/. w");
    // APPEND set at open, then cleared: the next write lands at the offset, not at the end.
    let mut f = OpenOptions::new().read(true).append(true).create(true).open("/d/app").unwrap();
    f.write_all(b"aaaa").unwrap();
    // SAFETY: a plain WASI call on an fd this program owns.
    assert_eq!(unsafe { __wasi_fd_fdstat_set_flags(f.as_raw_fd() as u32, 0) }, 0);
    f.seek(SeekFrom::Start(0)).unwrap();
    f.write_all(b"c").unwrap();
    assert_eq!(f.stream_position().unwrap(), 1);
    let mut s = String::new();
    File::open("/d/app").unwrap().read_to_string(&mut s).unwrap();
    assert_eq!(s, "caaa", "APPEND cleared");
    // Times to the nanosecond, one at a time: the other one does not move.
    let t = UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789);
    let u = t - Duration::from_nanos(100);
    let f = OpenOptions::new().write(true).open("/d/file").unwrap();
    f.set_times(FileTimes::new().set_accessed(t).set_modified(u)).unwrap();
    let m = fs::metadata("/d/file").unwrap();
    assert_eq!((m.accessed().unwrap(), m.modified().unwrap()), (t, u), "both times");
    f.set_modified(u - Duration::from_nanos(1)).unwrap();
    let m = fs::metadata("/d/file").unwrap();
    assert_eq!(
        (m.accessed().unwrap(), m.modified().unwrap()),
        (t, u - Duration::from_nanos(1)),
        "mtime only"
    );
    f.set_times(FileTimes::new().set_accessed(u - Duration::from_nanos(7))).unwrap();
    let m = fs::metadata("/d/file").unwrap();
    assert_eq!(m.accessed().unwrap(), u - Duration::from_nanos(7), "atime only");
    assert_eq!(m.modified().unwrap(), u - Duration::from_nanos(1), "atime only keeps mtime");
    assert!(SystemTime::now() > t);
    println!("conformance_rust ok");
}
