//! Allocation of slab blocks (mimalloc's `alloc.c`): the fast path pops the first free block of
//! the calling thread's current slab for the class; everything else (no heap yet, the slab ran
//! dry) is one never-inlined slow path that processes delayed frees and finds or makes a slab.

use crate::arena;
use crate::free;
use crate::heap::Heap;
use crate::large;
use crate::lifecycle;
use crate::size_class::{class_of, CLASSES, MIN_ALIGN};
use crate::slab;
use crate::thread_map;
use core::ptr::null_mut;

/// Allocates a block of class `c` for the calling thread. Null when out of memory.
///
/// # Safety
/// `c < NUM_CLASSES`.
#[inline(always)]
pub(crate) unsafe fn alloc_class(c: usize) -> *mut u8 {
    // SAFETY: forwarded; `current()` is this thread's heap or null.
    unsafe { alloc_class_in(thread_map::current(), c) }
}

/// `alloc_class` for a caller that already looked up the thread's heap `h` (null: none yet).
///
/// # Safety
/// `c < NUM_CLASSES`; `h` is the calling thread's heap or null.
#[inline(always)]
unsafe fn alloc_class_in(h: *mut Heap, c: usize) -> *mut u8 {
    if !h.is_null() {
        // SAFETY: `h` is this thread's heap; `fast[c]` is EMPTY or a slab we own.
        unsafe {
            let s = *(*h).fast.get_unchecked(c);
            let b = (*s).free;
            if !b.is_null() {
                (*s).free = (*b).next;
                (*s).used += 1;
                (*h).allocated.add((*s).block_size as usize);
                return b as *mut u8;
            }
        }
    }
    // SAFETY: forwarded contract.
    unsafe { alloc_slow(h, c) }
}

/// Allocates `size <= arena::MAX` bytes for the calling thread: from its arena while the heap is
/// small (`arena.rs`), else from the slab of the size class. Null when out of memory.
#[inline(always)]
pub(crate) unsafe fn alloc_small(size: usize) -> *mut u8 {
    let h = thread_map::current();
    if !h.is_null() {
        let c = arena::bin_of(size);
        // SAFETY: `h` is this thread's heap; `c` is a bin.
        unsafe {
            let p = arena::pop(h, c);
            if !p.is_null() {
                return p;
            }
            if !(*h).arena.closed {
                let p = arena::pop_larger(h, c);
                if !p.is_null() {
                    return p;
                }
                let p = arena::alloc_slow(h, c);
                if !p.is_null() {
                    return p;
                }
            }
        }
    }
    // SAFETY: class_of(size) < NUM_CLASSES; `h` is this thread's heap or null.
    unsafe { alloc_class_in(h, class_of(size)) }
}

#[inline(never)]
unsafe fn alloc_slow(mut h: *mut Heap, c: usize) -> *mut u8 {
    if h.is_null() {
        h = lifecycle::start_thread();
        if h.is_null() {
            // Out of memory, or (wasm32-unknown-unknown) the thread's TLS is not set up yet: a
            // span of its own, from the pool (see `platform`).
            // SAFETY: any size and alignment go to the large path.
            return unsafe { large::alloc(CLASSES[c].size as usize, MIN_ALIGN, false) };
        }
    }
    // SAFETY: `h` is this thread's heap.
    unsafe {
        free::process_delayed(h);
        let s = slab::find(h, c);
        if s.is_null() {
            return null_mut();
        }
        let b = (*s).free;
        (*s).free = (*b).next;
        (*s).used += 1;
        (*h).allocated.add((*s).block_size as usize);
        b as *mut u8
    }
}
