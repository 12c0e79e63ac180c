//! spindle-alloc: a thread-scalable memory allocator for WebAssembly threads that also builds
//! natively. `no_std`, in the mimalloc/snmalloc family (per-thread heaps, size-class slabs with a
//! lock-free list for frees from other threads), adapted to wasm32's facts: memory comes in 64 KiB
//! pages from `memory.grow`, only grows, starts zeroed, and pointers are 32 bits.
//!
//! # Use it
//!
//! One line makes it a Rust program's allocator, on every target:
//!
//! **Native** (Linux and other unix; for tests and comparisons):
//! ```rust
//! #[global_allocator]
//! static A: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;
//!
//! fn main() {
//!     let v: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
//!     assert_eq!(v[999], "999");
//!     let s = spindle_alloc::stats();
//!     assert!(s.committed >= s.in_use);
//! }
//! ```
//!
//! **wasm32-wasip1-threads** (Rust std threads on WASI): the same line, plus the C face so that
//! wasi-libc's own allocations (thread stacks, stdio) use spindle-alloc too and wasi-libc's
//! dlmalloc is not linked (two allocators cannot share one linear memory safely):
//! ```rust,ignore
//! // Cargo.toml: spindle-alloc = "0.1"
//! //             spindle-alloc-c = { version = "0.1", features = ["rust-program"] }
//! use spindle_alloc_c as _;
//!
//! #[global_allocator]
//! static A: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;
//!
//! fn main() {
//!     let hs: Vec<_> = (0..4).map(|t| std::thread::spawn(move || vec![t; 1000].len())).collect();
//!     assert_eq!(hs.into_iter().map(|h| h.join().unwrap()).sum::<usize>(), 4000);
//! }
//! ```
//!
//! **wasm32-unknown-unknown with atomics** (wasm-bindgen + wasm-bindgen-rayon in browsers):
//! ```rust,ignore
//! use rayon::prelude::*;
//! use wasm_bindgen::prelude::*;
//! pub use wasm_bindgen_rayon::init_thread_pool;
//!
//! #[global_allocator]
//! static A: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;
//!
//! #[wasm_bindgen]
//! pub fn words(n: u32) -> usize {
//!     (0..n).into_par_iter().map(|i| format!("item {i}").len()).sum()
//! }
//! ```
//! built with nightly and `-Z build-std=panic_abort,std`, `RUSTFLAGS="-C
//! target-feature=+atomics,+bulk-memory,+mutable-globals"` and the link arguments wasm-bindgen's
//! thread support needs (`--shared-memory --import-memory --max-memory=N
//! --export=__wasm_init_tls --export=__tls_size --export=__tls_align --export=__tls_base`); a
//! complete example with its page is `examples/alloc-rayon-web` in the repository. A thread's heap
//! is handed to the next thread when wasm-bindgen destroys the thread
//! (`__wbindgen_thread_destroy`). Without `+atomics` (one thread) it works on stable Rust.
//!
//! **C and C++** (wasm32-wasip1-threads): the `spindle-alloc-c` crate builds a static archive
//! that replaces wasi-libc's malloc family at link time, installed as a prefix:
//! ```sh
//! tools/build-c-libs.sh /opt/spindle      # lib/libspindle-alloc.a, include/spindle.h
//! clang --target=wasm32-wasip1-threads -pthread prog.c -L/opt/spindle/lib -lspindle-alloc -o prog.wasm
//! ```
//!
//! # Memory growth and other threads
//!
//! On V8 (Chromium, Node) a thread's view of a shared memory's size is refreshed lazily after
//! another thread grows it, and its bulk `memory.fill`/`memory.copy` past that view trap. The
//! allocator never hands a thread memory above the highest address that thread has seen: it
//! refreshes the view first (`memory.grow(0)`, counted in [`Stats::view_refreshes`]). Memory a
//! program passes between threads itself is the program's (or its runtime's) concern.
//!
//! # Where the memory goes
//!
//! [`stats`] splits what the allocator took from the platform into metadata, slabs (of which spare
//! slabs), large spans and free memory in the shared pool; `in_use` is what the program holds.
//!
//! Layers, top to bottom; each module depends only on those below it (`tests/layering.rs` checks
//! every `crate::` path against this list):
//! ```text
//!   lib.rs        public API: alloc/free/realloc/usable_size, GlobalAlloc, stats
//!   alloc.rs      block allocation: the inlined fast path, one slow path
//!   large.rs      large spans: alloc, free, resize in place
//!   lifecycle.rs  a heap's life with its thread: claim at first use, flush, abandon at exit
//!   arena.rs      the small-heap arena: requests <= 1 KiB share best-fit, coalesced spans while a heap is small
//!   free.rs       free paths: local, cross-thread (lock-free), delayed (full slabs coming back)
//!   slab.rs       finding and making slabs for a class; spare slabs
//!   thread_map.rs thread id -> heap
//!   registry.rs   every heap, abandoned heaps, lookup by owner (its own lock)
//!   heap.rs       the heap record: per-class slab lists, statistics counters
//!   pool.rs       global free spans (coalescing), region growth, metadata (the pool lock)
//!   chunk_map.rs  chunk -> span map (how free() finds a block's slab without a header)
//!   span.rs       span records; slab block lists (local free list + lock-free thread_free list)
//!   size_class.rs classes (<= 1/9 rounding waste above 128 B) and slab sizes
//!   lock.rs       the spin lock of the global slow paths
//!   platform/     memory.grow or mmap, thread id + thread-exit hook, abort
//! ```
//! `validate.rs` (the consistency checker) and `tests.rs` are test-only and may read everything.
//! Rust programs use [`SpindleAlloc`] as `#[global_allocator]`; C programs link the
//! `spindle-alloc-c` archive, which exports malloc & co. on top of the functions here.

