//! spindle-alloc: a thread-scalable memory allocator for wasm32 (wasi-threads) that also builds
//! natively. `no_std`, in the mimalloc/snmalloc family, adapted to wasm32's facts: memory comes in
//! 64 KiB pages from `memory.grow`, only grows, starts zeroed, and pointers are 32 bits.
//!
//! Layers, each depending only on those below it:
//! ```text
//!   lib.rs      public API: alloc/free/realloc/usable_size, GlobalAlloc, stats
//!   heap.rs     per-thread heaps: size-class slab lists, fast paths, thread exit/adoption
//!   span.rs     span records; slab block lists (local free list + lock-free thread_free list)
//!   pool.rs     global free spans (coalescing), region growth, metadata, heap registry (locked)
//!   chunk_map.rs  chunk -> span map (how free() finds a block's slab without a header)
//!   size_class.rs classes (<= 1/9 rounding waste above 128 B) and slab sizes
//!   thread_map.rs thread id -> heap
//!   platform/   memory.grow or mmap, thread id + thread-exit hook, abort
//! ```
//! Rust programs use [`SpindleAlloc`] as `#[global_allocator]`; C programs link the
//! `spindle-alloc-c` archive, which exports malloc & co. on top of the functions here.

#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

mod chunk_map;
mod heap;
mod lock;
mod platform;
mod pool;
mod size_class;
mod span;
mod thread_map;
#[cfg(any(test, feature = "validate"))]
mod validate;

#[cfg(test)]
extern crate std;

use core::alloc::{GlobalAlloc, Layout};
use core::ptr::null_mut;
use size_class::{class_of, MIN_ALIGN, SLAB_MAX};
use span::{LARGE, SLAB};

pub use platform::CHUNK;
#[cfg(any(test, feature = "validate"))]
pub use validate::{validate_heap, validate_pool};

/// Alignment of every block (`malloc`'s guarantee): 16 bytes.
pub const MIN_ALIGNMENT: usize = MIN_ALIGN;

/// Allocates `size` bytes aligned to `align` (a power of two). Null when out of memory or when
/// `align` is not a power of two. `size == 0` gives a minimal block.
///
/// # Safety
/// The result must be freed with [`free`] (or [`realloc`]) of this crate, once.
#[inline]
pub unsafe fn alloc(size: usize, align: usize) -> *mut u8 {
    if align <= MIN_ALIGN && size <= SLAB_MAX {
        // SAFETY: class_of(size) < NUM_CLASSES for size <= SLAB_MAX.
        unsafe { heap::alloc_class(class_of(size)) }
    } else {
        // SAFETY: forwarded.
        unsafe { alloc_other(size, align, false) }
    }
}

/// Like [`alloc`], with the bytes zeroed. Fresh memory from the platform is not cleared again.
///
/// # Safety
/// As [`alloc`].
#[inline]
pub unsafe fn alloc_zeroed(size: usize, align: usize) -> *mut u8 {
    if align <= MIN_ALIGN && size <= SLAB_MAX {
        // SAFETY: as in `alloc`; the block holds at least `size` bytes.
        unsafe {
            let p = heap::alloc_class(class_of(size));
            if !p.is_null() {
                core::ptr::write_bytes(p, 0, size);
            }
            p
        }
    } else {
        // SAFETY: forwarded.
        unsafe { alloc_other(size, align, true) }
    }
}

#[cold]
#[inline(never)]
unsafe fn alloc_other(size: usize, align: usize, zero: bool) -> *mut u8 {
    if !align.is_power_of_two() || size > isize::MAX as usize {
        return null_mut();
    }
    if align <= CHUNK {
        if let Some(c) = size_class::aligned_class(size, align) {
            // SAFETY: c < NUM_CLASSES; the block holds `size` bytes.
            unsafe {
                let p = heap::alloc_class(c);
                if zero && !p.is_null() {
                    core::ptr::write_bytes(p, 0, size);
                }
                return p;
            }
        }
    }
    // SAFETY: large path, any size/align.
    unsafe { heap::alloc_large(size, align, zero) }
}

/// Frees `p` (null is ignored). Aborts with a message on a pointer this allocator does not know
/// or, where cheap to see, a double free.
///
/// # Safety
/// `p` is null or came from this allocator and was not freed since.
#[inline]
pub unsafe fn free(p: *mut u8) {
    if p.is_null() {
        return;
    }
    let s = chunk_map::lookup(p as usize);
    if s.is_null() {
        heap::invalid_free(p);
    }
    // SAFETY: `s` is the span covering `p`.
    unsafe {
        match (*s).kind {
            SLAB => heap::free_block(s, p),
            LARGE => heap::free_large(s, p),
            _ => heap::invalid_free(p),
        }
    }
}

