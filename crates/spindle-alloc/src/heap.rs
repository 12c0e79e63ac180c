//! The heap: one per thread, owning slabs of every size class. The fast paths (`alloc_class`,
//! `free_block`) touch only the calling thread's heap and the block's slab, no atomics on the local
//! path; everything else is a never-inlined slow path.
//!
//! A heap also keeps up to `MAX_SPARES` empty slabs (any class) to reuse before asking the pool.
//!
//! Per class, a heap keeps two doubly linked lists of its slabs: *available* (head = `fast[c]`,
//! the slab the fast path pops from; `EMPTY` when the list is empty) and *full* (slabs found with no
//! free block, parked with NOTIFY set so the next remote free brings them back via `delayed`).
//!
//! Invariants (checked by `validate`): every slab in `fast[c]`'s list has `in_full == false`,
//! class `c`, `heap == self`; every slab in `full[c]` has `in_full == true`; `fast[c] == EMPTY` iff
//! the available list is empty; `allocated - freed` is the bytes of blocks this heap handed out
//! minus those returned to it (a remote free counts when the owner collects it).
//!
//! Life cycle: a thread's first allocation adopts an abandoned heap or makes a new one (metadata,
//! never freed); at thread exit (`thread_exit`, from the platform's pthread key destructor) the
//! heap returns its empty slabs to the pool and is pushed on the abandoned list, slabs and all, for
//! the next new thread. So memory stays bounded by the peak number of live threads, however many
//! threads come and go, and a heap pointer stays valid forever (remote frees may still reach it).

use crate::platform::{self, CHUNK};
use crate::pool::POOL;
use crate::size_class::{CLASSES, NUM_CLASSES};
use crate::span::{self, Block, Span, LARGE, NOTIFY, SLAB};
use crate::thread_map;
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
    fn add(&self, n: usize) {
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
    delayed: AtomicPtr<Span>,
    next_abandoned: *mut Heap,
    pub(crate) next_all: *mut Heap,
    /// Thread id of the owning thread; 0 while abandoned.
    owner: AtomicUsize,
    pub(crate) allocated: Counter,
    pub(crate) freed: Counter,
    /// Empty slabs kept for reuse (linked through `next`), `spare_count` of them.
    pub(crate) spares: *mut Span,
    pub(crate) spare_count: u32,
}

struct EmptySpan(UnsafeCell<Span>);
// SAFETY: EMPTY is never written: its `free` is null, so every path that would modify a span
// leaves the fast path first, and the slow path never treats EMPTY as a list member.
unsafe impl Sync for EmptySpan {}
static EMPTY_SPAN: EmptySpan = EmptySpan(UnsafeCell::new(Span::empty()));

#[inline(always)]
pub(crate) fn empty() -> *mut Span {
    EMPTY_SPAN.0.get()
}

#[inline(always)]
fn bump_stat(c: &Counter, n: usize) {
    c.add(n);
}

// ---------------------------------------------------------------- fast paths

