//! wasm32-unknown-unknown (wasm-bindgen; with `+atomics` for threads, e.g. wasm-bindgen-rayon):
//! no libc and no pthreads. Memory: `wasm32_memory.rs`. Threads are Web Workers that wasm-bindgen
//! starts on the shared memory, each with its own instance: its own stack pointer and its own
//! `__tls_base` (a mutable non-shared global, so reading it costs one `global.get`).
//!
//! - Thread identity: the thread's TLS block address (`__tls_base`), and the heap pointer lives in
//!   a `#[thread_local]` slot (`heap_slot`). Before a thread's TLS is set up, `__tls_base` is 0:
//!   wasm-bindgen's start function mallocs the thread's stack and then its TLS block BEFORE it
//!   initialises TLS, so those first allocations see `thread_id() == 0` and no slot, and are
//!   served without a heap (the layers above take whole spans from the pool for them).
//! - Thread exit: `__wbindgen_thread_destroy` frees the thread's TLS block (from the thread
//!   itself, or from a "leader" on its behalf). `thread_of_tls_block(p)` names the thread whose
//!   TLS block starts at `p`, so the free of that block retires the thread's heap.
//!   `on_thread_exit` has nothing to arrange here. A worker terminated without
//!   `__wbindgen_thread_destroy` keeps its heap (memory stays bounded by the peak thread count).
//! - Fatal errors: no stderr without imports, so `fatal` traps with `unreachable` (the message is
//!   lost; the trap names the allocator's function in the stack).
//!
//! Without `+atomics` the program has one thread: the identity is a constant, the slot a static.

pub(crate) use super::wasm32_memory::{base, grow, initial_free, refresh_view, MAX_CHUNKS};

#[cfg(target_feature = "atomics")]
mod tls {
    use core::cell::Cell;

    #[thread_local]
    static HEAP: Cell<*mut ()> = Cell::new(core::ptr::null_mut());

    extern "C" {
        #[link_name = "llvm.wasm.tls.base"]
        fn tls_base() -> *mut u8;
    }

    /// `__tls_base`: the calling thread's TLS block, 0 before wasm-bindgen initialised it.
    #[inline(always)]
    pub(crate) fn id() -> usize {
        // SAFETY: reads a global; no precondition.
        unsafe { tls_base() as usize }
    }

    #[inline(always)]
    pub(crate) fn slot() -> *mut *mut () {
        if id() == 0 {
            return core::ptr::null_mut();
        }
        HEAP.as_ptr()
    }
}

#[cfg(not(target_feature = "atomics"))]
mod tls {
    struct Slot(core::cell::UnsafeCell<*mut ()>);
    // SAFETY: without atomics the module runs on one thread.
    unsafe impl Sync for Slot {}
    static HEAP: Slot = Slot(core::cell::UnsafeCell::new(core::ptr::null_mut()));

    #[inline(always)]
    pub(crate) fn id() -> usize {
        1
    }

    #[inline(always)]
    pub(crate) fn slot() -> *mut *mut () {
        HEAP.0.get()
    }
}

/// The calling thread's id: its TLS block address (never 0 once TLS is set up; 0 before).
#[inline(always)]
pub(crate) fn thread_id() -> usize {
    tls::id()
}

/// The calling thread's heap slot (a thread-local pointer, null until set), or null while the
/// thread's TLS is not set up yet.
#[inline(always)]
pub(crate) fn heap_slot() -> *mut *mut () {
    tls::slot()
}

/// The thread whose TLS block starts at `p` (its id), or 0: here a thread's id is its TLS block.
#[inline]
pub(crate) fn thread_of_tls_block(p: usize) -> usize {
    if cfg!(target_feature = "atomics") {
        p
    } else {
        0
    }
}

/// Nothing to arrange: a thread's exit is seen when its TLS block is freed.
///
/// # Safety
/// None; `unsafe` for the same signature as the other platforms.
pub(crate) unsafe fn create_exit_key(_dtor: unsafe extern "C" fn(*mut core::ffi::c_void)) -> usize {
    0
}

/// # Safety
/// None.
pub(crate) unsafe fn set_exit_marker(_k: usize) {}

/// # Safety
/// None: there is no stderr; the bytes are dropped.
pub(crate) unsafe fn write_stderr(_b: &[u8]) {}

/// # Safety
/// Ends the thread with a trap.
pub(crate) unsafe fn abort() -> ! {
    core::arch::wasm32::unreachable()
}
