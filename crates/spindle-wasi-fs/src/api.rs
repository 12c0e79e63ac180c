//! Interposition build only: what a program calls besides the WASI functions, and the
//! start-up constructor.
//!
//! - The constructor (priority 101, before ordinary C/C++ constructors: the first one free for
//!   programs) creates the filesystem, which mounts the start-up directories (`preopens.rs`),
//!   hands their preopens to the preopen table, and, if one of them is an OPFS mount,
//!   registers the exit flush (`opfs_tasks.rs`).
//! - [`mount`] (Rust) and `spindle_fs_mount` (C, `spindle-fs.h`): a memory mount at run time.
//! - `spindle_fs_set_can_wait` (C): which threads may block in `memory.atomic.wait32`.

use crate::errno::errno;
use crate::fds::guest;
use crate::opfs;
use crate::opfs_tasks;
use crate::preopens;
use crate::state::fs;
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use spindle_fs::Errno;

/// The constructor: initialise and announce the preopens before `main` and before ordinary
/// constructors.
extern "C" fn init_ctor() {
    fs();
    // A constructor has no one to report to: a mount the table refused is not found later
    // (ENOENT), as before.
    let _ = preopens::register_pending();
    if opfs::active() {
        opfs_tasks::register_exit_flush();
    }
}

#[used]
#[link_section = ".init_array.00101"]
static INIT_CTOR: extern "C" fn() = init_ctor;

/// C API (`spindle-fs.h`): mounts an empty memory directory at `path` (absolute, e.g. "/data")
/// and makes it a preopen, so `open("/data/x", ...)` works from now on. Returns 0 or an errno
/// value (EEXIST if `path` is already a spindle preopen... or exists as a directory in spindle).
///
/// # Safety
/// `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn spindle_fs_mount(path: *const u8) -> i32 {
    if path.is_null() {
        return errno(Errno::Fault);
    }
    // SAFETY: NUL-terminated per the contract.
    let p = unsafe { core::ffi::CStr::from_ptr(path as *const core::ffi::c_char) }.to_bytes();
    mount(p).map_or_else(errno, |_| 0)
}

/// Rust API: mounts an empty memory directory at `path` and registers it as a preopen with
/// wasi-libc (so std::fs finds it). Returns the spindle fd of the preopen.
pub fn mount(path: &[u8]) -> Result<i32, Errno> {
    let fs = fs();
    fs.mount_memory(path, false)?;
    let fd = guest(fs.preopen(path)?);
    preopens::queue(fd, path);
    preopens::register_pending().map(|()| fd)
}

/// The C hook of [`spindle_fs_set_can_wait`] (0: none).
static C_CAN_WAIT: AtomicUsize = AtomicUsize::new(0);

fn c_can_wait() -> bool {
    let h = C_CAN_WAIT.load(Relaxed);
    if h == 0 {
        return true;
    }
    // SAFETY: only `spindle_fs_set_can_wait` stores a non-zero value, an `extern "C" fn() -> i32`.
    let f: extern "C" fn() -> i32 = unsafe { core::mem::transmute::<usize, extern "C" fn() -> i32>(h) };
    f() != 0
}

/// C API (`spindle-fs.h`): `hook()` returns non-zero if the calling thread may block in
/// `memory.atomic.wait32` (a browser main thread may not; it then spins). NULL: every thread may.
#[no_mangle]
pub extern "C" fn spindle_fs_set_can_wait(hook: Option<extern "C" fn() -> i32>) {
    C_CAN_WAIT.store(hook.map_or(0, |f| f as usize), Relaxed);
    spindle_fs::set_can_wait(c_can_wait);
}
