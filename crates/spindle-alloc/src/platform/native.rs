//! Native (Linux and other unix): a region of address space reserved once with mmap and handed out
//! from its start like wasm's `memory.grow` (so the layers above see the same one-way growing memory
//! on both platforms), thread ids from `pthread_self`, a pthread key whose destructor reports thread exit (made in `mod.rs`).
//!
//! The region is 4 GiB on 64-bit hosts (1 GiB on 32-bit, 64 MiB under Miri), reserved with
//! MAP_NORESERVE: untouched pages cost nothing.

use super::{CHUNK, CHUNK_SHIFT, LIMIT};
use core::ffi::c_void;
use core::sync::atomic::{AtomicUsize, Ordering};

#[cfg(miri)]
const REGION: usize = 64 << 20;
#[cfg(all(not(miri), target_pointer_width = "64"))]
const REGION: usize = 4 << 30;
#[cfg(all(not(miri), not(target_pointer_width = "64")))]
const REGION: usize = 1 << 30;

pub(crate) const MAX_CHUNKS: usize = REGION >> CHUNK_SHIFT;

static BASE: AtomicUsize = AtomicUsize::new(0);
static TAKEN: AtomicUsize = AtomicUsize::new(0);

/// Start of the region (0 before the first `grow`; no pointer of ours exists then).
#[inline(always)]
pub(crate) fn base() -> usize {
    BASE.load(Ordering::Relaxed)
}

#[cfg(not(miri))]
const FLAGS: i32 = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
#[cfg(miri)]
const FLAGS: i32 = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS; // all Miri supports

#[cold]
unsafe fn reserve() -> Option<usize> {
    // SAFETY: anonymous private mapping, no file; the result is checked.
    let p = unsafe {
        libc::mmap(core::ptr::null_mut(), REGION + CHUNK, libc::PROT_READ | libc::PROT_WRITE, FLAGS, -1, 0)
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    let b = (p as usize + CHUNK - 1) & !(CHUNK - 1);
    BASE.store(b, Ordering::Release);
    Some(b)
}

/// # Safety
/// Call with the pool lock held.
pub(crate) unsafe fn grow(chunks: usize) -> Option<usize> {
    let mut b = base();
    if b == 0 {
        // SAFETY: under the pool lock: reserved once.
        b = unsafe { reserve()? };
    }
    let bytes = chunks.checked_mul(CHUNK)?;
    let taken = TAKEN.load(Ordering::Relaxed);
    let end = taken.checked_add(bytes)?;
    if end > REGION || end > LIMIT.load(Ordering::Relaxed) {
        return None;
    }
    TAKEN.store(end, Ordering::Relaxed);
    Some(b + taken)
}

/// Free memory the program started with: none here (the region is reserved on first use).
pub(crate) fn initial_free() -> (usize, usize) {
    (0, 0)
}

/// Statistics: views refreshed (always 0 here: a native process has one view of its memory).
pub(crate) static REFRESHES: AtomicUsize = AtomicUsize::new(0);

/// Every thread sees all of the memory at once.
#[inline]
pub(crate) fn refresh_view() -> usize {
    usize::MAX
}

/// Threads here are not identified by a TLS block: no freed block retires a thread (pthread key
/// destructors do).
#[inline]
pub(crate) fn thread_of_tls_block(_p: usize) -> usize {
    0
}

/// An id of the calling thread, unique among live threads and never 0: the address of its
/// `struct pthread` (`pthread_self()`).
#[inline(always)]
pub(crate) fn thread_id() -> usize {
    // SAFETY: pthread_self has no preconditions.
    unsafe { libc::pthread_self() as usize }
}

/// Makes a pthread key with destructor `dtor`.
///
/// # Safety
/// Called once (by `super::make_exit_key`).
pub(crate) unsafe fn create_exit_key(dtor: unsafe extern "C" fn(*mut c_void)) -> usize {
    let mut k: libc::pthread_key_t = 0;
    // SAFETY: valid out pointer.
    if unsafe { libc::pthread_key_create(&mut k, Some(dtor)) } != 0 {
        super::fatal("pthread_key_create failed");
    }
    k as usize
}

/// Gives key `k` a non-null value in the calling thread, so its destructor runs at exit.
///
/// # Safety
/// `k` came from `create_exit_key`.
pub(crate) unsafe fn set_exit_marker(k: usize) {
    // SAFETY: valid key.
    unsafe { libc::pthread_setspecific(k as libc::pthread_key_t, 1 as *const c_void) };
}

/// # Safety
/// `b` is a valid slice.
pub(crate) unsafe fn write_stderr(b: &[u8]) {
    // SAFETY: valid buffer.
    unsafe { libc::write(2, b.as_ptr() as *const c_void, b.len()) };
}

/// # Safety
/// Ends the process.
pub(crate) unsafe fn abort() -> ! {
    // SAFETY: libc abort.
    unsafe { libc::abort() }
}
