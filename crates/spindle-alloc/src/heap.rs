//! The heap record: one per thread, owning slabs of every size class, and the owner-only
//! operations on its slab lists. Nothing here allocates or frees a block: the paths that do are
//! `alloc.rs` and `free.rs`, slabs come from `slab.rs`, and a heap's birth, flush and exit are
//! `lifecycle.rs`.
//!
//! Per class, a heap keeps two doubly linked lists of its slabs: *available* (head = `fast[c]`,
//! the slab the fast path pops from; `EMPTY` when the list is empty) and *full* (slabs found with no
//! free block, parked with NOTIFY set so the next remote free brings them back via `delayed`).
//! It also keeps up to `slab::MAX_SPARES` empty slabs (any class) in `spares`.
//!
//! Invariants (checked by `validate`): every slab in `fast[c]`'s list has `in_full == false`,
//! class `c`, `heap == self`; every slab in `full[c]` has `in_full == true`; `fast[c] == EMPTY` iff
//! the available list is empty; `slabs[c]` is the number of slabs in class `c`'s two lists;
//! `allocated - freed` is the bytes of blocks this heap handed out
//! minus those returned to it (a remote free counts when the owner collects it).
//!
//! Thread rules: every field but `delayed` (any thread pushes, `free.rs`) and the registry's
//! fields (`owner`, `next_all`, `next_abandoned`: `registry.rs`, under its lock) belongs to the
//! owning thread. Heap records are metadata and never freed, so a pointer to one stays valid
//! forever (remote frees may still reach a heap whose thread is gone).

use crate::platform;
use crate::size_class::NUM_CLASSES;
use crate::span::{Block, Owner, Span};
use core::cell::UnsafeCell;
use core::ptr::null_mut;
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// A statistics counter written only by the heap's owner with plain loads and stores (an atomic
/// store would be a full fence on x86 hosts of wasm: `i32.atomic.store` is an xchg), and read
/// by `stats()` with a volatile read: a benign race that yields a slightly stale value.
pub(crate) struct Counter(UnsafeCell<usize>);

impl Counter {
    const fn new() -> Counter {
        Counter(UnsafeCell::new(0))
    }
    #[inline(always)]
    pub(crate) fn add(&self, n: usize) {
        // SAFETY: only the owning thread writes.
        unsafe { *self.0.get() = (*self.0.get()).wrapping_add(n) };
    }
    pub(crate) fn read(&self) -> usize {
        // SAFETY: a stale or torn-free (word-sized) read is acceptable for statistics.
        unsafe { core::ptr::read_volatile(self.0.get()) }
    }
}

/// Cache-line aligned so that one thread's counter updates never share a line with another
/// heap's `fast` array.
#[repr(C, align(64))]
pub(crate) struct Heap {
    pub(crate) fast: [*mut Span; NUM_CLASSES],
    pub(crate) full: [*mut Span; NUM_CLASSES],
    /// Slabs of the full lists that received a remote free (linked through `delayed_next`).
    pub(crate) delayed: AtomicPtr<Span>,
    pub(crate) next_abandoned: *mut Heap,
    pub(crate) next_all: *mut Heap,
    /// Thread id of the owning thread; 0 while abandoned.
    pub(crate) owner: AtomicUsize,
    pub(crate) allocated: Counter,
    pub(crate) freed: Counter,
    /// Empty slabs kept for reuse (linked through `next`), `spare_count` of them.
    pub(crate) spares: *mut Span,
    pub(crate) spare_count: u32,
    /// Bytes of the spare slabs (statistics; owner-written like the other counters).
    pub(crate) spare_bytes: Counter,
    /// The highest address the owning thread is known to see (its view of the memory's size; see
    /// `ensure_seen`). Every slab of this heap ends at or below it.
    pub(crate) seen: usize,
    /// Slabs of each class this heap holds (available and full lists): picks a new slab's
    /// length (`slab::make`). Owner-only.
    pub(crate) slabs: [u32; NUM_CLASSES],
    /// The small-heap arena (`arena.rs`): owner-only.
    pub(crate) arena: Arena,
}