/// Usable size of the block at `p` (at least what was asked for); 0 for null.
///
/// # Safety
/// `p` is null or a live allocation of this allocator.
pub unsafe fn usable_size(p: *const u8) -> usize {
    if p.is_null() {
        return 0;
    }
    let s = chunk_map::lookup(p as usize);
    if s.is_null() {
        return 0;
    }
    // SAFETY: `s` covers `p`; size fields are fixed while it is in use.
    unsafe {
        match (*s).kind {
            SLAB => (*s).block_size as usize,
            LARGE => (*s).end() - p as usize,
            _ => 0,
        }
    }
}

/// Resizes the allocation at `p` to `new_size` bytes, keeping its contents and an alignment of
/// `align`. In place when the block already fits (within a factor of two), or for large spans when
/// the neighbouring chunks are free or the region can grow. Null when out of memory: then `p` is
/// untouched and still owned by the caller. `p == null` allocates.
///
/// # Safety
/// `p` is null or a live allocation of this allocator with alignment `align`.
pub unsafe fn realloc(p: *mut u8, new_size: usize, align: usize) -> *mut u8 {
    if p.is_null() {
        // SAFETY: forwarded.
        return unsafe { alloc(new_size, align) };
    }
    let s = chunk_map::lookup(p as usize);
    if s.is_null() {
        heap::invalid_free(p);
    }
    // SAFETY: `s` covers `p`.
    let old = unsafe {
        match (*s).kind {
            SLAB => {
                let bs = (*s).block_size as usize;
                if new_size <= bs && (new_size >= bs / 2 || bs <= 64) {
                    return p;
                }
                bs
            }
            LARGE => {
                if (*s).start != p as usize {
                    heap::invalid_free(p);
                }
                let have = (*s).bytes();
                if new_size > SLAB_MAX || align > CHUNK {
                    let need = core::cmp::max(1, new_size.div_ceil(CHUNK));
                    if need <= (*s).chunks as usize {
                        pool::POOL.lock().shrink(s, need);
                        return p;
                    }
                    if pool::POOL.lock().extend(s, need) {
                        return p;
                    }
                }
                have
            }
            _ => heap::invalid_free(p),
        }
    };
    // SAFETY: move: new allocation, copy, free the old one.
    unsafe {
        let q = alloc(new_size, align);
        if q.is_null() {
            return null_mut();
        }
        core::ptr::copy_nonoverlapping(p, q, core::cmp::min(old, new_size));
        free(p);
        q
    }
}

/// Allocator statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Stats {
    /// Bytes in blocks and large spans handed out and not freed (blocks freed by another thread
    /// count until their owner collects them).
    pub in_use: usize,
    /// Bytes taken from the platform (never returned on wasm).
    pub committed: usize,
    /// Highest `committed` so far.
    pub peak_committed: usize,
}

/// Current statistics (takes the global lock briefly).
pub fn stats() -> Stats {
    let pool = pool::POOL.lock();
    let mut in_use = pool.large_bytes;
    let mut h = pool.all_heaps;
    while !h.is_null() {
        // SAFETY: heaps live forever; the counters are atomics.
        unsafe {
            let a = (*h).allocated.read();
            let f = (*h).freed.read();
            in_use = in_use.wrapping_add(a.wrapping_sub(f));
            h = (*h).next_all;
        }
    }
    Stats { in_use, committed: pool.committed, peak_committed: pool.peak_committed }
}

/// Collects the calling thread's pending remote frees and returns its empty slabs to the shared
/// pool, where other threads and size classes can reuse them.
pub fn thread_flush() {
    let h = heap::current();
    if !h.is_null() {
        // SAFETY: the calling thread owns its heap.
        unsafe { heap::flush(h) };
    }
}

/// Caps the memory the allocator takes from the platform at `bytes` (tests of out-of-memory).
/// Memory already taken stays. Allocations beyond the cap return null.
pub fn set_memory_limit(bytes: usize) {
    platform::LIMIT.store(bytes, core::sync::atomic::Ordering::Relaxed);
}

/// The allocator as a Rust global allocator:
/// `#[global_allocator] static A: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;`
pub struct SpindleAlloc;

// SAFETY: the functions above meet GlobalAlloc's contract: blocks are at least `layout.size()`
// bytes, aligned to `layout.align()`, null on failure, and never overlap while live.
unsafe impl GlobalAlloc for SpindleAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded.
        unsafe { alloc(layout.size(), layout.align()) }
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded.
        unsafe { alloc_zeroed(layout.size(), layout.align()) }
    }
    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, _layout: Layout) {
        // SAFETY: forwarded.
        unsafe { free(p) }
    }
    #[inline]
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded.
        unsafe { realloc(p, new_size, layout.align()) }
    }
}

#[cfg(test)]
mod tests;
