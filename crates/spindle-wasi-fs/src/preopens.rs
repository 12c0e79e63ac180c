//! Interposition build only: the memory mounts a program starts with, and how the preopen
//! table learns about spindle's preopens.
//!
//! **Start-up mounts** (`mount_initial`, run once by `state.rs` while the `Fs` is created):
//! 1. reads `SPINDLE_FS_MOUNTS` with the host's real `environ_get` (comma-separated guest
//!    paths; unset means the default `/tmp`; empty means none);
//! 2. lists the host's preopens with the real `fd_prestat_get`/`fd_prestat_dir_name`;
//! 3. creates a memory mount and a spindle preopen for every requested path, except that the
//!    DEFAULT `/tmp` is skipped when the host already preopens `/tmp` (the host's directory
//!    wins then); a path named explicitly in `SPINDLE_FS_MOUNTS` is always mounted and shadows
//!    a host preopen of the same name.
//!
//! **Preopens.** wasi-libc discovers preopens by calling `fd_prestat_get(3, 4, ...)` until the
//! first EBADF, so it can only find consecutive fds; spindle's live at `FD_BASE + n` and a number
//! right after the host's could later be handed out by the host itself. So spindle's preopens
//! are instead registered in the preopen table (`libc_preopens.rs`, which replaces wasi-libc's)
//! from a constructor (priority 101, before ordinary C/C++ constructors), after the host's have
//! been read. Later registrations take precedence for the same prefix, which is what makes an
//! explicit mount shadow a host directory. `fd_prestat_get(FD_BASE + n)` also answers for them,
//! for code that probes fds itself.
//!
//! The constructor that registers them, and the run-time mount API, are in `api.rs`.
//!
//! Thread rules: the list of preopens to register is behind a spindle-fs-independent spin lock
//! (it is touched only at start-up and by `spindle_fs_mount`).

use crate::errno::errno;
use crate::fds::guest;
use crate::host;
use crate::libc_preopens;
use crate::opfs;
use crate::opfs_path::parse_spec;
use crate::spin::SpinLock;
use alloc::vec::Vec;
use core::cell::UnsafeCell;
use spindle_fs::{Errno, Fs};

/// Mounts the start-up memory directories into `fs` (being created) and queues their preopens
/// for registration with wasi-libc.
pub(crate) fn mount_initial(fs: &Fs) {
    let mounts = mounts_from_env();
    let host = host_preopens();
    let mut list = Vec::new();
    for (entry, explicit) in mounts {
        // `GUEST=opfs:DIR`: an OPFS-backed mount (opfs.rs), else a memory mount.
        let (path, opfs_dir) = parse_spec(&entry);
        if !explicit && host.iter().any(|h| same_path(h, path)) {
            continue;
        }
        let mounted = match opfs_dir {
            Some(dir) => opfs::mount(fs, path, dir),
            None => mount_into(fs, path),
        };
        match mounted {
            Ok(fd) => list.push((guest(fd), path.to_vec())),
            Err(e) => warn_mount(&entry, e),
        }
    }
    PENDING_LOCK.lock();
    // SAFETY: under the pending lock.
    unsafe { (*PENDING.0.get()).extend(list) };
    PENDING_LOCK.unlock();
}

/// Queues spindle preopen `fd` (a guest fd) at `path` for registration.
pub(crate) fn queue(fd: i32, path: &[u8]) {
    PENDING_LOCK.lock();
    // SAFETY: under the pending lock.
    unsafe { (*PENDING.0.get()).push((fd, path.to_vec())) };
    PENDING_LOCK.unlock();
}

/// Mounts a memory directory at `path` (if it is not one yet) and preopens it.
fn mount_into(fs: &Fs, path: &[u8]) -> Result<spindle_fs::Fd, Errno> {
    match fs.mount_memory(path, false) {
        Ok(()) | Err(Errno::Exist) => {}
        Err(e) => return Err(e),
    }
    fs.preopen(path)
}