/// A heap's small-heap arena: its spans, exact bins of deferred frees, the victim block new
/// requests are carved from, and the large list. The operations and invariants are `arena.rs`'s;
/// addresses are block headers (0: none), bin entries are payloads.
pub(crate) struct Arena {
    pub(crate) bins: [*mut Block; ARENA_BINS],
    /// Bit `i` is set when bin `i` may be non-empty (a hint: set on every push).
    pub(crate) bitmap: u64,
    /// Bytes of the blocks in the bins.
    pub(crate) binned: usize,
    pub(crate) victim: usize,
    pub(crate) large: usize,
    /// The heap's arena spans (linked through `next`/`prev`), `bytes` of them.
    pub(crate) spans: *mut Span,
    pub(crate) bytes: usize,
    /// The arena reached its limit: small requests whose bin is empty go to slabs.
    pub(crate) closed: bool,
}

/// Bins of the arena (`arena::NBINS`: the size classes up to that of a 1040-byte block).
pub(crate) const ARENA_BINS: usize = 33;

impl Arena {
    const fn new() -> Arena {
        Arena {
            bins: [null_mut(); ARENA_BINS],
            bitmap: 0,
            binned: 0,
            victim: 0,
            large: 0,
            spans: null_mut(),
            bytes: 0,
            closed: false,
        }
    }
}

impl Heap {
    /// A heap with no slab, owned by nobody, not yet in the registry.
    pub(crate) fn new() -> Heap {
        Heap {
            fast: [empty(); NUM_CLASSES],
            full: [null_mut(); NUM_CLASSES],
            delayed: AtomicPtr::new(null_mut()),
            next_abandoned: null_mut(),
            next_all: null_mut(),
            owner: AtomicUsize::new(0),
            allocated: Counter::new(),
            freed: Counter::new(),
            spares: null_mut(),
            spare_count: 0,
            spare_bytes: Counter::new(),
            seen: 0,
            slabs: [0; NUM_CLASSES],
            arena: Arena::new(),
        }
    }
}

/// Makes sure the owning thread (the caller) can touch memory up to `end`: if `end` lies above
/// what it has seen, it refreshes its view first (`platform::refresh_view`, a `memory.grow(0)`
/// on wasm). On V8 a thread's view of the memory's size is refreshed lazily after another thread
/// grows it, and a bulk `memory.fill`/`copy` past a stale view traps: the allocator never hands a
/// thread memory above its view.
///
/// # Safety
/// The caller owns `h`.
#[inline]
pub(crate) unsafe fn ensure_seen(h: *mut Heap, end: usize) {
    // SAFETY: caller owns `h`.
    unsafe {
        if end > (*h).seen {
            (*h).seen = platform::refresh_view();
        }
    }
}

/// Records that the owning thread grew the memory itself up to `end` (a thread sees its own
/// growth at once), so it will not refresh its view for memory below `end`.
///
/// # Safety
/// The caller owns `h` and grew the memory to at least `end`.
#[inline]
pub(crate) unsafe fn saw_own_growth(h: *mut Heap, end: usize) {
    // SAFETY: caller owns `h`.
    unsafe {
        if end > (*h).seen {
            (*h).seen = end;
        }
    }
}

/// The heap that owns slab `s` (`span::Owner` is the opaque form of `*mut Heap`).
///
/// # Safety
/// `s` is a live span record.
#[inline(always)]
pub(crate) unsafe fn owner_of(s: *mut Span) -> *mut Heap {
    // SAFETY: caller's contract; `heap` is atomic.
    unsafe { (*s).heap.load(Ordering::Relaxed) as *mut Heap }
}

/// Like `owner_of`, with acquire ordering (a remote thread reading the owner it will notify).
///
/// # Safety
/// As `owner_of`.
#[inline]
pub(crate) unsafe fn owner_of_acquire(s: *mut Span) -> *mut Heap {
    // SAFETY: caller's contract.
    unsafe { (*s).heap.load(Ordering::Acquire) as *mut Heap }
}

