//! The I/O worker's side of OPFS mounts as seen from Wasm: the `spindle_opfs` imports (given by
//! runtime/src/fs/opfs-imports.ts on every program thread in a browser) and their Rust wrappers.
//!
//! Only the `opfs` feature imports anything: a program linked without it (libspindle-fs.a)
//! keeps running on any WASI host, and `opfs.rs` never calls here because `active()` is false.
//! With it (libspindle-fs-opfs.a) the program needs a host that provides `spindle_opfs`
//! (spindle in a browser).
//!
//! Contract of the imports (pointers are into this program's memory; the host copies out of
//! them before returning, so buffers may be freed right after):
//! - `load(dir, dir_len, out) -> errno`: opens (creates) OPFS directory `dir` and reads it;
//!   writes `[mount id u32, tar length u32]` at `out`. Blocks the calling thread.
//! - `load_copy(mount, buf, len) -> errno`: copies the tar of the last `load` into `buf`.
//! - `write_back(mount, path, path_len, data, data_len) -> seq | -errno`: queues the file's
//!   new bytes. Does not wait for the I/O.
//! - `namespace(mount, op, a, a_len, b, b_len) -> seq | -errno`: queues a namespace change.
//! - `wait(mount, seq, path, path_len) -> errno`: waits until everything up to `seq` is done,
//!   then returns (and clears) the deferred error of `path` (0 if none).
//! - `take_error(mount, path, path_len) -> errno`: the same without waiting.

use spindle_fs::Errno;

/// Namespace operations mirrored to OPFS (the values are the channel's, opfs-channel.ts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Mkdir = 2,
    Unlink = 3,
    Rmdir = 4,
    Rename = 5,
    /// Nothing: a point to wait for (fsync of a directory).
    Barrier = 6,
    /// Never mirrored: refused with ENOTSUP on OPFS mounts.
    Link = 100,
    Symlink = 101,
}

#[cfg(feature = "opfs")]
mod imports {
    #[link(wasm_import_module = "spindle_opfs")]
    extern "C" {
        #[cfg(not(spindle_fs_module))]
        pub fn load(dir: i32, dir_len: i32, out: i32) -> i32;
        #[cfg(not(spindle_fs_module))]
        pub fn load_copy(mount: i32, buf: i32, len: i32) -> i32;
        pub fn write_back(mount: i32, path: i32, path_len: i32, data: i32, data_len: i32) -> i32;
        pub fn namespace(mount: i32, op: i32, a: i32, a_len: i32, b: i32, b_len: i32) -> i32;
        pub fn wait(mount: i32, seq: i32, path: i32, path_len: i32) -> i32;
        pub fn take_error(mount: i32, path: i32, path_len: i32) -> i32;
    }
}

/// Without the feature: the same calls, answering ENOTSUP (only `load` is reached, from a
/// start-up `opfs:` mount, which then fails; the hooks never call: `active()` is false).
#[cfg(not(feature = "opfs"))]
#[allow(clippy::missing_safety_doc)] // stand-ins with the imports' signatures
mod imports {
    const NOTSUP: i32 = spindle_fs::Errno::Notsup.raw() as i32;
    #[cfg(not(spindle_fs_module))]
    pub unsafe fn load(_: i32, _: i32, _: i32) -> i32 {
        NOTSUP
    }
    #[cfg(not(spindle_fs_module))]
    pub unsafe fn load_copy(_: i32, _: i32, _: i32) -> i32 {
        NOTSUP
    }
    pub unsafe fn write_back(_: i32, _: i32, _: i32, _: i32, _: i32) -> i32 {
        -NOTSUP
    }
    pub unsafe fn namespace(_: i32, _: i32, _: i32, _: i32, _: i32, _: i32) -> i32 {
        -NOTSUP
    }
    pub unsafe fn wait(_: i32, _: i32, _: i32, _: i32) -> i32 {
        NOTSUP
    }
    pub unsafe fn take_error(_: i32, _: i32, _: i32) -> i32 {
        NOTSUP
    }
}

/// An errno value from the host as an `Errno` (0 is Ok).
fn check(e: i32) -> Result<(), Errno> {
    match e {
        0 => Ok(()),
        51 => Err(Errno::Nospc),
        58 => Err(Errno::Notsup),
        44 => Err(Errno::Noent),
        28 => Err(Errno::Inval),
        _ => Err(Errno::Io),
    }
}

/// A `seq | -errno` result.
fn seq(r: i32) -> Result<u32, Errno> {
    if r < 0 {
        check(-r).map(|()| 0)
    } else {
        Ok(r as u32)
    }
}

/// Loads OPFS directory `dir`: (mount id, its contents as a tar stream). The module build's
/// host loads directories itself.
#[cfg(not(spindle_fs_module))]
pub(crate) fn load(dir: &[u8]) -> Result<(u32, alloc::vec::Vec<u8>), Errno> {
    let mut out = [0u32; 2];
    // SAFETY: `dir` and `out` are valid for the call; the host writes 8 bytes at `out`.
    check(unsafe { imports::load(dir.as_ptr() as i32, dir.len() as i32, out.as_mut_ptr() as i32) })?;
    let mut tar = alloc::vec![0u8; out[1] as usize];
    // SAFETY: `tar` has the length the host announced.
    check(unsafe { imports::load_copy(out[0] as i32, tar.as_mut_ptr() as i32, tar.len() as i32) })?;
    Ok((out[0], tar))
}

/// Queues the new bytes of `path`; returns the sequence number to wait for.
pub(crate) fn write_back(mount: u32, path: &[u8], data: &[u8]) -> Result<u32, Errno> {
    // SAFETY: both buffers are valid for the call; the host copies them before returning.
    seq(unsafe {
        imports::write_back(
            mount as i32,
            path.as_ptr() as i32,
            path.len() as i32,
            data.as_ptr() as i32,
            data.len() as i32,
        )
    })
}

/// Queues a namespace change (`b`: the new path of a rename, else empty).
pub(crate) fn namespace(mount: u32, op: Op, a: &[u8], b: &[u8]) -> Result<u32, Errno> {
    // SAFETY: both buffers are valid for the call; the host copies them before returning.
    seq(unsafe {
        imports::namespace(
            mount as i32,
            op as i32,
            a.as_ptr() as i32,
            a.len() as i32,
            b.as_ptr() as i32,
            b.len() as i32,
        )
    })
}

/// Waits until operation `seq` (and all before it) reached OPFS; the file's deferred error.
pub(crate) fn wait(mount: u32, seq: u32, path: &[u8]) -> Result<(), Errno> {
    // SAFETY: `path` is valid for the call.
    check(unsafe { imports::wait(mount as i32, seq as i32, path.as_ptr() as i32, path.len() as i32) })
}

/// The deferred write-back error of `path`, cleared (no waiting).
pub(crate) fn take_error(mount: u32, path: &[u8]) -> Result<(), Errno> {
    // SAFETY: `path` is valid for the call.
    check(unsafe { imports::take_error(mount as i32, path.as_ptr() as i32, path.len() as i32) })
}
