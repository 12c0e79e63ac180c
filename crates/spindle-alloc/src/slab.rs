//! Finding and making slabs (mimalloc's `page.c`): when the fast path finds class `c` dry, walk
//! the heap's available slabs (collecting remote frees, carving never-used blocks), park the
//! exhausted ones in the full list, and make a new slab from a spare or from the pool. Also the
//! heap's spare slabs: up to `MAX_SPARES` empty slabs kept for reuse by any class of the same
//! slab length before they go back to the pool (all of them, when the pool would otherwise grow).
//!
//! Everything here runs on the thread that owns the heap.

use crate::heap::{self, Heap};
use crate::platform::CHUNK;
use crate::pool::{Pool, POOL};
use crate::size_class::CLASSES;
use crate::span::{self, Span, NOTIFY, SLAB};
use core::ptr::null_mut;
use core::sync::atomic::Ordering;

/// Most empty slabs a heap keeps for reuse (by any class of the same slab length) before giving
/// them back to the pool: spares spare the pool lock and the chunk-map writes when a class
/// oscillates between one and two slabs.
pub(crate) const MAX_SPARES: u32 = 8;

/// A heap's first `SHORT_SLABS` slabs of a class are the class's shortest slabs, the next ones
/// full length (`size_class`): a class a thread holds few blocks of costs it little.
/// (Measured with 4: the ring workload's slabs peaked 8% lower natively (268 vs 290 KiB) but the
/// same on wasm (512 KiB at T=1), and it took 25-30% more CPU time (more slab changes): 1.)
pub(crate) const SHORT_SLABS: u32 = 1;

/// A slab of class `c` with a free block, made the head of the available list. Null: out of memory.
///
/// # Safety
/// The caller owns `h`.
pub(crate) unsafe fn find(h: *mut Heap, c: usize) -> *mut Span {
    // SAFETY: caller owns `h`; slabs in its lists are ours.
    unsafe {
        let mut s = heap::avail_head(h, c);
        while !s.is_null() {
            if (*s).free.is_null() {
                let n = span::collect(&mut *s);
                (*h).freed.add(n as usize * (*s).block_size as usize);
            }
            if (*s).free.is_null() && (*s).bump < (*s).bump_end {
                span::carve(&mut *s);
            }
            if !(*s).free.is_null() {
                if (*h).fast[c] != s {
                    heap::avail_remove(h, c, s);
                    heap::avail_push_front(h, c, s);
                }
                return s;
            }
            // Exhausted: park it in the full list, unless a remote free just arrived.
            if (*s).thread_free.compare_exchange(0, NOTIFY, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                let next = (*s).next;
                heap::avail_remove(h, c, s);
                heap::full_push(h, c, s);
                s = next;
            }
        }
        make(h, c)
    }
}

/// A fresh slab of class `c` for `h` (a spare or a span from the pool), pushed at the front of the
/// available list with its first blocks carved. Null: out of memory.
#[cold]
#[inline(never)]
unsafe fn make(h: *mut Heap, c: usize) -> *mut Span {
    let info = CLASSES[c];
    // A heap's first slabs of a class are the shortest ones (`size_class`).
    // SAFETY: we own `h`.
    let mut chunks = if unsafe { (*h).slabs[c] } < SHORT_SLABS { info.first_chunks } else { info.chunks };
    // SAFETY: we own `h` and its spare slabs.
    let mut s = unsafe { take_spare(h, chunks) };
    if s.is_null() {
        // SAFETY: we own `h`.
        s = unsafe { pool_span(h, chunks, info.first_chunks, SLAB) };
        if s.is_null() {
            return null_mut();
        }
        // SAFETY: a fresh span we own.
        chunks = unsafe { (*s).chunks };
    }
    // SAFETY: `s` is ours (fresh from the pool or a spare) until published through the heap lists;
    // no block of it is out, so no other thread touches it.
    unsafe {
        (*s).class = c as u8;
        (*s).block_size = info.size;
        let capacity = chunks * CHUNK as u32 / info.size;
        (*s).capacity = capacity;
        (*s).used = 0;
        (*s).free = null_mut();
        (*s).bump = (*s).start;
        (*s).bump_end = (*s).start + capacity as usize * info.size as usize;
        (*s).thread_free.store(0, Ordering::Relaxed);
        heap::set_owner(s, h);
        (*h).slabs[c] += 1;
        (*s).in_full = false;
        (*s).zeroed = false;
        heap::avail_push_front(h, c, s);
        span::carve(&mut *s);
    }
    s
}