/// Allocates a block of class `c` for the calling thread. Null when out of memory.
///
/// # Safety
/// `c < NUM_CLASSES`.
#[inline(always)]
pub(crate) unsafe fn alloc_class(c: usize) -> *mut u8 {
    let h = thread_map::current();
    if !h.is_null() {
        // SAFETY: `h` is this thread's heap; `fast[c]` is EMPTY or a slab we own.
        unsafe {
            let s = *(*h).fast.get_unchecked(c);
            let b = (*s).free;
            if !b.is_null() {
                (*s).free = (*b).next;
                (*s).used += 1;
                bump_stat(&(*h).allocated, (*s).block_size as usize);
                return b as *mut u8;
            }
        }
    }
    // SAFETY: forwarded contract.
    unsafe { alloc_slow(h, c) }
}

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
        if (*s).heap.load(Ordering::Relaxed) == h {
            if b == (*s).free {
                double_free(p);
            }
            #[cfg(any(debug_assertions, feature = "validate"))]
            check_block(s, p);
            (*b).next = (*s).free;
            (*s).free = b;
            (*s).used -= 1;
            bump_stat(&(*h).freed, (*s).block_size as usize);
            if (*s).used == 0 || (*s).in_full {
                local_free_rare(h, s);
            }
        } else {
            #[cfg(any(debug_assertions, feature = "validate"))]
            check_block(s, p);
            span::remote_free(s, b);
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
        if (*s).heap.load(Ordering::Relaxed) == thread_map::current() {
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

// ---------------------------------------------------------------- list helpers (owner only)

#[inline]
unsafe fn avail_head(h: *mut Heap, c: usize) -> *mut Span {
    // SAFETY: caller owns `h`.
    let s = unsafe { (*h).fast[c] };
    if s == empty() {
        null_mut()
    } else {
        s
    }
}

unsafe fn avail_remove(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller owns `h` and `s`, `s` is in the available list of `c`.
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

unsafe fn avail_push_front(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller owns `h` and `s`, `s` is in no list.
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
unsafe fn avail_push_second(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller owns `h` and `s`, `s` is in no list.
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

unsafe fn full_push(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller owns `h` and `s`, `s` is in no list.
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

unsafe fn full_remove(h: *mut Heap, c: usize, s: *mut Span) {
    // SAFETY: caller owns `h` and `s`, `s` is in the full list of `c`.
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

// ---------------------------------------------------------------- slow paths

#[inline(never)]
unsafe fn alloc_slow(mut h: *mut Heap, c: usize) -> *mut u8 {
    if h.is_null() {
        // SAFETY: called from the allocating thread.
        h = unsafe { heap_init() };
        if h.is_null() {
            return null_mut();
        }
    }
    // SAFETY: `h` is this thread's heap.
    unsafe {
        process_delayed(h);
        let s = find_slab(h, c);
        if s.is_null() {
            return null_mut();
        }
        let b = (*s).free;
        (*s).free = (*b).next;
        (*s).used += 1;
        bump_stat(&(*h).allocated, (*s).block_size as usize);
        b as *mut u8
    }
}

/// A slab of class `c` with a free block, made the head of the available list. Null: out of memory.
unsafe fn find_slab(h: *mut Heap, c: usize) -> *mut Span {
    // SAFETY: caller owns `h`; slabs in its lists are ours.
    unsafe {
        let mut s = avail_head(h, c);
        while !s.is_null() {
            if (*s).free.is_null() {
                let n = span::collect(&mut *s);
                bump_stat(&(*h).freed, n as usize * (*s).block_size as usize);
            }
            if (*s).free.is_null() && (*s).bump < (*s).bump_end {
                span::carve(&mut *s);
            }
            if !(*s).free.is_null() {
                if (*h).fast[c] != s {
                    avail_remove(h, c, s);
                    avail_push_front(h, c, s);
                }
                return s;
            }
            // Exhausted: park it in the full list, unless a remote free just arrived.
            if (*s).thread_free.compare_exchange(0, NOTIFY, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                let next = (*s).next;
                avail_remove(h, c, s);
                full_push(h, c, s);
                s = next;
            }
        }
        new_slab(h, c)
    }
}

#[cold]
#[inline(never)]
unsafe fn new_slab(h: *mut Heap, c: usize) -> *mut Span {
    let info = CLASSES[c];
    // SAFETY: we own `h` and its spare slabs.
    let mut s = unsafe { take_spare(h, info.chunks) };
    if s.is_null() {
        let mut pool = POOL.lock();
        s = pool.take(info.chunks as usize, 1);
        if s.is_null() {
            // Out of memory: our spares of other lengths may coalesce into what we need.
            // SAFETY: we own `h`'s spares.
            unsafe { give_spares(h, &mut pool) };
            s = pool.take(info.chunks as usize, 1);
            if s.is_null() {
                return null_mut();
            }
        }
        // SAFETY: fresh record we own.
        unsafe { (*s).kind = SLAB };
        pool.claim(s);
    }
    // SAFETY: `s` is ours (fresh from the pool or a spare) until published through the heap lists;
    // no block of it is out, so no other thread touches it.
    unsafe {
        (*s).class = c as u8;
        (*s).block_size = info.size;
        (*s).capacity = info.capacity;
        (*s).used = 0;
        (*s).free = null_mut();
        (*s).bump = (*s).start;
        (*s).bump_end = (*s).start + info.capacity as usize * info.size as usize;
        (*s).thread_free.store(0, Ordering::Relaxed);
        (*s).heap.store(h, Ordering::Release);
        (*s).in_full = false;
        (*s).zeroed = false;
        avail_push_front(h, c, s);
        span::carve(&mut *s);
    }
    s
}

/// Most empty slabs a heap keeps for reuse (by any class of the same slab length) before giving
/// them back to the pool: spares spare the pool lock and the chunk-map writes when a class
/// oscillates between one and two slabs.
const MAX_SPARES: u32 = 8;

/// Keeps empty slab `s` (in no list) as a spare, or releases it when there are enough.
unsafe fn park_spare(h: *mut Heap, s: *mut Span) {
    // SAFETY: we own `h` and `s`.
    unsafe {
        if (*h).spare_count >= MAX_SPARES {
            release(s);
            return;
        }
        (*s).next = (*h).spares;
        (*s).prev = null_mut();
        (*h).spares = s;
        (*h).spare_count += 1;
    }
}

/// Gives all of `h`'s spare slabs back to the pool.
unsafe fn give_spares(h: *mut Heap, pool: &mut crate::pool::Pool) {
    // SAFETY: we own `h` and its spares.
    unsafe {
        while !(*h).spares.is_null() {
            let s = (*h).spares;
            (*h).spares = (*s).next;
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
                return s;
            }
            link = &mut (*s).next;
        }
        null_mut()
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
            full_remove(h, c, s);
            avail_push_second(h, c, s);
        }
        if (*s).used == 0 && !((*h).fast[c] == s && (*s).next.is_null()) {
            avail_remove(h, c, s);
            park_spare(h, s);
        }
    }
}

/// Returns an empty slab (no block out, none pending) to the pool.
unsafe fn release(s: *mut Span) {
    let mut pool = POOL.lock();
    pool.give(s);
}

/// Moves slabs that received remote frees from the full lists back to the available lists.
#[inline]
unsafe fn process_delayed(h: *mut Heap) {
    // SAFETY: we own `h`; `delayed` is atomic.
    unsafe {
        if (*h).delayed.load(Ordering::Relaxed).is_null() {
            return;
        }
        let mut s = (*h).delayed.swap(null_mut(), Ordering::Acquire);
        while !s.is_null() {
            let next = (*s).delayed_next;
            let c = (*s).class as usize;
            full_remove(h, c, s);
            avail_push_second(h, c, s);
            s = next;
        }
    }
}

/// Pushes slab `s` onto its heap's delayed stack.
///
/// # Safety
/// The caller cleared `s`'s NOTIFY bit (so it is the only one pushing `s`).
pub(crate) unsafe fn push_delayed(s: *mut Span) {
    // SAFETY: `s` stays in its heap's full list until the heap processes it; heaps live forever.
    unsafe {
        let h = (*s).heap.load(Ordering::Acquire);
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

#[cold]
#[inline(never)]
unsafe fn heap_init() -> *mut Heap {
    let mut pool = POOL.lock();
    let h = pool.abandoned;
    let h = if !h.is_null() {
        // SAFETY: abandoned heaps are valid; the lock orders us after the exiting thread.
        unsafe { pool.abandoned = (*h).next_abandoned };
        h
    } else {
        let h = pool.meta_alloc(core::mem::size_of::<Heap>()) as *mut Heap;
        if h.is_null() {
            return null_mut();
        }
        // SAFETY: fresh metadata of the right size, 64-aligned.
        unsafe {
            h.write(Heap {
                fast: [empty(); NUM_CLASSES],
                full: [null_mut(); NUM_CLASSES],
                delayed: AtomicPtr::new(null_mut()),
                next_abandoned: null_mut(),
                next_all: pool.all_heaps,
                owner: AtomicUsize::new(0),
                allocated: Counter::new(),
                freed: Counter::new(),
                spares: null_mut(),
                spare_count: 0,
            });
        }
        pool.all_heaps = h;
        h
    };
    // SAFETY: `h` is valid; lock held, as `on_thread_exit` requires.
    unsafe {
        (*h).owner.store(platform::thread_id(), Ordering::Relaxed);
        platform::on_thread_exit();
    }
    thread_map::insert(h);
    h
}

/// The heap owned by thread `id`, by scanning the registry (only when the thread map overflowed).
#[cold]
pub(crate) fn find_owned(id: usize) -> *mut Heap {
    let pool = POOL.lock();
    let mut h = pool.all_heaps;
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

/// Collects remote frees and returns every empty slab of `h` to the pool.
///
/// # Safety
/// Caller owns `h`.
pub(crate) unsafe fn flush(h: *mut Heap) {
    // SAFETY: we own `h` and its slabs.
    unsafe {
        process_delayed(h);
        let mut empties: *mut Span = (*h).spares;
        (*h).spares = null_mut();
        (*h).spare_count = 0;
        for c in 0..NUM_CLASSES {
            let mut s = avail_head(h, c);
            while !s.is_null() {
                let next = (*s).next;
                let n = span::collect(&mut *s);
                bump_stat(&(*h).freed, n as usize * (*s).block_size as usize);
                if (*s).used == 0 {
                    avail_remove(h, c, s);
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

/// Called by the platform when a thread exits: its heap (if it has one) is flushed and parked for
/// adoption by the next new thread.
pub(crate) fn thread_exit() {
    let h = thread_map::current();
    if h.is_null() {
        return;
    }
    // SAFETY: the exiting thread still owns `h`.
    unsafe { flush(h) };
    thread_map::remove();
    let mut pool = POOL.lock();
    // SAFETY: lock held; `h` is valid metadata.
    unsafe {
        (*h).owner.store(0, Ordering::Relaxed);
        (*h).next_abandoned = pool.abandoned;
    }
    pool.abandoned = h;
}

/// The calling thread's heap, or null.
#[inline]
pub(crate) fn current() -> *mut Heap {
    thread_map::current()
}

// ---------------------------------------------------------------- large spans

/// Allocates `size` bytes as a span of whole chunks aligned to `align` (a power of two).
#[cold]
#[inline(never)]
pub(crate) unsafe fn alloc_large(size: usize, align: usize, zero: bool) -> *mut u8 {
    let chunks = match size.checked_add(CHUNK - 1) {
        Some(n) => core::cmp::max(1, n / CHUNK),
        None => return null_mut(),
    };
    let align_chunks = core::cmp::max(1, align / CHUNK);
    // Looked up before taking the lock: the lookup may take it itself (thread map overflow).
    let h = current();
    let (p, zeroed) = {
        let mut pool = POOL.lock();
        let mut s = pool.take(chunks, align_chunks);
        if s.is_null() {
            // Out of memory: give our spare slabs back (they may coalesce) and try once more.
            if !h.is_null() {
                // SAFETY: the calling thread owns its heap.
                unsafe { give_spares(h, &mut pool) };
                s = pool.take(chunks, align_chunks);
            }
            if s.is_null() {
                return null_mut();
            }
        }
        // SAFETY: fresh record we own.
        let zeroed = unsafe {
            (*s).kind = LARGE;
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
pub(crate) unsafe fn free_large(s: *mut Span, p: *mut u8) {
    let mut pool = POOL.lock();
    // SAFETY: lock held; records are valid.
    unsafe {
        if (*s).kind != LARGE || (*s).start != p as usize {
            drop(pool);
            invalid_free(p);
        }
        pool.large_bytes -= (*s).bytes();
    }
    pool.give(s);
}
