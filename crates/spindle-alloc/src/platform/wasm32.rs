//! wasm32 (wasi-threads): memory from `memory.grow`, thread ids from `pthread_self`, a wasi-libc
//! pthread key whose destructor tells us a thread exited, stderr and abort from wasi-libc. Every
//! wasm32-wasip1-threads program links wasi-libc (Rust's std does too), so these symbols exist.
//!
//! Memory is the whole linear memory: `base() == 0`, 2^19 chunks of 8 KiB address 4 GiB.
//! Someone else may call `memory.grow` too (sbrk); `grow` just returns what it got, the pool copes
//! with gaps.

use super::{CHUNK, CHUNK_SHIFT, GROW_CHUNKS, LIMIT};
use core::ffi::c_void;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

pub(crate) const MAX_CHUNKS: usize = 1 << (32 - CHUNK_SHIFT);

extern "C" {
    fn pthread_key_create(key: *mut u32, dtor: Option<unsafe extern "C" fn(*mut c_void)>) -> i32;
    fn pthread_self() -> usize;
    fn pthread_setspecific(key: u32, value: *const c_void) -> i32;
    fn write(fd: i32, buf: *const c_void, n: usize) -> isize;
    #[link_name = "abort"]
    fn libc_abort() -> !;
}

const NO_KEY: u32 = u32::MAX;
static KEY: AtomicU32 = AtomicU32::new(NO_KEY);
static TAKEN: AtomicUsize = AtomicUsize::new(0);

#[inline(always)]
pub(crate) fn base() -> usize {
    0
}

/// # Safety
/// Call with the pool lock held (serializes the accounting against the limit).
pub(crate) unsafe fn grow(chunks: usize) -> Option<usize> {
    let bytes = chunks.checked_mul(CHUNK)?;
    let taken = TAKEN.load(Ordering::Relaxed);
    if taken.checked_add(bytes)? > LIMIT.load(Ordering::Relaxed) {
        return None;
    }
    debug_assert!(chunks % GROW_CHUNKS == 0);
    let old = core::arch::wasm32::memory_grow(0, chunks / GROW_CHUNKS);
    if old == usize::MAX {
        return None;
    }
    TAKEN.store(taken + bytes, Ordering::Relaxed);
    Some(old << 16)
}

/// An id of the calling thread, unique among live threads and never 0: the address of its
/// `struct pthread` (`pthread_self()`).
#[inline(always)]
pub(crate) fn thread_id() -> usize {
    // SAFETY: pthread_self has no preconditions.
    unsafe { pthread_self() }
}

unsafe extern "C" fn on_exit(_value: *mut c_void) {
    // The key's value is only a marker: wasi-libc mallocs a new thread's stack and key slots
    // without clearing them, so a slot may hold garbage; the heap is found by thread id instead.
    crate::heap::thread_exit();
}

/// Arranges for `crate::heap::thread_exit` to run when the calling thread exits.
///
/// # Safety
/// Call with the pool lock held (key creation is not otherwise synchronized).
pub(crate) unsafe fn on_thread_exit() {
    let mut k = KEY.load(Ordering::Relaxed);
    if k == NO_KEY {
        let mut nk = 0u32;
        // SAFETY: plain libc call with a valid out pointer.
        if unsafe { pthread_key_create(&mut nk, Some(on_exit)) } != 0 {
            super::fatal("pthread_key_create failed");
        }
        KEY.store(nk, Ordering::Release);
        k = nk;
    }
    // SAFETY: valid key; a non-null value makes the destructor run.
    unsafe { pthread_setspecific(k, 1 as *const c_void) };
}

/// # Safety
/// `b` is a valid slice.
pub(crate) unsafe fn write_stderr(b: &[u8]) {
    // SAFETY: valid buffer of the given length.
    unsafe { write(2, b.as_ptr() as *const c_void, b.len()) };
}

/// # Safety
/// Ends the process.
pub(crate) unsafe fn abort() -> ! {
    // SAFETY: libc abort.
    unsafe { libc_abort() }
}
