//! wasm32-wasip1(-threads): memory from `memory.grow`, thread ids from `pthread_self`, a wasi-libc
//! pthread key whose destructor tells us a thread exited, stderr and abort from wasi-libc. Every
//! wasm32-wasip1-threads program links wasi-libc (Rust's std does too), so these symbols exist.
//!
//! Memory: `wasm32_memory.rs` (shared with wasm32-unknown-unknown); the free end of the initial
//! memory only with the `initial-memory` feature (below).

use core::ffi::c_void;

pub(crate) use super::wasm32_memory::{base, grow, refresh_view, MAX_CHUNKS};

/// The free end of the initial memory (`wasm32_memory::initial_free`) is wasi-libc's dlmalloc's
/// when that is linked too (a Rust program without spindle-alloc-c): used only with the
/// `initial-memory` feature, which spindle-alloc-c turns on (its malloc replaces dlmalloc).
#[cfg(feature = "initial-memory")]
pub(crate) use super::wasm32_memory::initial_free;

/// See above: without the `initial-memory` feature, nothing.
#[cfg(not(feature = "initial-memory"))]
pub(crate) fn initial_free() -> (usize, usize) {
    (0, 0)
}

/// With the `thread-local` feature (nightly `#[thread_local]`; the C archives are built with it),
/// the calling thread's heap pointer lives in a thread-local slot: `thread_map` reads it with one
/// load instead of a `pthread_self` call and a probe of its table on every malloc and free. Each
/// thread's TLS block is initialised from the module's TLS image before the thread starts
/// (`pthread_create` -> `__copy_tls` -> `__wasm_init_tls`, whose `memory.init` covers `.tbss`), so
/// a new thread reads null there even when its TLS block is reused memory, unlike its pthread key
/// slots. Like wasi-libc's own thread-locals (errno), the slot assumes the main thread or a thread
/// wasi-libc started: a host that called an export in a worker's instance before
/// `wasi_thread_start` would find `__tls_base` still 0 there.
#[cfg(feature = "thread-local")]
mod tls {
    use core::cell::Cell;

    #[thread_local]
    static HEAP: Cell<*mut ()> = Cell::new(core::ptr::null_mut());

    #[inline(always)]
    pub(crate) fn slot() -> *mut *mut () {
        HEAP.as_ptr()
    }
}

/// The same slot for a Rust program on stable Rust (the `std` feature): std's `thread_local!` with a
/// const initialiser and no destructor is that same TLS variable (a `global.get __tls_base` and a
/// load; no lazy initialisation, no registration), and allocates nothing.
#[cfg(all(feature = "std", not(feature = "thread-local")))]
mod tls {
    use core::cell::Cell;

    std::thread_local! {
        static HEAP: Cell<*mut ()> = const { Cell::new(core::ptr::null_mut()) };
    }

    #[inline(always)]
    pub(crate) fn slot() -> *mut *mut () {
        HEAP.with(Cell::as_ptr)
    }
}

/// The calling thread's heap slot (a thread-local pointer, null until set; never null itself).
#[cfg(any(feature = "thread-local", feature = "std"))]
#[inline(always)]
pub(crate) fn heap_slot() -> *mut *mut () {
    tls::slot()
}

extern "C" {
    fn pthread_key_create(key: *mut u32, dtor: Option<unsafe extern "C" fn(*mut c_void)>) -> i32;
    fn pthread_self() -> usize;
    fn pthread_setspecific(key: u32, value: *const c_void) -> i32;
    fn write(fd: i32, buf: *const c_void, n: usize) -> isize;
    #[link_name = "abort"]
    fn libc_abort() -> !;
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
    unsafe { pthread_self() }
}

/// Makes a pthread key with destructor `dtor`.
///
/// # Safety
/// Called once (by `super::make_exit_key`).
pub(crate) unsafe fn create_exit_key(dtor: unsafe extern "C" fn(*mut c_void)) -> usize {
    let mut k = 0u32;
    // SAFETY: plain libc call with a valid out pointer.
    if unsafe { pthread_key_create(&mut k, Some(dtor)) } != 0 {
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
    unsafe { pthread_setspecific(k as u32, 1 as *const c_void) };
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
