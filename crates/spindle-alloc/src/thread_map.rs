//! The thread map: thread id -> that thread's heap, an open-addressing table of `SLOTS` entries.
//!
//! On wasm32-unknown-unknown, and on wasm32-wasip1 with the `thread-local` feature (nightly; the C
//! archives are built with it) or the `std` feature (a Rust program's, through spindle-alloc-c's
//! `rust-program`), the platform has a thread-local slot (`platform::heap_slot`) and the map is
//! that slot (`tls` below): one load per call. Elsewhere:
//!
//! Why not a pthread key slot or `#[thread_local]`: `#[thread_local]` is nightly-only, and
//! wasi-libc allocates a new thread's stack and key slots with plain malloc, so a key slot of a new
//! thread can hold garbage (left by whatever block that memory was before). The thread id
//! (`pthread_self()`) is always right.
//!
//! Rules: only the thread whose id is `key` writes a slot's `heap`, and a key goes from 0 or
//! TOMBSTONE to an id by CAS; a slot never returns to 0, so a probe chain, once built, stays
//! unbroken. An id is looked up only by its own thread. A slot left behind by a dead thread
//! (no exit hook ran) is found by the next thread that gets the same id, which then simply keeps
//! using that heap: nobody else can. If the table is full, `OVERFLOW` is set and lookups fall back to
//! scanning the heap registry (`registry.rs`: slow, but correct).

use crate::heap::Heap;

#[cfg(not(all(
    target_arch = "wasm32",
    any(target_os = "unknown", feature = "thread-local", feature = "std")
)))]
pub(crate) use table::{current, insert, remove};
#[cfg(all(
    target_arch = "wasm32",
    any(target_os = "unknown", feature = "thread-local", feature = "std")
))]
pub(crate) use tls::{current, insert, remove};

/// The heap pointer in the thread's own TLS slot (null while the thread's TLS is not set up).
#[cfg(all(target_arch = "wasm32", any(target_os = "unknown", feature = "thread-local", feature = "std")))]
mod tls {
    use super::Heap;
    use crate::platform;
    use core::ptr::null_mut;

    /// The calling thread's heap, or null.
    #[inline(always)]
    pub(crate) fn current() -> *mut Heap {
        let slot = platform::heap_slot();
        if slot.is_null() {
            return null_mut();
        }
        // SAFETY: the slot is the calling thread's own.
        unsafe { *slot as *mut Heap }
    }

    /// Records `h` as the calling thread's heap; false while the thread has no TLS.
    pub(crate) fn insert(h: *mut Heap) -> bool {
        let slot = platform::heap_slot();
        if slot.is_null() {
            return false;
        }
        // SAFETY: the slot is the calling thread's own.
        unsafe { *slot = h as *mut () };
        true
    }

    /// Forgets the calling thread's heap; returns it (or null).
    pub(crate) fn remove() -> *mut Heap {
        let slot = platform::heap_slot();
        if slot.is_null() {
            return null_mut();
        }
        // SAFETY: the slot is the calling thread's own.
        unsafe { core::ptr::replace(slot, null_mut()) as *mut Heap }
    }
}

#[cfg(not(all(
    target_arch = "wasm32",
    any(target_os = "unknown", feature = "thread-local", feature = "std")
)))]
mod table {
    use super::Heap;
    use crate::platform;
    use core::ptr::null_mut;
    use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

    // 512 slots (4 KiB of static data, 8 KiB with 1,024): chosen while the C archives still used
    // this table (they have `thread-local` now), for the C ring benchmark at T=1 to stay in
    // 384 KiB of memory at 2M-16M pairs (with 1,024 slots the worker's arena took one more
    // 64 KiB page from ~2.3M pairs on, at its live set's peak). The price: a thread whose home slot
    // another live thread holds probes on every call, twice as likely as with 1,024 slots.
    const SLOT_BITS: u32 = 9;
    const SLOTS: usize = 1 << SLOT_BITS;
    const TOMBSTONE: usize = usize::MAX;

    struct Slot {
        key: AtomicUsize,
        heap: AtomicPtr<Heap>,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY_SLOT: Slot = Slot { key: AtomicUsize::new(0), heap: AtomicPtr::new(null_mut()) };
    static TABLE: [Slot; SLOTS] = [EMPTY_SLOT; SLOTS];
    static OVERFLOW: AtomicBool = AtomicBool::new(false);

    #[inline(always)]
    fn slot_of(id: usize) -> usize {
        ((id as u32 >> 4).wrapping_mul(0x9E37_79B1) >> (32 - SLOT_BITS)) as usize
    }

    /// The calling thread's heap, or null.
    #[inline(always)]
    pub(crate) fn current() -> *mut Heap {
        let id = platform::thread_id();
        let s = &TABLE[slot_of(id)];
        if s.key.load(Ordering::Relaxed) == id {
            return s.heap.load(Ordering::Relaxed);
        }
        current_slow(id)
    }

    #[cold]
    #[inline(never)]
    fn current_slow(id: usize) -> *mut Heap {
        let start = slot_of(id);
        for i in 1..SLOTS {
            let s = &TABLE[(start + i) & (SLOTS - 1)];
            let k = s.key.load(Ordering::Relaxed);
            if k == id {
                return s.heap.load(Ordering::Relaxed);
            }
            if k == 0 {
                break;
            }
        }
        if OVERFLOW.load(Ordering::Relaxed) {
            return crate::registry::find_owned(id);
        }
        null_mut()
    }

    /// Records `h` as the calling thread's heap. Returns false if the table is full (the caller then
    /// relies on `Heap::owner` and the registry scan).
    pub(crate) fn insert(h: *mut Heap) -> bool {
        let id = platform::thread_id();
        let start = slot_of(id);
        for i in 0..SLOTS {
            let s = &TABLE[(start + i) & (SLOTS - 1)];
            let k = s.key.load(Ordering::Relaxed);
            if k == id
                || ((k == 0 || k == TOMBSTONE)
                    && s.key.compare_exchange(k, id, Ordering::AcqRel, Ordering::Relaxed).is_ok())
            {
                s.heap.store(h, Ordering::Relaxed);
                return true;
            }
        }
        OVERFLOW.store(true, Ordering::Relaxed);
        false
    }

    /// Forgets the calling thread's entry; returns its heap (or null).
    pub(crate) fn remove() -> *mut Heap {
        let id = platform::thread_id();
        let start = slot_of(id);
        for i in 0..SLOTS {
            let s = &TABLE[(start + i) & (SLOTS - 1)];
            let k = s.key.load(Ordering::Relaxed);
            if k == id {
                let h = s.heap.swap(null_mut(), Ordering::Relaxed);
                s.key.store(TOMBSTONE, Ordering::Release);
                return h;
            }
            if k == 0 {
                break;
            }
        }
        if OVERFLOW.load(Ordering::Relaxed) {
            return crate::registry::find_owned(id);
        }
        null_mut()
    }
}
