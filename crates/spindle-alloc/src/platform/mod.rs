//! The platform layer: every call to the outside world (growing memory, thread-local heap pointer,
//! thread-exit notification, fatal errors) lives here, one file per platform. Nothing above this
//! module names `memory.grow`, mmap or pthreads.
//!
//! Platforms: `native.rs` (Linux & co., for tests), `wasm32_wasi.rs` (wasm32-wasip1(-threads):
//! wasi-libc, pthreads), `wasm32_unknown.rs` (wasm32-unknown-unknown: wasm-bindgen, no libc);
//! the two wasm ones share `wasm32_memory.rs`.
//!
//! Contract of every platform:
//! - memory is one region that only grows: `grow(n)` returns `n` fresh, zero-filled, chunk-aligned
//!   chunks, or `None` (limit reached). It is only called with the span pool's lock held. Memory is
//!   never returned. `initial_free()` names free, zero-filled, chunk-aligned memory the program
//!   started with (`[start, end)`, empty when none), which the pool takes once before it first
//!   grows. Chunk indexes are offsets from `base()` in chunks, `< MAX_CHUNKS`.
//! - `thread_id()` identifies the calling thread among live threads (non-zero); after
//!   `on_thread_exit(hook)`, `hook` runs when the thread exits (a pthread key destructor on both
//!   platforms: wasi-libc runs key destructors at thread exit, as glibc does). The platform calls
//!   nothing above it but that hook, which it is handed.
//!   Per-thread heap pointers are NOT kept in pthread key slots: wasi-libc takes a new thread's
//!   stack and key slots from malloc without zeroing them, so a fresh thread may see garbage there.
//!   A thread's TLS block is another matter (initialised from the module's TLS image): on
//!   wasm32-unknown-unknown, and on wasm32-wasip1 with the `thread-local` feature (nightly),
//!   `heap_slot()` is a `#[thread_local]` slot (see wasm32_unknown.rs for its thread ids, which are
//!   0 while a thread's TLS is not set up, and for thread exit).
//! - `refresh_view()` makes the calling thread's view of the memory size current and returns it
//!   (V8 refreshes it lazily after another thread grew the memory: see `wasm32_memory.rs`);
//!   natively it returns `usize::MAX`.

use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

#[cfg(target_arch = "wasm32")]
mod wasm32_memory;
#[cfg(target_arch = "wasm32")]
pub(crate) use wasm32_memory::REFRESHES;

#[cfg(all(target_arch = "wasm32", not(target_os = "unknown")))]
mod wasm32_wasi;
#[cfg(all(target_arch = "wasm32", not(target_os = "unknown")))]
pub(crate) use wasm32_wasi::*;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod wasm32_unknown;
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub(crate) use wasm32_unknown::*;

#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use native::*;

/// log2 of the chunk size.
pub(crate) const CHUNK_SHIFT: u32 = 11;
/// The chunk: 2 KiB, the allocator's unit of memory. Slabs and large spans are whole chunks and
/// start on chunk boundaries. Small: a thread using a size class holds at least one slab of it, so
/// the chunk bounds the memory an idle class costs (with 64 KiB chunks a program with 32 busy small
/// classes took 2 MiB per thread where dlmalloc took 300 KiB; with 8 KiB, 256 KiB).
pub const CHUNK: usize = 1 << CHUNK_SHIFT;
/// The platform grows memory in wasm pages (64 KiB): `grow` takes multiples of this many chunks.
pub(crate) const GROW_CHUNKS: usize = 65536 / CHUNK;

/// Soft limit, in bytes, on the memory the allocator takes from the platform (for tests of the
/// out-of-memory path). `usize::MAX`: no limit but the platform's own.
pub(crate) static LIMIT: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(usize::MAX);

/// The thread-exit hook (a `fn()`, as a pointer; null until `on_thread_exit` first runs).
static EXIT_HOOK: AtomicPtr<()> = AtomicPtr::new(core::ptr::null_mut());
/// The pthread key whose destructor runs the hook: `NO_KEY`, `CREATING` while one thread makes
/// it, then the key.
static EXIT_KEY: AtomicUsize = AtomicUsize::new(NO_KEY);
const NO_KEY: usize = usize::MAX;
const CREATING: usize = usize::MAX - 1;

/// Arranges for `hook` to run when the calling thread exits (every caller passes the same hook).
/// Safe to call from any thread at any time: the key is made once, by the first caller.
pub(crate) fn on_thread_exit(hook: fn()) {
    EXIT_HOOK.store(hook as *mut (), Ordering::Release);
    let mut k = EXIT_KEY.load(Ordering::Acquire);
    if k >= CREATING {
        k = make_exit_key();
    }
    // SAFETY: `k` is a valid key; a non-null value makes its destructor run at thread exit.
    unsafe { set_exit_marker(k) };
}

#[cold]
fn make_exit_key() -> usize {
    if EXIT_KEY.compare_exchange(NO_KEY, CREATING, Ordering::Acquire, Ordering::Acquire).is_ok() {
        // SAFETY: only this thread gets here (it won the CAS); `run_exit_hook` matches the
        // destructor signature.
        let k = unsafe { create_exit_key(run_exit_hook) };
        EXIT_KEY.store(k, Ordering::Release);
        return k;
    }
    loop {
        let k = EXIT_KEY.load(Ordering::Acquire);
        if k < CREATING {
            return k;
        }
        core::hint::spin_loop();
    }
}

/// The key destructor. The key's value is only a marker: wasi-libc mallocs a new thread's stack
/// and key slots without clearing them, so a slot may hold garbage; the hook finds the heap by
/// thread id instead.
unsafe extern "C" fn run_exit_hook(_value: *mut core::ffi::c_void) {
    let h = EXIT_HOOK.load(Ordering::Acquire);
    if !h.is_null() {
        // SAFETY: EXIT_HOOK only ever holds a `fn()` stored by `on_thread_exit`.
        let f: fn() = unsafe { core::mem::transmute::<*mut (), fn()>(h) };
        f();
    }
}

/// Writes `msg` to stderr and aborts. For broken invariants and invalid frees only.
#[cold]
#[inline(never)]
pub(crate) fn fatal(msg: &str) -> ! {
    fatal_at(msg, None)
}

/// Like `fatal`, naming the address involved (`msg (0x...)`), without any formatting machinery.
#[cold]
#[inline(never)]
pub(crate) fn fatal_at(msg: &str, addr: Option<usize>) -> ! {
    let prefix = b"spindle-alloc: ";
    let mut hex = [0u8; 2 + 2 * core::mem::size_of::<usize>() + 3];
    let mut n = 0;
    if let Some(a) = addr {
        hex[..4].copy_from_slice(b" (0x");
        n = 4;
        for i in (0..2 * core::mem::size_of::<usize>()).rev() {
            hex[n] = b"0123456789abcdef"[(a >> (4 * i)) & 15];
            n += 1;
        }
        hex[n] = b')';
        n += 1;
    }
    // SAFETY: writing valid byte slices to fd 2; abort never returns.
    unsafe {
        write_stderr(prefix);
        write_stderr(msg.as_bytes());
        write_stderr(&hex[..n]);
        write_stderr(b"\n");
        abort()
    }
}
