//! The span: a run of whole chunks, described by a `Span` record kept in metadata (never inside the
//! span, so slab blocks start on the chunk boundary and large allocations are chunk-aligned).
//!
//! A span is in one of four states:
//! - `FREE`: in the pool (`pool.rs`), linked in a size bin through `next`/`prev`.
//! - `SLAB`: owned by one heap, carved into blocks of one size class.
//! - `LARGE`: one allocation of `chunks` chunks, owned by nobody (freed through the pool).
//! - `ARENA`: owned by one heap, blocks of any size with headers (`arena.rs`; only `start`,
//!   `chunks`, `heap`, `thread_free` and the list links are used).
//!
//! Slab invariants (owner's view; checked by `validate`):
//! - `used + |free| + (bump_end - bump) / block_size == capacity`
//! - `|thread_free| <= used` (blocks freed by other threads still count as used until collected)
//! - `thread_free == NOTIFY` or a list without NOTIFY; NOTIFY is set only while the span is in its
//!   heap's full list and no remote free has claimed it; `in_full` ⇔ the span is in the full list.
//! - a span with `in_full == false` is in its heap's available list for `class`.
//!
//! Thread rules: `free`, `used`, `bump`, list links and `in_full` belong to the owning thread;
//! any thread pushes onto `thread_free` (lock-free) and, if it clears NOTIFY, onto the heap's
//! `delayed` stack through `delayed_next` (`free.rs`: that stack belongs to the heap layer). `kind`, `start`, `chunks`, `class`, `block_size`,
//! `heap` are written before the span's first block is handed out and read-only while it is in use.

use core::ptr::null_mut;
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

pub(crate) const FREE: u8 = 0;
pub(crate) const SLAB: u8 = 1;
pub(crate) const LARGE: u8 = 2;
/// Owned by one heap, carved into blocks of any size by its arena (`arena.rs`).
pub(crate) const ARENA: u8 = 3;

/// Tag bit in `thread_free`: the owner parked this span in its full list and wants to hear about
/// the next remote free. Blocks are 16-aligned, so the low bits of a block address are free.
pub(crate) const NOTIFY: usize = 1;

/// The heap that owns a slab, opaque at this layer (spans sit below heaps): `heap.rs` converts
/// between `*mut Owner` and `*mut Heap`. Uninhabited, like a C incomplete type.
pub(crate) enum Owner {}

/// A free block's first word.
#[repr(C)]
pub(crate) struct Block {
    pub(crate) next: *mut Block,
}

#[repr(C)]
pub(crate) struct Span {
    // -- owner-thread, hot --
    pub(crate) free: *mut Block,
    pub(crate) used: u32,
    pub(crate) block_size: u32,
    pub(crate) bump: usize,
    pub(crate) bump_end: usize,
    pub(crate) heap: AtomicPtr<Owner>,
    // -- any thread --
    pub(crate) thread_free: AtomicUsize,
    pub(crate) delayed_next: *mut Span,
    // -- list links: heap lists (owner) or pool bins (pool lock) --
    pub(crate) next: *mut Span,
    pub(crate) prev: *mut Span,
    // -- fixed while in use --
    pub(crate) start: usize,
    pub(crate) chunks: u32,
    pub(crate) capacity: u32,
    pub(crate) class: u8,
    pub(crate) kind: u8,
    pub(crate) in_full: bool,
    /// Every byte of the span is zero (fresh from the platform, never handed out).
    pub(crate) zeroed: bool,
    /// A LARGE span handed to a thread that had no heap (on wasm32-unknown-unknown: a thread's
    /// stack or TLS block, allocated before its TLS is set up; its free may retire a thread).
    pub(crate) heapless: bool,
}

impl Span {
    pub(crate) const fn empty() -> Span {
        Span {
            free: null_mut(),
            used: 0,
            block_size: 0,
            bump: 0,
            bump_end: 0,
            heap: AtomicPtr::new(null_mut()),
            thread_free: AtomicUsize::new(0),
            delayed_next: null_mut(),
            next: null_mut(),
            prev: null_mut(),
            start: 0,
            chunks: 0,
            capacity: 0,
            class: 0,
            kind: FREE,
            in_full: false,
            zeroed: false,
            heapless: false,
        }
    }

    #[inline]
    pub(crate) fn bytes(&self) -> usize {
        self.chunks as usize * crate::platform::CHUNK
    }

    #[inline]
    pub(crate) fn end(&self) -> usize {
        self.start + self.bytes()
    }
}

/// Largest number of bytes carved from the bump region at once (bounds the memory one slow path
/// touches).
const CARVE_BYTES: usize = 4096;

/// Moves up to `CARVE_BYTES` of never-used blocks from the bump region onto `free`.
///
/// # Safety
/// Caller owns `s` (a slab); `s.free` is null.
#[inline(never)]
pub(crate) unsafe fn carve(s: &mut Span) {
    let bs = s.block_size as usize;
    let avail = (s.bump_end - s.bump) / bs;
    let n = core::cmp::min(avail, core::cmp::max(1, CARVE_BYTES / bs));
    if n == 0 {
        return;
    }
    let first = s.bump;
    let mut p = first;
    for _ in 1..n {
        // SAFETY: p and p+bs are inside the slab's bump region, owned by the caller.
        unsafe { (*(p as *mut Block)).next = (p + bs) as *mut Block };
        p += bs;
    }
    // SAFETY: as above.
    unsafe { (*(p as *mut Block)).next = null_mut() };
    s.bump = first + n * bs;
    s.free = first as *mut Block;
}

/// Takes every block other threads freed into `s` and appends them to `s.free`. Returns how many.
///
/// # Safety
/// Caller owns `s` (a slab not in the full list, so `thread_free` holds no NOTIFY).
#[inline(never)]
pub(crate) unsafe fn collect(s: &mut Span) -> u32 {
    if s.thread_free.load(Ordering::Relaxed) == 0 {
        return 0;
    }
    let head = s.thread_free.swap(0, Ordering::Acquire) as *mut Block;
    debug_assert!(head as usize & NOTIFY == 0);
    let mut n = 1u32;
    let mut tail = head;
    // SAFETY: the list was built by `remote_free` from blocks of this slab; we own it now.
    unsafe {
        while !(*tail).next.is_null() {
            tail = (*tail).next;
            n += 1;
        }
        (*tail).next = s.free;
    }
    s.free = head;
    s.used -= n;
    n
}

/// Frees block `p` of slab `s` from a thread that does not own it: a lock-free push onto
/// `thread_free`. Returns true when this push cleared NOTIFY: the owner parked the span in its
/// full list and asked to hear of the next remote free, and the caller, alone, must now push the
/// span onto the owner's delayed stack (`free::remote_free`).
///
/// # Safety
/// `p` is an allocated block of slab `s`.
#[inline]
pub(crate) unsafe fn remote_push(s: *mut Span, p: *mut Block) -> bool {
    // SAFETY: `s` is a live slab (it has an allocated block); thread_free is atomic.
    let tf = unsafe { &(*s).thread_free };
    let mut old = tf.load(Ordering::Relaxed);
    loop {
        let next = (old & !NOTIFY) as *mut Block;
        // SAFETY: we still own `p` until the CAS publishes it.
        unsafe { (*p).next = next };
        match tf.compare_exchange_weak(old, p as usize, Ordering::Release, Ordering::Relaxed) {
            Ok(_) => return old & NOTIFY != 0,
            Err(cur) => old = cur,
        }
    }
}