#![no_std]
#![cfg_attr(
    all(target_arch = "wasm32", target_os = "unknown", target_feature = "atomics"),
    feature(thread_local, link_llvm_intrinsics),
    allow(internal_features)
)]
#![cfg_attr(all(target_arch = "wasm32", target_os = "wasi", feature = "thread-local"), feature(thread_local))]
#![deny(unsafe_op_in_unsafe_fn)]

mod alloc;
mod arena;
mod chunk_map;
mod free;
mod heap;
mod large;
mod lifecycle;
mod lock;
mod platform;
mod pool;
mod registry;
mod size_class;
mod slab;
mod span;
mod thread_map;
#[cfg(any(test, feature = "validate"))]
mod validate;

#[cfg(any(test, all(target_arch = "wasm32", target_os = "wasi", feature = "std")))]
extern crate std;

use core::alloc::{GlobalAlloc, Layout};
use core::ptr::null_mut;
use size_class::{class_of, MIN_ALIGN};
use span::{ARENA, LARGE, SLAB};

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
    // SAFETY: forwarded.
    unsafe { alloc_inline(size, align) }
}

/// [`alloc`], always inlined into its caller: for a function that is only this call (the C
/// face's `malloc`), which then reaches the fast path with no second call.
///
/// # Safety
/// As [`alloc`].
#[inline(always)]
pub unsafe fn alloc_inline(size: usize, align: usize) -> *mut u8 {
    if align <= MIN_ALIGN && size <= arena::MAX {
        // SAFETY: a small request.
        unsafe { alloc::alloc_small(size) }
    } else if align <= MIN_ALIGN && size <= large::SMALL_HEAP_MIN {
        // SAFETY: class_of(size) < NUM_CLASSES for size <= SLAB_MAX.
        unsafe { alloc::alloc_class(class_of(size)) }
    } else {
        // SAFETY: forwarded (larger requests: a slab or a span of their own, `large::serves`).
        unsafe { alloc_other(size, align, false) }
    }
}

