//! A heap's life with its thread (mimalloc's `init.c` and `heap.c`): a thread's first allocation
//! claims a heap (an abandoned one, slabs and all, or a new one: `registry.rs`) and arranges to
//! hear of the thread's exit; at exit the heap returns its empty slabs to the pool and is
//! abandoned for the next new thread. So memory stays bounded by the peak number of live threads,
//! however many threads come and go. `flush` (also the public `thread_flush`) gives a live
//! thread's empty slabs back.

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

/// Gives the calling thread (which has none) a heap. Null when out of memory.
#[cold]
#[inline(never)]
pub(crate) fn start_thread() -> *mut Heap {
    let h = registry::claim(platform::thread_id());
    if h.is_null() {
        return null_mut();
    }
    platform::on_thread_exit(thread_exit);
    thread_map::insert(h);
    h
}

/// Collects remote frees and returns every empty slab of `h` to the pool.
///
/// # Safety
/// Caller owns `h`.
pub(crate) unsafe fn flush(h: *mut Heap) {
    // SAFETY: we own `h` and its slabs.
    unsafe {
        free::process_delayed(h);
        let mut empties: *mut Span = (*h).spares;
        (*h).spares = null_mut();
        (*h).spare_count = 0;
        for c in 0..NUM_CLASSES {
            let mut s = heap::avail_head(h, c);
            while !s.is_null() {
                let next = (*s).next;
                let n = span::collect(&mut *s);
                (*h).freed.add(n as usize * (*s).block_size as usize);
                if (*s).used == 0 {
                    heap::avail_remove(h, c, s);
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
