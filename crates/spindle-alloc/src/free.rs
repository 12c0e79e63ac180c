//! The free paths of slab blocks (mimalloc's `free.c`):
//! - **local**: the owner frees into its own slab: a push onto the slab's `free` list, no atomics
//!   (`free_block`); a slab that becomes empty or was parked full takes the rare path
//!   (`local_free_rare`: back to the available list, or into the spares);
//! - **cross-thread**: another thread frees: a lock-free push onto the slab's `thread_free`
//!   (`remote_free`); if the owner had parked the slab full (NOTIFY), that thread also pushes the
//!   slab onto the owner's `delayed` stack;
//! - **delayed**: the owner, on its next slow path, moves the slabs of its delayed stack from the
//!   full lists back to the available lists (`process_delayed`).
//!
//! Invalid and (cheaply detectable) double frees end the program with a message.

use crate::heap::{self, Heap};
use crate::platform;
use crate::slab;
use crate::span::{self, Block, Span, NOTIFY};
use crate::thread_map;
use core::ptr::null_mut;
use core::sync::atomic::Ordering;

/// Frees block `p` of slab `s`.
///
/// # Safety
/// `s` is the slab `p` lies in, `p` an allocated block.
#[inline(always)]
pub(crate) unsafe fn free_block(s: *mut Span, p: *mut u8) {
    let h = thread_map::current();
    let b = p as *mut Block;
    // SAFETY: `s` is a live slab; if we own it, its owner fields are ours.
    unsafe {
        if heap::owner_of(s) == h {
            if b == (*s).free {
                double_free(p);
            }
            #[cfg(any(debug_assertions, feature = "validate"))]
            check_block(s, p);
            (*b).next = (*s).free;
            (*s).free = b;
            (*s).used -= 1;
            (*h).freed.add((*s).block_size as usize);
            if (*s).used == 0 || (*s).in_full {
                local_free_rare(h, s);
            }
        } else {
            #[cfg(any(debug_assertions, feature = "validate"))]
            check_block(s, p);
            remote_free(s, b);
        }
    }
}

/// A local free found the slab empty or parked in the full list.
#[cold]
#[inline(never)]
unsafe fn local_free_rare(h: *mut Heap, s: *mut Span) {
    // SAFETY: we own `h` and `s`.
    unsafe {
        let c = (*s).class as usize;
        if (*s).in_full {
            // Take NOTIFY back; if a remote free already claimed it, the span is on (or on its way
            // to) the delayed stack and `process_delayed` will move it: leave it.
            if (*s).thread_free.compare_exchange(NOTIFY, 0, Ordering::AcqRel, Ordering::Relaxed).is_err() {
                return;
            }
            heap::full_remove(h, c, s);
            heap::avail_push_second(h, c, s);
        }
        if (*s).used == 0 && !((*h).fast[c] == s && (*s).next.is_null()) {
            heap::avail_remove(h, c, s);
            (*h).slabs[c] -= 1;
            slab::park_spare(h, s);
        }
    }
}

/// Frees block `b` of slab `s` from a thread that does not own `s`.
///
/// # Safety
/// `b` is an allocated block of slab `s`.
#[inline]
unsafe fn remote_free(s: *mut Span, b: *mut Block) {
    // SAFETY: caller's contract.
    if unsafe { span::remote_push(s, b) } {
        // SAFETY: we cleared NOTIFY, so we alone push `s`; heaps are never freed.
        unsafe { push_delayed(s) };
    }
}

/// Pushes slab `s` onto its heap's delayed stack.
///
/// # Safety
/// The caller cleared `s`'s NOTIFY bit (so it is the only one pushing `s`).
unsafe fn push_delayed(s: *mut Span) {
    // SAFETY: `s` stays in its heap's full list until the heap processes it; heaps live forever.
    unsafe {
        let h = heap::owner_of_acquire(s);
        let mut old = (*h).delayed.load(Ordering::Relaxed);
        loop {
            (*s).delayed_next = old;
            match (*h).delayed.compare_exchange_weak(old, s, Ordering::Release, Ordering::Relaxed) {
                Ok(_) => break,
                Err(cur) => old = cur,
            }
        }
    }
}

/// Moves slabs that received remote frees from the full lists back to the available lists.
///
/// # Safety
/// The caller owns `h`.
#[inline]
pub(crate) unsafe fn process_delayed(h: *mut Heap) {
    // SAFETY: we own `h`; `delayed` is atomic.
    unsafe {
        if (*h).delayed.load(Ordering::Relaxed).is_null() {
            return;
        }
        let mut s = (*h).delayed.swap(null_mut(), Ordering::Acquire);
        while !s.is_null() {
            let next = (*s).delayed_next;
            let c = (*s).class as usize;
            heap::full_remove(h, c, s);
            heap::avail_push_second(h, c, s);
            s = next;
        }
    }
}

#[cold]
#[inline(never)]
pub(crate) fn double_free(p: *mut u8) -> ! {
    platform::fatal_at("double free detected (free of a block that is already free)", Some(p as usize))
}

#[cold]
#[inline(never)]
pub(crate) fn invalid_free(_p: *mut u8) -> ! {
    platform::fatal("free/realloc of a pointer this allocator did not hand out (invalid or double free)")
}

/// Debug check: `p` is a block boundary inside the slab and not in the local free list.
#[cfg(any(debug_assertions, feature = "validate"))]
#[inline(never)]
unsafe fn check_block(s: *mut Span, p: *mut u8) {
    // SAFETY: `s` is a live slab.
    unsafe {
        let off = (p as usize).wrapping_sub((*s).start);
        let bs = (*s).block_size as usize;
        if off >= (*s).capacity as usize * bs || off % bs != 0 {
            invalid_free(p);
        }
        if heap::owner_of(s) == thread_map::current() {
            let mut f = (*s).free;
            while !f.is_null() {
                if f as *mut u8 == p {
                    double_free(p);
                }
                f = (*f).next;
            }
        }
    }
}
