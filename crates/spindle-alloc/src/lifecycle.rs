//! A heap's life with its thread (mimalloc's `init.c` and `heap.c`): a thread's first allocation
//! claims a heap (an abandoned one, slabs and all, or a new one: `registry.rs`) and arranges to
//! hear of the thread's exit; at exit the heap returns its empty slabs to the pool and is
//! abandoned for the next new thread. So memory stays bounded by the peak number of live threads,
//! however many threads come and go. `flush` (also the public `thread_flush`) gives a live
//! thread's empty slabs back.

use crate::arena;
use crate::free;
use crate::heap::{self, Heap};
use crate::platform;
use crate::pool::POOL;
use crate::registry;
use crate::size_class::NUM_CLASSES;
use crate::span::{self, Span};
use crate::thread_map;
use core::ptr::null_mut;

/// The calling thread's heap, or null.
#[inline]
pub(crate) fn current() -> *mut Heap {
    thread_map::current()
}

/// Gives the calling thread (which has none) a heap. Null when out of memory, or when the thread
/// cannot have one yet (wasm32-unknown-unknown before its TLS is set up: `thread_id() == 0`).
///
/// The thread first refreshes its view of the memory (`platform::refresh_view`): an adopted heap's
/// slabs, and the new heap record itself, may lie in memory another thread grew.
#[cold]
#[inline(never)]
pub(crate) fn start_thread() -> *mut Heap {
    let id = platform::thread_id();
    if id == 0 {
        return null_mut();
    }
    let seen = platform::refresh_view();
    let h = registry::claim(id);
    if h.is_null() {
        return null_mut();
    }
    // SAFETY: the thread owns `h` now.
    unsafe { (*h).seen = seen };
    platform::on_thread_exit(thread_exit);
    thread_map::insert(h);
    h
}

/// Collects remote frees, consolidates the arena, and returns every empty slab and wholly free
/// arena span of `h` to the pool.
///
/// # Safety
/// Caller owns `h`.
pub(crate) unsafe fn flush(h: *mut Heap) {
    // SAFETY: we own `h` and its slabs.
    unsafe {
        if !(*h).arena.spans.is_null() {
            arena::consolidate(h);
        }
        free::process_delayed(h);
        let mut empties: *mut Span = (*h).spares;
        (*h).spares = null_mut();
        (*h).spare_count = 0;
        (*h).spare_bytes.add((*h).spare_bytes.read().wrapping_neg());
        for c in 0..NUM_CLASSES {
            let mut s = heap::avail_head(h, c);
            while !s.is_null() {
                let next = (*s).next;
                let n = span::collect(&mut *s);
                (*h).freed.add(n as usize * (*s).block_size as usize);
                if (*s).used == 0 {
                    heap::avail_remove(h, c, s);
                    (*h).slabs[c] -= 1;
                    (*s).next = empties;
                    empties = s;
                }
                s = next;
            }
        }
        if !empties.is_null() {
            let mut pool = POOL.lock();
            while !empties.is_null() {
                let next = (*empties).next;
                pool.give(empties);
                empties = next;
            }
        }
    }
}

/// A block handed out without a heap was freed (`large::free`). On wasm32-unknown-unknown that
/// may be a thread's TLS block, freed by wasm-bindgen's `__wbindgen_thread_destroy`: the thread
/// is gone (or going), and its heap is flushed and abandoned for the next new thread. When the
/// thread destroys itself the caller is that thread; a "leader" may also destroy a stopped
/// follower, and then flushes the follower's heap for it (no one else can touch it any more).
pub(crate) fn tls_block_freed(p: usize) {
    let id = platform::thread_of_tls_block(p);
    if id == 0 {
        return;
    }
    if id == platform::thread_id() {
        thread_exit();
        return;
    }
    let h = registry::find_owned(id);
    if !h.is_null() {
        // SAFETY: the owner of `h` is gone, so its owner-only state is ours to flush and give up.
        unsafe {
            flush(h);
            registry::abandon(h);
        }
    }
}

/// Called by the platform when a thread exits: its heap (if it has one) is flushed and abandoned
/// for adoption by the next new thread.
fn thread_exit() {
    let h = thread_map::current();
    if h.is_null() {
        return;
    }
    // SAFETY: the exiting thread still owns `h`, and gives it up.
    unsafe {
        flush(h);
        thread_map::remove();
        registry::abandon(h);
    }
}