/// A span of `chunks` chunks (or `short` chunks, when only that fits a free span) from the pool for
/// heap `h`, claimed as `kind` (SLAB or ARENA): a free span if one is long enough, else (after
/// giving `h`'s spares back, which may coalesce into one) the region grows. Null: out of memory.
///
/// # Safety
/// The caller owns `h`.
#[cold]
#[inline(never)]
pub(crate) unsafe fn pool_span(h: *mut Heap, chunks: u32, short: u32, kind: u8) -> *mut Span {
    let mut pool = POOL.lock();
    // Whatever the pool hands out lies below its top, or in memory this thread grows itself.
    let top = pool.top();
    // SAFETY: we own `h`.
    unsafe { heap::ensure_seen(h, top) };
    let mut s = pool.take_free(chunks as usize);
    if s.is_null() {
        // Before the memory grows, our spares go back (of other lengths, they may coalesce
        // into what we need): this heap's spares never make the memory grow.
        // SAFETY: we own `h`'s spares.
        unsafe { give_spares(h, &mut pool) };
        s = pool.take_free(chunks as usize);
        if s.is_null() && chunks > short {
            // Rather than grow the memory, a shorter span where one fits.
            s = pool.take_free(short as usize);
        }
        if s.is_null() {
            s = pool.take(chunks as usize, 1);
        }
        if s.is_null() {
            return null_mut();
        }
    }
    // SAFETY: fresh record we own; if the pool grew, this thread did.
    unsafe {
        heap::saw_own_growth(h, pool.top());
        (*s).kind = kind;
    }
    pool.claim(s);
    s
}

/// Keeps empty slab `s` (in no list) as a spare, or releases it when there are enough.
///
/// # Safety
/// The caller owns `h` and `s`; no block of `s` is out and none is pending in `thread_free`.
pub(crate) unsafe fn park_spare(h: *mut Heap, s: *mut Span) {
    // SAFETY: caller's contract.
    unsafe {
        if (*h).spare_count >= MAX_SPARES {
            POOL.lock().give(s);
            return;
        }
        (*s).next = (*h).spares;
        (*s).prev = null_mut();
        (*h).spares = s;
        (*h).spare_count += 1;
        (*h).spare_bytes.add((*s).bytes());
    }
}

/// Gives all of `h`'s spare slabs back to the pool.
///
/// # Safety
/// The caller owns `h`.
pub(crate) unsafe fn give_spares(h: *mut Heap, pool: &mut Pool) {
    // SAFETY: we own `h` and its spares.
    unsafe {
        while !(*h).spares.is_null() {
            let s = (*h).spares;
            (*h).spares = (*s).next;
            (*h).spare_bytes.add((*s).bytes().wrapping_neg());
            pool.give(s);
        }
        (*h).spare_count = 0;
    }
}

/// Unlinks and returns a spare slab of `chunks` chunks, or null.
unsafe fn take_spare(h: *mut Heap, chunks: u32) -> *mut Span {
    // SAFETY: we own `h` and its spares.
    unsafe {
        let mut link: *mut *mut Span = &mut (*h).spares;
        while !(*link).is_null() {
            let s = *link;
            if (*s).chunks == chunks {
                *link = (*s).next;
                (*s).next = null_mut();
                (*h).spare_count -= 1;
                (*h).spare_bytes.add((*s).bytes().wrapping_neg());
                return s;
            }
            link = &mut (*s).next;
        }
        null_mut()
    }
}
