//! Linear memory, for both wasm32 platforms: the region is the whole memory (`base() == 0`;
//! 2^21 chunks of 2 KiB address 4 GiB), grown with `memory.grow`. Someone else may grow it too
//! (wasi-libc's sbrk, the program itself): `grow` returns what it got and the pool copes with gaps.
//!
//! Growth and other threads (V8): a thread's view of the memory's size is refreshed lazily after
//! ANOTHER thread grows it, and its bulk `memory.fill`/`memory.copy` past its stale view trap.
//! The thread that grows sees the new size at once; any thread refreshes its view with a
//! `memory.grow(0)` of its own (`refresh_view`, 250-640 ns, so the layers above call it only
//! when they are about to hand the thread memory above what it has seen).

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