/// Tells the user (host stderr) that a requested mount was refused, and why.
#[cold]
fn warn_mount(path: &[u8], e: Errno) {
    let mut msg = Vec::new();
    msg.extend_from_slice(b"spindle-fs: SPINDLE_FS_MOUNTS: cannot mount '");
    msg.extend_from_slice(path);
    msg.extend_from_slice(b"' (WASI errno ");
    let n = errno(e);
    if n >= 10 {
        msg.push(b'0' + (n / 10) as u8);
    }
    msg.push(b'0' + (n % 10) as u8);
    msg.extend_from_slice(b"); give absolute paths without '.' or '..', separated by commas");
    msg.extend_from_slice(b" (GUEST=opfs:DIR needs libspindle-fs-opfs.a and spindle in a browser)\n");
    let iov = [msg.as_ptr() as u32, msg.len() as u32];
    let mut written = 0u32;
    // SAFETY: one valid ciovec and out-pointer for the call.
    unsafe { host::fd_write(2, iov.as_ptr() as i32, 1, &mut written as *mut u32 as i32) };
}

/// Requested mounts: (path, named explicitly).
fn mounts_from_env() -> Vec<(Vec<u8>, bool)> {
    match env_var(b"SPINDLE_FS_MOUNTS") {
        None => alloc::vec![(b"/tmp".to_vec(), false)],
        Some(v) => v.split(|&c| c == b',').filter(|p| !p.is_empty()).map(|p| (p.to_vec(), true)).collect(),
    }
}

/// One variable of the host environment, read with the real `environ_get`.
fn env_var(name: &[u8]) -> Option<Vec<u8>> {
    let (mut count, mut size) = (0u32, 0u32);
    // SAFETY: valid out-pointers.
    if unsafe { host::environ_sizes_get(&mut count as *mut u32 as i32, &mut size as *mut u32 as i32) } != 0 {
        return None;
    }
    let mut ptrs = alloc::vec![0u32; count as usize];
    let mut buf = alloc::vec![0u8; size as usize];
    // SAFETY: buffers of the sizes the host asked for.
    if unsafe { host::environ_get(ptrs.as_mut_ptr() as i32, buf.as_mut_ptr() as i32) } != 0 {
        return None;
    }
    buf.split(|&c| c == 0).find_map(|kv| {
        let rest = kv.strip_prefix(name)?;
        rest.strip_prefix(b"=").map(|v| v.to_vec())
    })
}

/// The guest names of the host's preopens (none if the host fails to list them: the preopen
/// table's first lookup then exits, as wasi-libc does).
fn host_preopens() -> Vec<Vec<u8>> {
    let list = libc_preopens::host_preopens().unwrap_or_default();
    list.into_iter().map(|(_, name)| name).collect()
}

/// Compares two preopen names as wasi-libc does (leading `/` and `./`, trailing `/` ignored).
fn same_path(a: &[u8], b: &[u8]) -> bool {
    fn norm(mut p: &[u8]) -> &[u8] {
        loop {
            if let [b'/', r @ ..] = p {
                p = r;
            } else if let [b'.', b'/', r @ ..] = p {
                p = r;
            } else {
                break;
            }
        }
        while let [r @ .., b'/'] = p {
            p = r;
        }
        if p == b"." {
            b""
        } else {
            p
        }
    }
    norm(a) == norm(b)
}

// ---- registration with wasi-libc --------------------------------------------------------

struct Pending(UnsafeCell<Vec<(i32, Vec<u8>)>>);
// SAFETY: only touched under PENDING_LOCK.
unsafe impl Sync for Pending {}
static PENDING: Pending = Pending(UnsafeCell::new(Vec::new()));
static PENDING_LOCK: SpinLock = SpinLock::new();

/// Hands every not-yet-registered spindle preopen to the preopen table (`libc_preopens.rs`).
/// Err if the table refused one (wasi-libc's own table, when it is the linked one, can fail
/// to allocate).
pub(crate) fn register_pending() -> Result<(), Errno> {
    PENDING_LOCK.lock();
    // SAFETY: under the pending lock.
    let list = core::mem::take(unsafe { &mut *PENDING.0.get() });
    PENDING_LOCK.unlock();
    let mut result = Ok(());
    for (fd, mut path) in list {
        path.push(0);
        // SAFETY: a NUL-terminated string that outlives the call (the table copies it). Through
        // the linked symbol: see `libc_preopens::linked`.
        let rc = unsafe { libc_preopens::linked::__wasilibc_register_preopened_fd(fd, path.as_ptr() as _) };
        if rc != 0 {
            result = Err(Errno::Nomem);
        }
    }
    result
}
