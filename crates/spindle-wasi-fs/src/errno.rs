//! The one place where a spindle-fs [`Errno`] becomes the number a program sees.
//!
//! spindle-fs's discriminants are witx's values, so in the interposition build the number is
//! the discriminant. The module build (`--cfg spindle_fs_module`) answers as wasmtime 46 does
//! where spindle-fs differs (the other differences, rights and fdstat, are in `wasmtime.rs`):
//! - an escape from the directory fd is EPERM, where spindle-fs says ENOTCAPABLE;
//! - a read or write on a directory is EBADF, not EISDIR ([`data_errno`]);
//! - `fd_readdir` on a file is EBADF, not ENOTDIR ([`readdir_errno`]).

use spindle_fs::Errno;

/// The WASI errno value the program sees for `e`.
#[inline]
pub fn errno(e: Errno) -> i32 {
    #[cfg(spindle_fs_module)]
    let e = match e {
        Errno::Notcapable => Errno::Perm,
        e => e,
    };
    e.raw() as i32
}

/// A call's result as the errno the program sees (0: success).
#[inline(always)]
pub fn ret(r: Result<(), Errno>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(e) => errno(e),
    }
}

/// The errno of a data call (read, write) that failed: EBADF for a directory in the module
/// build, else spindle-fs's.
#[inline(always)]
pub(crate) fn data_errno(e: Errno) -> Errno {
    #[cfg(spindle_fs_module)]
    let e = match e {
        Errno::Isdir => Errno::Badf,
        e => e,
    };
    e
}

/// The errno of a failed `fd_readdir`: EBADF for a file in the module build, else
/// spindle-fs's.
#[inline(always)]
pub(crate) fn readdir_errno(e: Errno) -> Errno {
    #[cfg(spindle_fs_module)]
    let e = match e {
        Errno::Notdir => Errno::Badf,
        e => e,
    };
    e
}
