//! Native (Linux and other unix): a region of address space reserved once with mmap and handed out
//! from its start like wasm's `memory.grow` (so the layers above see the same one-way growing memory
//! on both platforms), the heap pointer in a pthread key whose destructor reports thread exit.
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
const NO_KEY: usize = usize::MAX;
static KEY: AtomicUsize = AtomicUsize::new(NO_KEY);

/// Start of the region (0 before the first `grow`; no pointer of ours exists then).
#[inline(always)]
pub(crate) fn base() -> usize {
    BASE.load(Ordering::Relaxed)
}

#[cold]
unsafe fn reserve() -> Option<usize> {
    // SAFETY: anonymous private mapping, no file; the result is checked.
    let p = unsafe {
        libc::mmap(
            core::ptr::null_mut(),
            REGION + CHUNK,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
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

#[inline(always)]
pub(crate) fn heap_get() -> *mut crate::heap::Heap {
    let k = KEY.load(Ordering::Relaxed);
    if k == NO_KEY {
        return core::ptr::null_mut();
    }
    // SAFETY: `k` is a key created by pthread_key_create and never deleted.
    unsafe { libc::pthread_getspecific(k as libc::pthread_key_t) as *mut crate::heap::Heap }
}

unsafe extern "C" fn on_exit(h: *mut c_void) {
    // SAFETY: the key's values are only ever heaps set by `heap_set`.
    unsafe { crate::heap::thread_exit(h as *mut crate::heap::Heap) }
}

/// # Safety
/// Call with the pool lock held.
pub(crate) unsafe fn heap_set(h: *mut crate::heap::Heap) {
    let mut k = KEY.load(Ordering::Relaxed);
    if k == NO_KEY {
        let mut nk: libc::pthread_key_t = 0;
        // SAFETY: valid out pointer.
        if unsafe { libc::pthread_key_create(&mut nk, Some(on_exit)) } != 0 {
            super::fatal("pthread_key_create failed");
        }
        k = nk as usize;
        KEY.store(k, Ordering::Release);
    }
    // SAFETY: valid key.
    unsafe { libc::pthread_setspecific(k as libc::pthread_key_t, h as *const c_void) };
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
