//! The heap registry: every heap ever made (`all`, for statistics and the thread map's overflow
//! lookup) and the heaps of exited threads waiting for adoption (`abandoned`).
//!
//! Invariants: `all` lists every heap record exactly once (linked through `next_all`, never
//! unlinked: heaps live forever); `abandoned` lists exactly the heaps whose `owner` is 0 (linked
//! through `next_abandoned`). Both lists and the `owner` field change only under `REGISTRY`'s lock.
//! Lock order: this lock is never held while the pool's is taken, nor the reverse.

use crate::heap::Heap;
use crate::lock::SpinLock;
use crate::pool::POOL;
use core::ptr::null_mut;
use core::sync::atomic::Ordering;

struct Registry {
    all: *mut Heap,
    abandoned: *mut Heap,
}

// SAFETY: only used behind the spin lock.
unsafe impl Send for Registry {}

static REGISTRY: SpinLock<Registry> = SpinLock::new(Registry { all: null_mut(), abandoned: null_mut() });

/// A heap for the thread `id`: an abandoned one (slabs and all) if there is one, else a new empty
/// heap made from pool metadata. Null when out of memory.
pub(crate) fn claim(id: usize) -> *mut Heap {
    {
        let mut reg = REGISTRY.lock();
        let h = reg.abandoned;
        if !h.is_null() {
            // SAFETY: abandoned heaps are valid; the lock orders us after the exiting thread.
            unsafe {
                reg.abandoned = (*h).next_abandoned;
                (*h).owner.store(id, Ordering::Relaxed);
            }
            return h;
        }
    }
    let h = POOL.lock().meta_alloc(core::mem::size_of::<Heap>()) as *mut Heap;
    if h.is_null() {
        return null_mut();
    }
    let mut reg = REGISTRY.lock();
    // SAFETY: fresh metadata of the right size, 64-aligned, that no one else can reach yet.
    unsafe {
        h.write(Heap::new());
        (*h).owner.store(id, Ordering::Relaxed);
        (*h).next_all = reg.all;
    }
    reg.all = h;
    h
}

/// Parks `h` (flushed by its exiting owner) for adoption by the next new thread.
///
/// # Safety
/// The calling thread owns `h` and gives it up.
pub(crate) unsafe fn abandon(h: *mut Heap) {
    let mut reg = REGISTRY.lock();
    // SAFETY: lock held; `h` is valid metadata.
    unsafe {
        (*h).owner.store(0, Ordering::Relaxed);
        (*h).next_abandoned = reg.abandoned;
    }
    reg.abandoned = h;
}

/// The heap owned by thread `id`, by scanning every heap (only when the thread map overflowed).
#[cold]
pub(crate) fn find_owned(id: usize) -> *mut Heap {
    let reg = REGISTRY.lock();
    let mut h = reg.all;
    while !h.is_null() {
        // SAFETY: heaps live forever.
        unsafe {
            if (*h).owner.load(Ordering::Relaxed) == id {
                return h;
            }
            h = (*h).next_all;
        }
    }
    null_mut()
}

/// Sums over every heap, for statistics (racy reads of the owners' counters: slightly stale).
pub(crate) struct HeapTotals {
    /// Bytes in blocks handed out and not returned (`allocated - freed`).
    pub(crate) blocks: usize,
    /// Bytes of empty spare slabs kept by heaps.
    pub(crate) spares: usize,
    /// Heap records (the peak number of threads that allocated at once).
    pub(crate) heaps: usize,
}

pub(crate) fn totals() -> HeapTotals {
    let reg = REGISTRY.lock();
    let mut t = HeapTotals { blocks: 0, spares: 0, heaps: 0 };
    let mut h = reg.all;
    while !h.is_null() {
        // SAFETY: heaps live forever; the counters tolerate racy reads.
        unsafe {
            t.blocks = t.blocks.wrapping_add((*h).allocated.read().wrapping_sub((*h).freed.read()));
            t.spares = t.spares.wrapping_add((*h).spare_bytes.read());
            t.heaps += 1;
            h = (*h).next_all;
        }
    }
    t
}
