//! Linear memory, for both wasm32 platforms: the region is the whole memory (`base() == 0`;
//! 2^21 chunks of 2 KiB address 4 GiB), grown with `memory.grow`. Someone else may grow it too
//! (wasi-libc's sbrk, the program itself): `grow` returns what it got and the pool copes with gaps.
//!
//! Growth and other threads (V8): a thread's view of the memory's size is refreshed lazily after
//! ANOTHER thread grows it, and its bulk `memory.fill`/`memory.copy` past its stale view trap.
//! The thread that grows sees the new size at once; any thread refreshes its view with a
//! `memory.grow(0)` of its own (`refresh_view`, 250-640 ns, so the layers above call it only
//! when they are about to hand the thread memory above what it has seen).
//!
//! The module's initial memory ends with free space: from `__heap_base` (after the data and the
//! main thread's stack) to `__heap_end` (the initial size; both defined by wasm-ld 16 and later).
//! wasi-libc's dlmalloc starts its heap there; `initial_free` hands it to the pool once, so a small
//! program grows the memory no earlier than it would with dlmalloc. Nothing else may use it: on
//! wasm32-wasip1 that holds when spindle-alloc is the program's malloc (`wasm32_wasi.rs`); Rust's
//! own dlmalloc (wasm32-unknown-unknown), wasi-libc's sbrk and wasm-bindgen's thread transform
//! (one page of its own) take memory above `__heap_end`.

use super::{CHUNK, CHUNK_SHIFT, GROW_CHUNKS, LIMIT};
use core::sync::atomic::{AtomicUsize, Ordering};

pub(crate) const MAX_CHUNKS: usize = 1 << (32 - CHUNK_SHIFT);

static TAKEN: AtomicUsize = AtomicUsize::new(0);
/// How many times `refresh_view` ran (statistics: the cost of the growth guard).
pub(crate) static REFRESHES: AtomicUsize = AtomicUsize::new(0);

#[inline(always)]
pub(crate) fn base() -> usize {
    0
}

extern "C" {
    static __heap_base: u8;
    static __heap_end: u8;
}

/// The free end of the initial memory, `[start, end)` in whole chunks (empty when less than a
/// chunk is free). Zero-filled: no data segment reaches it and nothing else writes it.
/// (Unused on wasm32-wasip1 without the `initial-memory` feature: see `wasm32_wasi.rs`.)
#[cfg_attr(all(not(target_os = "unknown"), not(feature = "initial-memory")), allow(dead_code))]
pub(crate) fn initial_free() -> (usize, usize) {
    // SAFETY: only the symbols' addresses are taken, never their contents (safe since Rust 1.82;
    // the crate builds with 1.80).
    #[allow(unused_unsafe)]
    let (base, end) =
        unsafe { (core::ptr::addr_of!(__heap_base) as usize, core::ptr::addr_of!(__heap_end) as usize) };
    let start = (base + CHUNK - 1) & !(CHUNK - 1);
    let end = end & !(CHUNK - 1);
    if end > start {
        (start, end)
    } else {
        (0, 0)
    }
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

/// Makes the calling thread's view of the memory size current (`memory.grow(0)`) and returns
/// that size in bytes (saturated at `usize::MAX` for a full 4 GiB memory).
#[cold]
#[inline(never)]
pub(crate) fn refresh_view() -> usize {
    REFRESHES.fetch_add(1, Ordering::Relaxed);
    let pages = core::arch::wasm32::memory_grow(0, 0);
    pages.saturating_mul(65536)
}