/// Makes `h` the owner of slab `s` (before its first block is handed out).
///
/// # Safety
/// The caller owns `s`, which no other thread can reach yet.
#[inline]
pub(crate) unsafe fn set_owner(s: *mut Span, h: *mut Heap) {
    // SAFETY: caller's contract.
    unsafe { (*s).heap.store(h as *mut Owner, Ordering::Release) };
}

struct EmptySpan(UnsafeCell<Span>);
// SAFETY: EMPTY is never written: its `free` is null, so every path that would modify a span
// leaves the fast path first, and the slow path never treats EMPTY as a list member.
unsafe impl Sync for EmptySpan {}
static EMPTY_SPAN: EmptySpan = EmptySpan(UnsafeCell::new(Span::empty()));

/// The placeholder `fast[c]` points at when class `c` has no available slab: its `free` is null,
/// so the fast path needs no null check.
#[inline(always)]
pub(crate) fn empty() -> *mut Span {
    EMPTY_SPAN.0.get()
}

// ---------------------------------------------------------------- list helpers (owner only)

/// Head of class `c`'s available list, or null.
///
/// # Safety
/// The caller owns `h`.
#[inline]
pub(crate) unsafe fn avail_head(h: *mut Heap, c: usize) -> *mut Span {
    // SAFETY: caller owns `h`.
    let s = unsafe { (*h).fast[c] };
    if s == empty() {
        null_mut()
    } else {
        s
    }
}

/// # Safety
/// The caller owns `h` and `s`; `s` is in the available list of `c`.
pub(crate) unsafe fn avail_remove(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller's contract.
    unsafe {
        if (*s).prev.is_null() {
            (*h).fast[c] = if (*s).next.is_null() { empty() } else { (*s).next };
        } else {
            (*(*s).prev).next = (*s).next;
        }
        if !(*s).next.is_null() {
            (*(*s).next).prev = (*s).prev;
        }
        (*s).next = null_mut();
        (*s).prev = null_mut();
    }
}

/// # Safety
/// The caller owns `h` and `s`; `s` is in no list.
pub(crate) unsafe fn avail_push_front(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller's contract.
    unsafe {
        let head = avail_head(h, c);
        (*s).prev = null_mut();
        (*s).next = head;
        if !head.is_null() {
            (*head).prev = s;
        }
        (*h).fast[c] = s;
    }
}

/// Inserts `s` second, so the slab the fast path uses stays first.
///
/// # Safety
/// The caller owns `h` and `s`; `s` is in no list.
pub(crate) unsafe fn avail_push_second(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller's contract.
    unsafe {
        let head = avail_head(h, c);
        if head.is_null() {
            avail_push_front(h, c, s);
            return;
        }
        (*s).prev = head;
        (*s).next = (*head).next;
        if !(*head).next.is_null() {
            (*(*head).next).prev = s;
        }
        (*head).next = s;
    }
}

/// # Safety
/// The caller owns `h` and `s`; `s` is in no list.
pub(crate) unsafe fn full_push(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller's contract.
    unsafe {
        (*s).prev = null_mut();
        (*s).next = (*h).full[c];
        if !(*h).full[c].is_null() {
            (*(*h).full[c]).prev = s;
        }
        (*h).full[c] = s;
        (*s).in_full = true;
    }
}

/// # Safety
/// The caller owns `h` and `s`; `s` is in the full list of `c`.
pub(crate) unsafe fn full_remove(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller's contract.
    unsafe {
        if (*s).prev.is_null() {
            (*h).full[c] = (*s).next;
        } else {
            (*(*s).prev).next = (*s).next;
        }
        if !(*s).next.is_null() {
            (*(*s).next).prev = (*s).prev;
        }
        (*s).next = null_mut();
        (*s).prev = null_mut();
        (*s).in_full = false;
    }
}
