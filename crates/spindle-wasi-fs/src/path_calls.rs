//! The interposed `path_*` calls. Routing is by the directory fd the path is relative to
//! (wasi-libc has already turned an absolute path into (preopen fd, relative path)); a path can
//! never lead from one world into the other because spindle-fs confines resolution to its
//! directory fd. Calls with two directory fds in different worlds answer EXDEV.

#[cfg(not(spindle_fs_module))]
use crate::fd_calls::errno;
use crate::fd_calls::{guest_fd, ret};
use crate::fds::{route, Route};
#[cfg(not(spindle_fs_module))]
use crate::host;
use crate::mem::{self, bytes, bytes_mut, put_u32};
use crate::opfs::{self, Op};
use crate::state::fs;
#[cfg(not(spindle_fs_module))]
use spindle_fs::Errno;

/// `path_open`.
///
/// # Safety
/// WASI contract: `path` and `out` are the program's buffers.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_open(
    fd: i32,
    dirflags: i32,
    path: i32,
    len: i32,
    oflags: i32,
    base: i64,
    inheriting: i64,
    fdflags: i32,
    out: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe {
            host::path_open(fd, dirflags, path, len, oflags, base, inheriting, fdflags, out)
        },
        Route::Spindle(d) => ret((|| {
            // SAFETY: the program lends path for the call.
            let p = unsafe { bytes(path, len)? };
            mem::check(out, 4)?;
            #[cfg(not(spindle_fs_module))]
            let (base, inheriting) = (base as u64, inheriting as u64);
            #[cfg(spindle_fs_module)]
            let (base, inheriting) = {
                let _ = inheriting;
                crate::wasmtime::open_rights(base as u64, oflags as u16)
            };
            let n = fs().path_open(d, dirflags as u32, p, oflags as u16, base, inheriting, fdflags as u16)?;
            opfs::opened(d, p, oflags as u16, base, n);
            // SAFETY: checked out-pointer.
            unsafe { put_u32(out, guest_fd(n)) }
        })()),
    }
}

/// `path_create_directory`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_create_directory(
    fd: i32,
    path: i32,
    len: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::path_create_directory(fd, path, len) },
        // SAFETY: the program lends path for the call.
        Route::Spindle(d) => ret(unsafe { bytes(path, len) }
            .and_then(|p| opfs::namespace(Op::Mkdir, d, p, None, || fs().path_create_directory(d, p)))),
    }
}

/// `path_remove_directory`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_remove_directory(
    fd: i32,
    path: i32,
    len: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::path_remove_directory(fd, path, len) },
        // SAFETY: the program lends path for the call.
        Route::Spindle(d) => ret(unsafe { bytes(path, len) }
            .and_then(|p| opfs::namespace(Op::Rmdir, d, p, None, || fs().path_remove_directory(d, p)))),
    }
}

/// `path_unlink_file`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_unlink_file(
    fd: i32,
    path: i32,
    len: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::path_unlink_file(fd, path, len) },
        // SAFETY: the program lends path for the call.
        Route::Spindle(d) => ret(unsafe { bytes(path, len) }
            .and_then(|p| opfs::namespace(Op::Unlink, d, p, None, || fs().path_unlink_file(d, p)))),
    }
}

/// `path_rename`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_rename(
    fd: i32,
    op: i32,
    ol: i32,
    nfd: i32,
    np: i32,
    nl: i32,
) -> i32 {
    match (route(fd), route(nfd)) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        (Route::Host, Route::Host) => unsafe { host::path_rename(fd, op, ol, nfd, np, nl) },
        (Route::Spindle(a), Route::Spindle(b)) => ret((|| {
            // SAFETY: the program lends both paths for the call.
            let (o, n) = unsafe { (bytes(op, ol)?, bytes(np, nl)?) };
            opfs::namespace(Op::Rename, a, o, Some((b, n)), || fs().path_rename(a, o, b, n))
        })()),
        #[cfg(not(spindle_fs_module))]
        _ => errno(Errno::Xdev),
    }
}

/// `path_link`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_link(
    ofd: i32,
    flags: i32,
    op: i32,
    ol: i32,
    nfd: i32,
    np: i32,
    nl: i32,
) -> i32 {
    match (route(ofd), route(nfd)) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        (Route::Host, Route::Host) => unsafe { host::path_link(ofd, flags, op, ol, nfd, np, nl) },
        (Route::Spindle(a), Route::Spindle(b)) => ret((|| {
            // SAFETY: the program lends both paths for the call.
            let (o, n) = unsafe { (bytes(op, ol)?, bytes(np, nl)?) };
            opfs::namespace(Op::Link, a, o, Some((b, n)), || fs().path_link(a, flags as u32, o, b, n))
        })()),
        #[cfg(not(spindle_fs_module))]
        _ => errno(Errno::Xdev),
    }
}

/// `path_symlink` (the target is stored as given, so it never crosses worlds).
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_symlink(
    op: i32,
    ol: i32,
    fd: i32,
    np: i32,
    nl: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::path_symlink(op, ol, fd, np, nl) },
        Route::Spindle(d) => ret((|| {
            // SAFETY: the program lends both strings for the call.
            let (t, n) = unsafe { (bytes(op, ol)?, bytes(np, nl)?) };
            #[cfg(spindle_fs_module)]
            crate::wasmtime::relative_target(t)?;
            opfs::namespace(Op::Symlink, d, n, None, || fs().path_symlink(t, d, n))
        })()),
    }
}

/// `path_readlink`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_readlink(
    fd: i32,
    path: i32,
    len: i32,
    buf: i32,
    buf_len: i32,
    out: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::path_readlink(fd, path, len, buf, buf_len, out) },
        Route::Spindle(d) => ret((|| {
            // SAFETY: the program lends path, buf and out for the call.
            let (p, b) = unsafe { (bytes(path, len)?, bytes_mut(buf, buf_len)?) };
            let n = fs().path_readlink(d, p, b)?;
            #[cfg(spindle_fs_module)]
            crate::wasmtime::relative_target(&b[..n])?;
            // SAFETY: as above.
            unsafe { put_u32(out, n as u32) }
        })()),
    }
}

/// `path_filestat_get`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_filestat_get(
    fd: i32,
    flags: i32,
    path: i32,
    len: i32,
    out: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::path_filestat_get(fd, flags, path, len, out) },
        Route::Spindle(d) => ret((|| {
            // SAFETY: the program lends path for the call.
            let p = unsafe { bytes(path, len)? };
            let s = fs().path_filestat_get(d, flags as u32, p)?;
            // SAFETY: the program's out-pointer.
            unsafe { mem::put(out, mem::filestat(&s)) }
        })()),
    }
}

/// `path_filestat_set_times`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_path_filestat_set_times(
    fd: i32,
    flags: i32,
    path: i32,
    len: i32,
    atim: i64,
    mtim: i64,
    fst: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::path_filestat_set_times(fd, flags, path, len, atim, mtim, fst) },
        // SAFETY: the program lends path for the call.
        Route::Spindle(d) => ret(unsafe { bytes(path, len) }.and_then(|p| {
            fs().path_filestat_set_times(d, flags as u32, p, atim as u64, mtim as u64, fst as u16)
        })),
    }
}
