//! The interposed `fd_*` calls: wasi-libc's `__imported_wasi_snapshot_preview1_fd_*` symbols,
//! defined here so wasm-ld resolves them to this code instead of emitting host imports.
//!
//! Each one routes by fd (`fds.rs`): a host fd is forwarded untouched to the real import
//! (`host.rs`); a spindle fd goes to spindle-fs, with the program's buffers read and written
//! in place (`mem.rs`). Every function returns a WASI errno and never traps on bad input.

use crate::fds::{guest, route, Route};
#[cfg(not(spindle_fs_module))]
use crate::host;
use crate::mem::{self, put_u32, put_u64, with_ciovs, with_iovs};
use crate::state::fs;
use spindle_fs::{Errno, Whence};

/// Converts a spindle result to the errno the program sees.
#[inline(always)]
pub(crate) fn ret(r: Result<(), Errno>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(e) => errno(e),
    }
}

/// The WASI value of `e` (spindle-fs's discriminants are witx's values).
#[inline]
pub fn errno(e: Errno) -> i32 {
    #[cfg(spindle_fs_module)]
    let e = crate::wasmtime::errno(e);
    e.raw() as i32
}

/// The errno of a data call (read/write) that failed: in the module build wasmtime's (EBADF for
/// a directory, `wasmtime.rs`), else spindle-fs's.
#[inline(always)]
fn data_errno(e: Errno) -> Errno {
    #[cfg(spindle_fs_module)]
    let e = crate::wasmtime::data_errno(e);
    e
}

/// The errno of a failed `fd_readdir`: in the module build wasmtime's (EBADF for a file).
#[inline(always)]
fn readdir_errno(e: Errno) -> Errno {
    #[cfg(spindle_fs_module)]
    let e = crate::wasmtime::readdir_errno(e);
    e
}

/// `fd_read`.
///
/// # Safety
/// WASI contract: `iovs` and `out` are the program's buffers.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_read(
    fd: i32,
    iovs: i32,
    n: i32,
    out: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_read(fd, iovs, n, out) },
        // SAFETY: the program lends iovs/out for the call; `out` is checked before the read moves
        // the offset.
        Route::Spindle(f) => ret(mem::check(out, 4).and_then(|_| unsafe {
            with_iovs(iovs, n, |b| fs().fd_read(f, b).map_err(data_errno))
                .and_then(|k| put_u32(out, k as u32))
        })),
    }
}

/// `fd_write`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_write(
    fd: i32,
    iovs: i32,
    n: i32,
    out: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_write(fd, iovs, n, out) },
        // SAFETY: the program lends iovs/out for the call; `out` is checked before anything is
        // written (a failed call must not have written).
        Route::Spindle(f) => ret(mem::check(out, 4).and_then(|_| unsafe {
            with_ciovs(iovs, n, |b| fs().fd_write(f, b).map_err(data_errno))
                .and_then(|k| put_u32(out, k as u32))
        })),
    }
}

/// `fd_pread`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_pread(
    fd: i32,
    iovs: i32,
    n: i32,
    off: i64,
    out: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_pread(fd, iovs, n, off, out) },
        // SAFETY: the program lends iovs/out for the call.
        Route::Spindle(f) => ret(unsafe {
            with_iovs(iovs, n, |b| fs().fd_pread(f, b, off as u64).map_err(data_errno))
                .and_then(|k| put_u32(out, k as u32))
        }),
    }
}

/// `fd_pwrite`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_pwrite(
    fd: i32,
    iovs: i32,
    n: i32,
    off: i64,
    out: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_pwrite(fd, iovs, n, off, out) },
        // SAFETY: the program lends iovs/out for the call.
        Route::Spindle(f) => ret(mem::check(out, 4).and_then(|_| unsafe {
            with_ciovs(iovs, n, |b| fs().fd_pwrite(f, b, off as u64).map_err(data_errno))
                .and_then(|k| put_u32(out, k as u32))
        })),
    }
}

/// `fd_seek`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_seek(
    fd: i32,
    off: i64,
    whence: i32,
    out: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_seek(fd, off, whence, out) },
        Route::Spindle(f) => ret((|| {
            let w = Whence::from_raw(whence as u8).filter(|_| whence as u32 <= 2).ok_or(Errno::Inval)?;
            mem::check(out, 8)?;
            #[cfg(spindle_fs_module)]
            crate::wasmtime::not_directory(f)?;
            let pos = fs().fd_seek(f, off, w)?;
            // SAFETY: the program's out-pointer.
            unsafe { put_u64(out, pos) }
        })()),
    }
}

/// `fd_tell`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_tell(fd: i32, out: i32) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_tell(fd, out) },
        // SAFETY: the program's out-pointer.
        Route::Spindle(f) => ret({
            #[cfg(spindle_fs_module)]
            let r = crate::wasmtime::not_directory(f).and_then(|()| fs().fd_tell(f));
            #[cfg(not(spindle_fs_module))]
            let r = fs().fd_tell(f);
            // SAFETY: the program's out-pointer.
            r.and_then(|p| unsafe { put_u64(out, p) })
        }),
    }
}

/// `fd_close`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_close(fd: i32) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_close(fd) },
        Route::Spindle(f) => ret(crate::opfs::close(f, || fs().fd_close(f))),
    }
}

/// `fd_sync`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_sync(fd: i32) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_sync(fd) },
        Route::Spindle(f) => ret(crate::opfs::sync(f, || fs().fd_sync(f))),
    }
}

