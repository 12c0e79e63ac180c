//! The interposed `path_*` calls, one [`wasi_call!`] each. Routing is by the directory fd the
//! path is relative to (wasi-libc has already turned an absolute path into (preopen fd,
//! relative path)); a path can never lead from one world into the other because spindle-fs
//! confines resolution to its directory fd. Calls with two directory fds in different worlds
//! answer EXDEV. On an OPFS mount the namespace calls are mirrored (`opfs.rs`).

use crate::fds::guest;
use crate::interpose::wasi_call;
use crate::mem::{self, bytes, bytes_mut, put_u32};
use crate::opfs::{self, Op};
use crate::opfs_tasks;
use crate::state::fs;

wasi_call! {
    /// `path_open` (module build: rights as wasmtime gives them). `opened_fd` is checked
    /// before the file is opened.
    fn path_open(
        fd: i32,
        dirflags: i32,
        path: i32,
        path_len: i32,
        oflags: i32,
        fs_rights_base: i64,
        fs_rights_inheriting: i64,
        fdflags: i32,
        opened_fd: i32,
    ) routes fd => |d| {
        // SAFETY: the program lends `path` for the call.
        let p = unsafe { bytes(path, path_len)? };
        mem::check(opened_fd, 4)?;
        #[cfg(not(spindle_fs_module))]
        let (base, inheriting) = (fs_rights_base as u64, fs_rights_inheriting as u64);
        #[cfg(spindle_fs_module)]
        let (base, inheriting) = crate::wasmtime::open_rights(fs_rights_base as u64, oflags as u16);
        let n = fs().path_open(d, dirflags as u32, p, oflags as u16, base, inheriting, fdflags as u16)?;
        if opfs::opened(d, p, oflags as u16, base, n) {
            opfs_tasks::start_idle();
        }
        // SAFETY: checked out-pointer.
        unsafe { put_u32(opened_fd, guest(n) as u32) }
    }
}

wasi_call! {
    /// `path_create_directory`.
    fn path_create_directory(fd: i32, path: i32, path_len: i32) routes fd => |d| {
        // SAFETY: the program lends `path` for the call.
        let p = unsafe { bytes(path, path_len)? };
        opfs::namespace(Op::Mkdir, d, p, None, || fs().path_create_directory(d, p))
    }
}

wasi_call! {
    /// `path_remove_directory`.
    fn path_remove_directory(fd: i32, path: i32, path_len: i32) routes fd => |d| {
        // SAFETY: the program lends `path` for the call.
        let p = unsafe { bytes(path, path_len)? };
        opfs::namespace(Op::Rmdir, d, p, None, || fs().path_remove_directory(d, p))
    }
}

wasi_call! {
    /// `path_unlink_file`.
    fn path_unlink_file(fd: i32, path: i32, path_len: i32) routes fd => |d| {
        // SAFETY: the program lends `path` for the call.
        let p = unsafe { bytes(path, path_len)? };
        opfs::namespace(Op::Unlink, d, p, None, || fs().path_unlink_file(d, p))
    }
}

wasi_call! {
    /// `path_rename`.
    fn path_rename(
        fd: i32,
        old_path: i32,
        old_path_len: i32,
        new_fd: i32,
        new_path: i32,
        new_path_len: i32,
    ) routes (fd, new_fd) else Xdev => |a, b| {
        // SAFETY: the program lends both paths for the call.
        let (o, n) = unsafe { (bytes(old_path, old_path_len)?, bytes(new_path, new_path_len)?) };
        opfs::namespace(Op::Rename, a, o, Some((b, n)), || fs().path_rename(a, o, b, n))
    }
}

wasi_call! {
    /// `path_link`.
    fn path_link(
        old_fd: i32,
        old_flags: i32,
        old_path: i32,
        old_path_len: i32,
        new_fd: i32,
        new_path: i32,
        new_path_len: i32,
    ) routes (old_fd, new_fd) else Xdev => |a, b| {
        // SAFETY: the program lends both paths for the call.
        let (o, n) = unsafe { (bytes(old_path, old_path_len)?, bytes(new_path, new_path_len)?) };
        opfs::namespace(Op::Link, a, o, Some((b, n)), || fs().path_link(a, old_flags as u32, o, b, n))
    }
}

wasi_call! {
    /// `path_symlink` (the target is stored as given, so it never crosses worlds; module
    /// build: an absolute target is EPERM, as in wasmtime).
    fn path_symlink(old_path: i32, old_path_len: i32, fd: i32, new_path: i32, new_path_len: i32)
        routes fd => |d|
    {
        // SAFETY: the program lends both strings for the call.
        let (t, n) = unsafe { (bytes(old_path, old_path_len)?, bytes(new_path, new_path_len)?) };
        #[cfg(spindle_fs_module)]
        crate::wasmtime::relative_target(t)?;
        opfs::namespace(Op::Symlink, d, n, None, || fs().path_symlink(t, d, n))
    }
}

wasi_call! {
    /// `path_readlink` (module build: an absolute target is EPERM, as in wasmtime).
    fn path_readlink(fd: i32, path: i32, path_len: i32, buf: i32, buf_len: i32, bufused: i32)
        routes fd => |d|
    {
        // SAFETY: the program lends `path` and `buf` for the call.
        let (p, b) = unsafe { (bytes(path, path_len)?, bytes_mut(buf, buf_len)?) };
        let n = fs().path_readlink(d, p, b)?;
        #[cfg(spindle_fs_module)]
        crate::wasmtime::relative_target(&b[..n])?;
        // SAFETY: the program's out-pointer.
        unsafe { put_u32(bufused, n as u32) }
    }
}

wasi_call! {
    /// `path_filestat_get`.
    fn path_filestat_get(fd: i32, flags: i32, path: i32, path_len: i32, buf: i32) routes fd => |d| {
        // SAFETY: the program lends `path` for the call.
        let p = unsafe { bytes(path, path_len)? };
        let s = fs().path_filestat_get(d, flags as u32, p)?;
        // SAFETY: the program's out-pointer.
        unsafe { mem::put(buf, mem::filestat(&s)) }
    }
}

wasi_call! {
    /// `path_filestat_set_times`.
    fn path_filestat_set_times(
        fd: i32,
        flags: i32,
        path: i32,
        path_len: i32,
        atim: i64,
        mtim: i64,
        fst_flags: i32,
    ) routes fd => |d| {
        // SAFETY: the program lends `path` for the call.
        let p = unsafe { bytes(path, path_len)? };
        fs().path_filestat_set_times(d, flags as u32, p, atim as u64, mtim as u64, fst_flags as u16)
    }
}
