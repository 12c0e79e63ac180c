//! Large allocations: requests above `SLAB_MAX` or aligned beyond a chunk get a span of whole
//! chunks of their own, straight from the pool (owned by no heap, freed by any thread through the
//! pool), and grow or shrink in place when the pool allows. So do requests above `SMALL_HEAP_MIN`
//! (64 KiB) while the calling thread's heap is small (`arena::small`): a span wastes less than a
//! chunk where a size class rounds up by as much as 1/9 (a thread's stack, 66,176 bytes on
//! wasi-libc, is a 72 KiB slab block but a 66 KiB span); a large heap keeps the slabs' speed for
//! them. (From 16 KiB on, tried: the Rust ring benchmark on wasm ran 10% slower at T=1, with one
//! of its allocations between 16 and 64 KiB moved; the cause was not found.)

use crate::arena;
use crate::free::invalid_free;
use crate::heap::{self, Heap};
use crate::lifecycle;
use crate::platform;
use crate::platform::CHUNK;
use crate::pool::{Pool, POOL};
use crate::size_class::SLAB_MAX;
use crate::slab;
use crate::span::{Span, LARGE};
use core::ptr::null_mut;

/// Requests above this many bytes get a span of their own while the heap is small (see above).
pub(crate) const SMALL_HEAP_MIN: usize = 64 << 10;

/// Whether a request of `size` bytes at `align` gets a span of its own (`alloc`) rather than a
/// slab block, for the calling thread.
#[inline]
pub(crate) fn serves(size: usize, align: usize) -> bool {
    size > SLAB_MAX || align > CHUNK || (size > SMALL_HEAP_MIN && arena::small(lifecycle::current()))
}

/// Allocates `size` bytes as a span of whole chunks aligned to `align` (a power of two).
#[cold]
#[inline(never)]
pub(crate) unsafe fn alloc(size: usize, align: usize, zero: bool) -> *mut u8 {
    let chunks = match size.checked_add(CHUNK - 1) {
        Some(n) => core::cmp::max(1, n / CHUNK),
        None => return null_mut(),
    };
    let align_chunks = core::cmp::max(1, align / CHUNK);
    // Looked up before taking the lock: the lookup may take the registry's (thread map overflow).
    let h = lifecycle::current();
    let (p, zeroed) = {
        let mut pool = POOL.lock();
        let top = pool.top();
        // SAFETY: `h` is null or the calling thread's heap.
        unsafe { see_pool(h, &pool) };
        let mut s = pool.take(chunks, align_chunks);
        if s.is_null() {
            // Out of memory: give our spare slabs back (they may coalesce) and try once more.
            if !h.is_null() {
                // SAFETY: the calling thread owns its heap.
                unsafe { slab::give_spares(h, &mut pool) };
                s = pool.take(chunks, align_chunks);
            }
            if s.is_null() {
                return null_mut();
            }
        }
        // SAFETY: fresh record we own; if the pool grew past `top`, this thread did.
        let zeroed = unsafe {
            if !h.is_null() && pool.top() > top {
                heap::saw_own_growth(h, pool.top());
            }
            (*s).kind = LARGE;
            (*s).heapless = h.is_null();
            let z = (*s).zeroed;
            (*s).zeroed = false;
            z
        };
        pool.claim(s);
        pool.large_bytes += chunks * CHUNK;
        // SAFETY: as above.
        (unsafe { (*s).start }, zeroed)
    };
    if zero && !zeroed {
        // SAFETY: the span is ours and at least `size` bytes long.
        unsafe { core::ptr::write_bytes(p as *mut u8, 0, size) };
    }
    p as *mut u8
}

/// Frees large span `s` whose start is `p`.
///
/// # Safety
/// `s` is the span `p` lies in.
#[cold]
#[inline(never)]
pub(crate) unsafe fn free(s: *mut Span, p: *mut u8) {
    let mut pool = POOL.lock();
    // SAFETY: lock held; records are valid.
    let heapless = unsafe {
        if (*s).kind != LARGE || (*s).start != p as usize {
            drop(pool);
            invalid_free(p);
        }
        pool.large_bytes -= (*s).bytes();
        (*s).heapless
    };
    pool.give(s);
    drop(pool);
    if heapless {
        // Perhaps a thread's TLS block (wasm32-unknown-unknown): its heap goes with it.
        lifecycle::tls_block_freed(p as usize);
    }
}

/// Before the pool hands the calling thread memory: its view must cover the pool's top (see
/// `heap::ensure_seen`). A thread without a heap has no record of its view: it refreshes.
///
/// # Safety
/// `h` is null or the calling thread's heap.
unsafe fn see_pool(h: *mut Heap, pool: &Pool) {
    if h.is_null() {
        platform::refresh_view();
    } else {
        // SAFETY: caller's contract.
        unsafe { heap::ensure_seen(h, pool.top()) };
    }
}

/// Resizes large span `s` (starting at `p`) in place to hold `new_size` bytes at `align`, when
/// that is a large allocation too and the pool can shrink it or extend it into free neighbours
/// or fresh memory. Returns whether it did; otherwise the caller moves the block.
///
/// # Safety
/// `s` is the span `p` lies in.
pub(crate) unsafe fn resize_in_place(s: *mut Span, p: *mut u8, new_size: usize, align: usize) -> bool {
    // SAFETY: `s` covers `p`; its record is valid.
    unsafe {
        if (*s).start != p as usize {
            invalid_free(p);
        }
        if !serves(new_size, align) {
            return false;
        }
        let need = core::cmp::max(1, new_size.div_ceil(CHUNK));
        if need <= (*s).chunks as usize {
            POOL.lock().shrink(s, need);
            return true;
        }
        // Looked up before taking the lock: the lookup may take the registry's.
        let h = lifecycle::current();
        let mut pool = POOL.lock();
        see_pool(h, &pool);
        let top = pool.top();
        let done = pool.extend(s, need);
        if !h.is_null() && pool.top() > top {
            heap::saw_own_growth(h, pool.top());
        }
        done
    }
}
