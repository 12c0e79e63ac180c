//! What the host needs besides the WASI calls: memory mounts, tar snapshots, and buffers for
//! arguments larger than the per-thread scratch area. Pointers are into this module's memory;
//! every export returns a WASI errno (0 = success) unless said otherwise.

extern crate alloc;

use alloc::vec::Vec;
use spindle_fs::{Errno, Fd};
use spindle_wasi_fs::mem::{bytes, check, put_u32};
use spindle_wasi_fs::{fs, ret};

/// Mounts an empty memory directory at the guest path `[path, path+len)` (absolute, e.g.
/// "/tmp"; `readonly` != 0: every write is EROFS) and preopens it; the preopen's fd goes to
/// `*out_fd`. EEXIST if something is mounted there already.
///
/// # Safety
/// The host lends the buffers for the call.
#[no_mangle]
pub unsafe extern "C" fn spindle_fs_mount(path: i32, len: i32, readonly: i32, out_fd: i32) -> i32 {
    ret((|| {
        // SAFETY: lent by the host.
        let p = unsafe { bytes(path, len)? };
        check(out_fd, 4)?;
        let fs = fs();
        fs.mount_memory(p, readonly != 0)?;
        let fd = fs.preopen(p)?;
        // SAFETY: checked out-pointer.
        unsafe { put_u32(out_fd, fd) }
    })())
}

/// Mounts an OPFS directory at the guest path `[path, path+len)`: a memory mount filled from the
/// tar stream `[tar, tar+tar_len)` (the directory's contents, which the host loaded through the
/// OPFS I/O worker as `mount`, its id there) and mirrored to OPFS from now on (the hooks in
/// spindle-wasi-fs's opfs.rs call the `spindle_opfs` imports). The preopen's fd goes to `*out_fd`.
///
/// # Safety
/// The host lends the buffers for the call.
#[cfg(feature = "opfs")]
#[no_mangle]
pub unsafe extern "C" fn spindle_fs_mount_opfs(
    path: i32,
    len: i32,
    mount: i32,
    tar: i32,
    tar_len: i32,
    out_fd: i32,
) -> i32 {
    ret((|| {
        // SAFETY: lent by the host.
        let (p, t) = unsafe { (bytes(path, len)?, bytes(tar, tar_len)?) };
        check(out_fd, 4)?;
        let fd = spindle_wasi_fs::opfs_mount_loaded(fs(), p, mount as u32, t)?;
        // SAFETY: checked out-pointer.
        unsafe { put_u32(out_fd, fd) }
    })())
}

/// Before the program's exit is published (runtime/src/thread.ts, on the exiting thread): queues
/// a write-back of every file still open for writing on an OPFS mount, without waiting (the
/// I/O worker finishes after the exit). The host calls it only when the program has OPFS mounts.
#[cfg(feature = "opfs")]
#[no_mangle]
pub extern "C" fn spindle_fs_opfs_flush() {
    spindle_wasi_fs::opfs_flush_open(fs());
}

/// The idle write-back scan, to be called every `spindle_fs_opfs_idle_tick_ms()` milliseconds
/// (runtime/src/fs/opfs-idle.ts, on its own worker): queues a write-back of each file open for
/// writing on an OPFS mount that changed and then stayed unchanged for a whole tick.
#[cfg(feature = "opfs")]
#[no_mangle]
pub extern "C" fn spindle_fs_opfs_flush_idle() {
    spindle_wasi_fs::opfs_flush_idle(fs());
}

/// The period of `spindle_fs_opfs_flush_idle`, in milliseconds.
#[cfg(feature = "opfs")]
#[no_mangle]
pub extern "C" fn spindle_fs_opfs_idle_tick_ms() -> u32 {
    spindle_wasi_fs::OPFS_IDLE_TICK_MS
}

/// Imports the tar stream `[tar, tar+tar_len)` into the directory `path` relative to `dirfd`
/// (created if missing); the number of entries goes to `*out_count`. The host validates the
/// stream's structure first (memfs-tar.ts), so an error here is about the filesystem (EROFS,
/// ENOTCAPABLE, ENOTDIR, ...).
///
/// # Safety
/// The host lends the buffers for the call.
#[no_mangle]
pub unsafe extern "C" fn spindle_fs_tar_import(
    dirfd: i32,
    path: i32,
    len: i32,
    tar: i32,
    tar_len: i32,
    out_count: i32,
) -> i32 {
    ret((|| {
        // SAFETY: lent by the host.
        let (p, t) = unsafe { (bytes(path, len)?, bytes(tar, tar_len)?) };
        check(out_count, 4)?;
        let n = fs().tar_import(dirfd as Fd, p, t)?;
        // SAFETY: checked out-pointer.
        unsafe { put_u32(out_count, n as u32) }
    })())
}

/// Exports the subtree at `path` relative to `dirfd` as a tar stream in a fresh buffer, whose
/// address and length go to `out[0]` and `out[1]`; the host copies it and frees it with
/// [`spindle_fs_free`].
///
/// # Safety
/// The host lends the buffers for the call.
#[no_mangle]
pub unsafe extern "C" fn spindle_fs_tar_export(dirfd: i32, path: i32, len: i32, out: i32) -> i32 {
    ret((|| {
        // SAFETY: lent by the host.
        let p = unsafe { bytes(path, len)? };
        check(out, 8)?;
        let mut tar: Vec<u8> = Vec::new();
        fs().tar_export(dirfd as Fd, p, &mut |chunk| {
            tar.try_reserve(chunk.len()).map_err(|_| Errno::Nomem)?;
            tar.extend_from_slice(chunk);
            Ok(())
        })?;
        let buf = spindle_fs_alloc(tar.len() as i32);
        if buf == 0 {
            return Err(Errno::Nomem);
        }
        // SAFETY: a fresh block of tar.len() bytes; out was checked.
        unsafe {
            core::ptr::copy_nonoverlapping(tar.as_ptr(), buf as usize as *mut u8, tar.len());
            put_u32(out, buf as u32)?;
            put_u32(out + 4, tar.len() as u32)
        }
    })())
}

/// A block of `size` bytes (16-aligned) for the host, or 0 when out of memory. Not an errno.
#[no_mangle]
pub extern "C" fn spindle_fs_alloc(size: i32) -> i32 {
    // SAFETY: plain allocation; freed by `spindle_fs_free`.
    unsafe { spindle_alloc::alloc(size as u32 as usize, spindle_alloc::MIN_ALIGNMENT) as usize as i32 }
}

/// Frees a block from [`spindle_fs_alloc`] or [`spindle_fs_tar_export`] (0: nothing).
///
/// # Safety
/// `ptr` is 0 or such a block, freed once.
#[no_mangle]
pub unsafe extern "C" fn spindle_fs_free(ptr: i32) {
    // SAFETY: per the contract.
    unsafe { spindle_alloc::free(ptr as u32 as usize as *mut u8) }
}