/// Like [`alloc`], with the bytes zeroed. Fresh memory from the platform is not cleared again.
///
/// # Safety
/// As [`alloc`].
#[inline]
pub unsafe fn alloc_zeroed(size: usize, align: usize) -> *mut u8 {
    if align <= MIN_ALIGN && size <= large::SMALL_HEAP_MIN {
        // SAFETY: as in `alloc`; the block holds at least `size` bytes.
        unsafe {
            let p = if size <= arena::MAX {
                alloc::alloc_small(size)
            } else {
                alloc::alloc_class(class_of(size))
            };
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
    if align <= CHUNK && !large::serves(size, align) {
        if let Some(c) = size_class::aligned_class(size, align) {
            // SAFETY: c < NUM_CLASSES; the block holds `size` bytes.
            unsafe {
                let p = alloc::alloc_class(c);
                if zero && !p.is_null() {
                    core::ptr::write_bytes(p, 0, size);
                }
                return p;
            }
        }
    }
    // SAFETY: large path, any size/align.
    unsafe { large::alloc(size, align, zero) }
}

/// Frees `p` (null is ignored). Aborts with a message on a pointer this allocator does not know
/// or, where cheap to see, a double free.
///
/// # Safety
/// `p` is null or came from this allocator and was not freed since.
#[inline]
pub unsafe fn free(p: *mut u8) {
    // SAFETY: forwarded.
    unsafe { free_inline(p) }
}

/// [`free`], always inlined into its caller (the C face's `free`: see [`alloc_inline`]).
///
/// # Safety
/// As [`free`].
#[inline(always)]
pub unsafe fn free_inline(p: *mut u8) {
    if p.is_null() {
        return;
    }
    let s = chunk_map::lookup(p as usize);
    if s.is_null() {
        free::invalid_free(p);
    }
    // SAFETY: `s` is the span covering `p`.
    unsafe {
        match (*s).kind {
            SLAB => free::free_block(s, p),
            ARENA => arena::free(s, p),
            LARGE => large::free(s, p),
            _ => free::invalid_free(p),
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
            ARENA => arena::payload_block_size(p as usize).saturating_sub(arena::HDR),
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
        free::invalid_free(p);
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
            ARENA => {
                let bs = arena::payload_block_size(p as usize).saturating_sub(arena::HDR);
                if new_size <= bs && (new_size >= bs / 2 || bs <= 64) && align <= MIN_ALIGN {
                    return p;
                }
                bs
            }
            LARGE => {
                if large::resize_in_place(s, p, new_size, align) {
                    return p;
                }
                (*s).bytes()
            }
            _ => free::invalid_free(p),
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

/// Allocator statistics: how much memory the allocator took and where it went.
///
/// `committed == metadata + slabs + large + free`: every byte taken from the platform is in one of
/// those four. Inside `slabs`, `in_use - large` bytes are blocks handed out (counted at their size
/// class), `spare_slabs` are empty slabs that heaps keep for reuse, and the rest are free blocks
/// of partly used slabs (the per-thread, per-class fragmentation). `free` is memory back in the
/// shared pool, reusable by any thread and size.
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
    /// Bytes of metadata: span records, heap records, chunk-map leaves.
    pub metadata: usize,
    /// Bytes of slabs and small-heap arena spans owned by heaps (including `spare_slabs`).
    pub slabs: usize,
    /// Bytes of empty slabs heaps keep for reuse.
    pub spare_slabs: usize,
    /// Bytes of large spans handed out.
    pub large: usize,
    /// Bytes of free spans in the shared pool.
    pub free: usize,
    /// Heap records: the most threads that held a heap at once (a heap outlives its thread and is
    /// adopted by the next one).
    pub heaps: usize,
    /// How many times a thread refreshed its view of the memory size before being handed memory
    /// another thread grew (`memory.grow(0)` on wasm; always 0 natively).
    pub view_refreshes: usize,
}

/// Current statistics (takes the registry's and the pool's locks briefly, one after the other).
pub fn stats() -> Stats {
    let heaps = registry::totals();
    let pool = pool::POOL.lock();
    Stats {
        in_use: heaps.blocks.wrapping_add(pool.large_bytes),
        committed: pool.committed,
        peak_committed: pool.peak_committed,
        metadata: pool.meta_bytes,
        slabs: pool.slab_bytes,
        spare_slabs: heaps.spares,
        large: pool.large_bytes,
        free: pool.free_bytes,
        heaps: heaps.heaps,
        view_refreshes: platform::REFRESHES.load(core::sync::atomic::Ordering::Relaxed),
    }
}

/// Collects the calling thread's pending remote frees and returns its empty slabs to the shared
/// pool, where other threads and size classes can reuse them.
pub fn thread_flush() {
    let h = lifecycle::current();
    if !h.is_null() {
        // SAFETY: the calling thread owns its heap.
        unsafe { lifecycle::flush(h) };
    }
}

/// Caps the memory the allocator takes from the platform at `bytes` (tests of out-of-memory).
/// Memory already taken stays. Allocations beyond the cap return null.
pub fn set_memory_limit(bytes: usize) {
    platform::LIMIT.store(bytes, core::sync::atomic::Ordering::Relaxed);
}

/// Sets how many bytes of small-heap arena spans one thread's heap may take (default 384 KiB)
/// before its requests of up to 1 KiB go to size-class slabs; 0 sends every request to slabs.
/// Applies to arena spans taken from now on (tests of the slab paths, tuning).
pub fn set_arena_limit(bytes: usize) {
    arena::set_limit(bytes);
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