/// `fd_datasync`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_datasync(fd: i32) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_datasync(fd) },
        Route::Spindle(f) => ret(crate::opfs::sync(f, || fs().fd_datasync(f))),
    }
}

/// `fd_fdstat_get`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_fdstat_get(fd: i32, out: i32) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_fdstat_get(fd, out) },
        // SAFETY: the program's out-pointer.
        Route::Spindle(f) => ret(fs().fd_fdstat_get(f).and_then(|s| {
            #[cfg(spindle_fs_module)]
            let s = crate::wasmtime::fdstat(s);
            // SAFETY: the program's out-pointer.
            unsafe { mem::put(out, mem::fdstat(&s)) }
        })),
    }
}

/// `fd_fdstat_set_flags`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_fdstat_set_flags(fd: i32, flags: i32) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_fdstat_set_flags(fd, flags) },
        Route::Spindle(f) => ret(fs().fd_fdstat_set_flags(f, flags as u16)),
    }
}

/// `fd_fdstat_set_rights`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_fdstat_set_rights(
    fd: i32,
    base: i64,
    inh: i64,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_fdstat_set_rights(fd, base, inh) },
        #[cfg(not(spindle_fs_module))]
        Route::Spindle(f) => ret(fs().fd_fdstat_set_rights(f, base as u64, inh as u64)),
        // wasmtime 46: ENOTSUP for an open fd (wasmtime.rs).
        #[cfg(spindle_fs_module)]
        Route::Spindle(f) => ret({
            let _ = (base, inh);
            fs().fd_fdstat_get(f).and(Err(Errno::Notsup))
        }),
    }
}

/// `fd_filestat_get`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_filestat_get(fd: i32, out: i32) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_filestat_get(fd, out) },
        // SAFETY: the program's out-pointer.
        Route::Spindle(f) => {
            ret(fs().fd_filestat_get(f).and_then(|s| unsafe { mem::put(out, mem::filestat(&s)) }))
        }
    }
}

/// `fd_filestat_set_size`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_filestat_set_size(fd: i32, size: i64) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_filestat_set_size(fd, size) },
        Route::Spindle(f) => ret(fs().fd_filestat_set_size(f, size as u64)),
    }
}

/// `fd_filestat_set_times`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_filestat_set_times(
    fd: i32,
    atim: i64,
    mtim: i64,
    flags: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_filestat_set_times(fd, atim, mtim, flags) },
        Route::Spindle(f) => ret(fs().fd_filestat_set_times(f, atim as u64, mtim as u64, flags as u16)),
    }
}

/// `fd_readdir`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_readdir(
    fd: i32,
    buf: i32,
    len: i32,
    cookie: i64,
    out: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_readdir(fd, buf, len, cookie, out) },
        Route::Spindle(f) => ret((|| {
            // SAFETY: the program lends buf/out for the call.
            let b = unsafe { mem::bytes_mut(buf, len)? };
            let n = fs().fd_readdir_into(f, b, cookie as u64).map_err(readdir_errno)?;
            // SAFETY: as above.
            unsafe { put_u32(out, n as u32) }
        })()),
    }
}

/// `fd_renumber`: within one world only (EBADF across worlds, see `fds.rs`).
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_renumber(fd: i32, to: i32) -> i32 {
    match (route(fd), route(to)) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        (Route::Host, Route::Host) => unsafe { host::fd_renumber(fd, to) },
        (Route::Spindle(a), Route::Spindle(b)) => ret(crate::opfs::renumber(a, b, || fs().fd_renumber(a, b))),
        #[cfg(not(spindle_fs_module))]
        _ => errno(Errno::Badf),
    }
}

/// `fd_allocate`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_allocate(fd: i32, off: i64, len: i64) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_allocate(fd, off, len) },
        Route::Spindle(f) => ret(fs().fd_allocate(f, off as u64, len as u64)),
    }
}

/// `fd_advise`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_advise(
    fd: i32,
    off: i64,
    len: i64,
    advice: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_advise(fd, off, len, advice) },
        Route::Spindle(f) => ret(fs().fd_advise(f, off as u64, len as u64, advice as u8)),
    }
}

/// `fd_prestat_get`: the host's preopens, and spindle's (at their spindle fds).
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_prestat_get(fd: i32, out: i32) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_prestat_get(fd, out) },
        Route::Spindle(f) => ret(fs().fd_prestat_get(f).and_then(|p| {
            let mut b = [0u8; 8];
            b[4..8].copy_from_slice(&p.name_len.to_le_bytes());
            // SAFETY: the program's out-pointer.
            unsafe { mem::put(out, b) }
        })),
    }
}

/// `fd_prestat_dir_name`.
///
/// # Safety
/// WASI contract.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_fd_prestat_dir_name(
    fd: i32,
    buf: i32,
    len: i32,
) -> i32 {
    match route(fd) {
        #[cfg(not(spindle_fs_module))]
        // SAFETY: forwarded verbatim.
        Route::Host => unsafe { host::fd_prestat_dir_name(fd, buf, len) },
        // SAFETY: the program lends buf for the call.
        Route::Spindle(f) => {
            ret(unsafe { mem::bytes_mut(buf, len) }.and_then(|b| fs().fd_prestat_dir_name(f, b)))
        }
    }
}

/// The guest fd of a spindle-fs fd (for `path_open`'s out-parameter).
#[inline]
pub(crate) fn guest_fd(n: spindle_fs::Fd) -> u32 {
    guest(n) as u32
}
