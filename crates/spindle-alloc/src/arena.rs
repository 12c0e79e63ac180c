//! The small-heap arena: while a heap is small, its requests of up to `MAX` bytes share spans of
//! 16 KiB (a heap's first: 2 KiB), split and merged as needed (dlmalloc's idea, with deferred
//! merging), instead of one slab per size class.
//!
//! Why: a thread that holds a few blocks of each of many classes pays at least one partly used
//! slab per class, and each class keeps its own high-water mark. On the ring workload (256 live
//! blocks of 8..1024 B, 32 classes) the sum of the classes' peaks is 324 KiB for a peak of 155 KiB
//! live: segregated slabs cannot come near dlmalloc's memory there. Here a freed byte can serve
//! any size once its neighbours are free too. Past `LIMIT` bytes of arena spans a heap takes no
//! more and its further requests go to slabs: large heaps keep slab speed and slab memory.
//!
//! Blocks: a 16-byte header (word 0: the block's size, a multiple of 16, | `FREE_BIT`; word 1: its
//! bin) before the payload, so payloads stay 16-aligned. Every span is tiled by blocks from `start`
//! to `end()`. A block is in exactly one state:
//! - in use (bit clear; a request's block is its size class, `bin_of`, or a block of a larger bin
//!   handed out whole when splitting would leave a small rest, `KEEP_REST`; word 1 is its bin);
//! - in bin `i` (bit clear, `class_size(i) <= size < class_size(i + 1)`, payload word 0 links the
//!   bin): a free not merged yet. Frees are deferred, so the fast paths are a pop and a push, as
//!   for slabs (`pop`, `free`); a request whose bin is empty takes the first block of the first
//!   non-empty larger bin, still inline (`pop_larger`), unless the victim serves it;
//! - the victim (bit set): the block requests are carved from when their bin is empty;
//! - in the large list (bit set, size >= `LARGE_MIN`), or an orphan (bit set, 16 bytes, no list).
//!
//! When neither the victim, a larger bin nor the large list serves a request, `consolidate` marks
//! every binned block free, merges each run of free blocks in one pass over the spans, gives a
//! span that became wholly free back to the pool, and files the rest; the heap takes a new span
//! only if that did not help (or the bins held less than a sixth of the arena: not worth a pass).
//! Invariants (checked by `check`, run by `validate`): the tiling; `binned` is the bytes in the
//! bins; a bit of `bitmap` is set for every non-empty bin (a clear bin may keep its bit: a hint).
//!
//! Thread rules: all of it belongs to the heap's owner. Another thread frees an arena block with a
//! lock-free push onto its span's `thread_free` (no NOTIFY: the span is never parked), collected
//! by the owner when it consolidates or flushes.

use crate::heap::{self, Arena, Heap};
use crate::platform::CHUNK;
use crate::pool::POOL;
use crate::size_class::{class_of, class_size, CLASSES};
use crate::slab;
use crate::span::{Block, Span, ARENA};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicUsize, Ordering};

/// Largest request the arena serves.
pub(crate) const MAX: usize = 1024;
/// Bytes of a block header: word 0 the size | `FREE_BIT`, word 1 the bin (in-use and binned blocks).
pub(crate) const HDR: usize = 16;
/// Smallest block: a header and the bin link.
const MIN_BLOCK: usize = 32;
/// Bins, one per size class (`size_class`) up to the class of the largest request's block; bin
/// `i` holds free blocks of at least `class_size(i)` bytes and less than `class_size(i + 1)`.
pub(crate) const NBINS: usize = class_of(MAX + HDR) + 1;
/// A block split from a larger bin keeps a rest smaller than this and than itself (so it at most
/// doubles) instead of filing it: such rests were small blocks that few requests fit, and filling
/// the bins with them made the merging passes six times as frequent (ring workload).
const KEEP_REST: usize = 192;
/// Free blocks of this many bytes or more go to the large list.
const LARGE_MIN: usize = class_size(NBINS);
const _: () = assert!(NBINS == crate::heap::ARENA_BINS);

/// Header flag: the block is free and not in an exact bin (victim, large list, orphan).
const FREE_BIT: usize = 1;
/// The header bits that are flags, not size (sizes are multiples of 16).
const FLAGS: usize = 15;
/// Length of an arena span; a heap's first one is `FIRST_SPAN_BYTES` (a thread that allocates a
/// little pays 2 KiB, not 16), as is any span where only that length fits a free span.
const SPAN_BYTES: usize = 16 << 10;
const FIRST_SPAN_BYTES: usize = 2 << 10;

/// Most bytes of arena spans one heap takes (see `set_limit`).
static LIMIT: AtomicUsize = AtomicUsize::new(384 << 10);

/// Sets how many bytes of arena spans a heap may take before its small requests go to slabs
/// (0: none, every request is served by slabs; tests of the slab paths use that).
pub(crate) fn set_limit(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// Whether heap `h` (the calling thread's, or null: it has none yet) is small: the arena is on
/// and `h` has not reached its limit. Large requests then get spans of their own (`large.rs`).
#[inline]
pub(crate) fn small(h: *mut Heap) -> bool {
    // SAFETY: `h` is null or the calling thread's heap; `closed` is its owner's field.
    LIMIT.load(Ordering::Relaxed) != 0 && (h.is_null() || unsafe { !(*h).arena.closed })
}

/// The bin (size class) of a request of `size <= MAX` bytes: its blocks are `class_size` bytes,
/// header included.
#[inline(always)]
pub(crate) const fn bin_of(size: usize) -> usize {
    // A block holds at least the bin link (class 1, 32 bytes).
    class_of(if size == 0 { 1 } else { size } + HDR)
}

/// The sizes (header included) of the blocks of the bin a request of `size <= MAX` bytes pops
/// from: at least the first, less than the second.
#[cfg(test)]
pub(crate) fn bin_range(size: usize) -> (usize, usize) {
    (class_size(bin_of(size)), class_size(bin_of(size) + 1))
}

/// The bin a free block of `size` bytes (`MIN_BLOCK <= size < LARGE_MIN`) is filed in: the
/// largest class it holds.
#[inline]
fn floor_bin(size: usize) -> usize {
    let c = class_of(size);
    if class_size(c) > size {
        c - 1
    } else {
        c
    }
}

#[inline(always)]
unsafe fn hdr(b: usize) -> *mut usize {
    b as *mut usize
}

/// Header word 1: the bin of an in-use or binned block.
#[inline(always)]
unsafe fn hdr_bin(b: usize) -> *mut usize {
    (b + core::mem::size_of::<usize>()) as *mut usize
}

/// The size of the block whose header is at `b`.
#[inline(always)]
unsafe fn size_at(b: usize) -> usize {
    // SAFETY: caller's `b` is a block header inside an arena span.
    unsafe { *hdr(b) & !FLAGS }
}

/// The size of the in-use block whose payload is `p`, or 0 if its header is not that of an in-use
/// arena block (then `p` is not a live allocation).
///
/// # Safety
/// `p` lies in a live arena span, at least `HDR` bytes past its start.
#[inline(always)]
pub(crate) unsafe fn payload_block_size(p: usize) -> usize {
    // SAFETY: caller's contract.
    let (h, bin) = unsafe { (*hdr(p - HDR), *hdr_bin(p - HDR)) };
    if h & FREE_BIT != 0 || !(MIN_BLOCK..LARGE_MIN).contains(&h) || h % 16 != 0 || bin >= NBINS {
        0
    } else {
        h
    }
}

/// Files the free block at `b` (header address) of `bsize` bytes in bin `i`.
#[inline(always)]
unsafe fn bin_push_at(a: &mut Arena, b: usize, bsize: usize, i: usize) {
    let p = (b + HDR) as *mut Block;
    // SAFETY: the block is free and ours; its payload holds the link.
    unsafe {
        *hdr(b) = bsize;
        *hdr_bin(b) = i;
        (*p).next = *a.bins.get_unchecked(i);
        *a.bins.get_unchecked_mut(i) = p;
    }
    a.bitmap |= 1 << i;
    a.binned += bsize;
}

/// Files the free block at `b` of `bsize` bytes (`MIN_BLOCK <= bsize < LARGE_MIN`) in its bin.
unsafe fn bin_push(a: &mut Arena, b: usize, bsize: usize) {
    // SAFETY: forwarded.
    unsafe { bin_push_at(a, b, bsize, floor_bin(bsize)) };
}

/// Frees arena block `p` of span `s`: a push onto its exact bin (the owner) or onto the span's
/// `thread_free` (another thread).
///
/// # Safety
/// `p` lies in arena span `s` and is a live allocation.
#[inline(always)]
pub(crate) unsafe fn free(s: *mut Span, p: *mut u8) {
    let h = crate::thread_map::current();
    // SAFETY: caller's contract; if we own `s`, its heap's arena is ours.
    unsafe {
        if (p as usize) & 15 != 0 || (p as usize) < (*s).start + HDR {
            crate::free::invalid_free(p);
        }
        let bs = payload_block_size(p as usize);
        if bs == 0 {
            crate::free::double_free(p);
        }
        if heap::owner_of(s) == h {
            let a = &mut (*h).arena;
            let i = *hdr_bin(p as usize - HDR);
            if *a.bins.get_unchecked(i) == p as *mut Block {
                crate::free::double_free(p);
            }
            // The header already holds the size and bin: only the link is written.
            let b = p as *mut Block;
            (*b).next = *a.bins.get_unchecked(i);
            *a.bins.get_unchecked_mut(i) = b;
            a.bitmap |= 1 << i;
            a.binned += bs;
            (*h).freed.add(bs);
        } else {
            // No NOTIFY on arena spans: nothing more to do.
            crate::span::remote_push(s, p as *mut Block);
        }
    }
}

/// The fast path: a free block of bin `c` (at least `class_size(c)` bytes), or null.
///
/// # Safety
/// The caller owns `h`; `c < NBINS`.
#[inline(always)]
pub(crate) unsafe fn pop(h: *mut Heap, c: usize) -> *mut u8 {
    // SAFETY: caller owns `h`; bin entries are free blocks of this heap.
    unsafe {
        let a = &mut (*h).arena;
        let b = *a.bins.get_unchecked(c);
        if b.is_null() {
            return null_mut();
        }
        *a.bins.get_unchecked_mut(c) = (*b).next;
        let size = *hdr(b as usize - HDR);
        a.binned -= size;
        (*h).allocated.add(size);
        b as *mut u8
    }
}

/// The fast path's second try, when bin `c` is empty and the victim cannot serve the request: the
/// first block of the first non-empty bin above `c`, whole or split (`take_first`), or null. That
/// is the slow path's first choice then, without the call. (Ring workload, C on wasm, while the
/// arena is tight: one request in five found its bin empty, and the calls cost about 5% of the
/// run; `bench/alloc/BENCHMARKS.md`, 2026-11-27 fifth session.)
///
/// # Safety
/// The caller owns `h`; `c < NBINS`.
#[inline(always)]
pub(crate) unsafe fn pop_larger(h: *mut Heap, c: usize) -> *mut u8 {
    // SAFETY: caller owns `h` and every free block of its arena.
    unsafe {
        let a = &mut (*h).arena;
        if a.victim != 0 && size_at(a.victim) >= CLASSES.get_unchecked(c).size as usize {
            return null_mut();
        }
        match first_bin(a, c + 1) {
            Some((j, p)) => take_first(h, j, p, c),
            None => null_mut(),
        }
    }
}

/// The slow path: a block of bin `c` carved from the victim, split from a larger free block,
/// or found after consolidating; a new span if the heap's arena may still grow. Null when the arena
/// is closed (the caller goes to slabs) or out of memory.
///
/// # Safety
/// The caller owns `h`; `c < NBINS`.
#[cold]
#[inline(never)]
pub(crate) unsafe fn alloc_slow(h: *mut Heap, c: usize) -> *mut u8 {
    let bsize = CLASSES[c].size as usize;
    // SAFETY: we own `h` and every block of its arena.
    unsafe {
        let mut consolidated = false;
        let mut collected = false;
        loop {
            let a = &mut (*h).arena;
            if a.victim != 0 && size_at(a.victim) >= bsize {
                return take(h, carve_victim(a, bsize), bsize, c);
            }
            if let Some((j, p)) = first_bin(a, c) {
                return take_first(h, j, p, c);
            }
            if let Some(v) = best_large(a, bsize) {
                retire_victim(a);
                a.victim = v;
                continue;
            }
            if !collected {
                collected = true;
                if collect_remote(h) {
                    continue;
                }
            }
            // Consolidate when the bins hold enough to be worth a pass (a sixth of the arena):
            // the pass costs one step per block of the arena, a chain of dependent loads. (With an
            // eighth, the ring workload's passes took a quarter of the allocator's time on wasm; a
            // fifth cost a page of memory at T=1.)
            if !consolidated
                && (a.binned * 6 >= a.bytes || a.bytes + SPAN_BYTES > LIMIT.load(Ordering::Relaxed))
            {
                consolidate(h);
                consolidated = true;
                continue;
            }
            if !new_span(h) {
                return null_mut();
            }
        }
    }
}

/// Hands out the block at `b` of `bsize` bytes.
#[inline(always)]
unsafe fn take(h: *mut Heap, b: usize, bsize: usize, c: usize) -> *mut u8 {
    // SAFETY: caller owns `h` and the free block at `b`.
    unsafe {
        *hdr(b) = bsize;
        *hdr_bin(b) = c;
        (*h).allocated.add(bsize);
        (b + HDR) as *mut u8
    }
}

/// Carves `bsize` bytes off the front of the victim (which holds at least that); returns the
/// block's header address. A rest of 16 bytes becomes an orphan (merged at the next pass).
unsafe fn carve_victim(a: &mut Arena, bsize: usize) -> usize {
    let v = a.victim;
    // SAFETY: the victim is a free block of ours.
    unsafe {
        let rest = size_at(v) - bsize;
        if rest >= MIN_BLOCK {
            a.victim = v + bsize;
            *hdr(a.victim) = rest | FREE_BIT;
        } else {
            if rest > 0 {
                *hdr(v + bsize) = rest | FREE_BIT;
            }
            a.victim = 0;
        }
    }
    v
}

/// The first non-empty bin from `c` up and its first block (every block there holds
/// `class_size(c)`); the bitmap's stale bits (empty bins) met on the way are cleared.
#[inline(always)]
unsafe fn first_bin(a: &mut Arena, c: usize) -> Option<(usize, *mut Block)> {
    let mut m = a.bitmap & (!0u64 << c);
    while m != 0 {
        let j = m.trailing_zeros() as usize;
        // SAFETY: `j < NBINS`: only bins have bits.
        let p = unsafe { *a.bins.get_unchecked(j) };
        if !p.is_null() {
            return Some((j, p));
        }
        a.bitmap &= !(1 << j);
        m &= m - 1;
    }
    None
}

/// Hands out `p`, the first block of bin `j` (from `first_bin(.., c)`), for a request of bin `c`:
/// whole when the rest would be small (`KEEP_REST`; its header keeps its size and bin `j`, where
/// its free files it), else split to `class_size(c)` (the rest goes back to a bin, or becomes an
/// orphan).
///
/// # Safety
/// The caller owns `h`; `p` heads bin `j` of its arena; `c <= j`.
#[inline(always)]
unsafe fn take_first(h: *mut Heap, j: usize, p: *mut Block, c: usize) -> *mut u8 {
    // SAFETY: caller's contract; bin entries are free blocks of ours.
    unsafe {
        let a = &mut (*h).arena;
        let bsize = CLASSES.get_unchecked(c).size as usize;
        *a.bins.get_unchecked_mut(j) = (*p).next;
        let b = p as usize - HDR;
        let have = size_at(b);
        a.binned -= have;
        let rest = have - bsize;
        if rest < KEEP_REST && rest < bsize {
            (*h).allocated.add(have);
            return p as *mut u8;
        }
        if rest >= MIN_BLOCK {
            bin_push(a, b + bsize, rest);
        } else if rest > 0 {
            *hdr(b + bsize) = rest | FREE_BIT;
        }
        take(h, b, bsize, c)
    }
}

/// Unlinks and returns the best-fitting block of the large list for `bsize`.
unsafe fn best_large(a: &mut Arena, bsize: usize) -> Option<usize> {
    let mut best = 0usize;
    let mut best_prev = 0usize;
    let mut prev = 0usize;
    let mut b = a.large;
    // SAFETY: large-list blocks are free blocks of ours; the link is payload word 0.
    unsafe {
        while b != 0 {
            let s = size_at(b);
            if s >= bsize && (best == 0 || s < size_at(best)) {
                best = b;
                best_prev = prev;
            }
            prev = b;
            b = link(b);
        }
        if best == 0 {
            return None;
        }
        if best_prev == 0 {
            a.large = link(best);
        } else {
            *((best_prev + HDR) as *mut usize) = link(best);
        }
    }
    Some(best)
}

#[inline]
unsafe fn link(b: usize) -> usize {
    // SAFETY: caller's `b` is a free block with a link.
    unsafe { *((b + HDR) as *const usize) }
}

/// Files a free block (header at `b`, `size` bytes, in no list) where it belongs.
unsafe fn file_free(a: &mut Arena, b: usize, size: usize) {
    // SAFETY: the block is free and ours.
    unsafe {
        if size >= LARGE_MIN {
            *hdr(b) = size | FREE_BIT;
            *((b + HDR) as *mut usize) = a.large;
            a.large = b;
        } else if size >= MIN_BLOCK {
            bin_push(a, b, size);
        } else {
            *hdr(b) = size | FREE_BIT;
        }
    }
}

/// The victim goes back to a bin or the large list.
unsafe fn retire_victim(a: &mut Arena) {
    let v = a.victim;
    if v != 0 {
        a.victim = 0;
        // SAFETY: the victim is a free block of ours.
        unsafe { file_free(a, v, size_at(v)) };
    }
}

/// A new arena span for `h`, made its victim. False when the arena is closed or out of memory.
unsafe fn new_span(h: *mut Heap) -> bool {
    // SAFETY: we own `h`.
    unsafe {
        let a = &mut (*h).arena;
        let bytes = if a.bytes == 0 { FIRST_SPAN_BYTES } else { SPAN_BYTES };
        if a.bytes + bytes > LIMIT.load(Ordering::Relaxed) {
            a.closed = true;
            return false;
        }
        let chunks = (bytes / CHUNK) as u32;
        // A first-span length where only that fits a free span, rather than grow the memory.
        let s = slab::pool_span(h, chunks, (FIRST_SPAN_BYTES / CHUNK) as u32, ARENA);
        if s.is_null() {
            return false;
        }
        let bytes = (*s).bytes();
        (*s).thread_free.store(0, Ordering::Relaxed);
        heap::set_owner(s, h);
        let a = &mut (*h).arena;
        (*s).prev = null_mut();
        (*s).next = a.spans;
        if !a.spans.is_null() {
            (*a.spans).prev = s;
        }
        a.spans = s;
        a.bytes += bytes;
        retire_victim(a);
        a.victim = (*s).start;
        *hdr(a.victim) = bytes | FREE_BIT;
        true
    }
}

/// Collects the blocks other threads freed into `h`'s arena spans (into the bins). True when
/// there were any.
unsafe fn collect_remote(h: *mut Heap) -> bool {
    let mut any = false;
    // SAFETY: we own `h` and its spans; thread_free is atomic.
    unsafe {
        let mut s = (*h).arena.spans;
        while !s.is_null() {
            if (*s).thread_free.load(Ordering::Relaxed) != 0 {
                let mut p = (*s).thread_free.swap(0, Ordering::Acquire) as *mut Block;
                any = true;
                while !p.is_null() {
                    let next = (*p).next;
                    let b = p as usize - HDR;
                    let bs = size_at(b);
                    bin_push(&mut (*h).arena, b, bs);
                    (*h).freed.add(bs);
                    p = next;
                }
            }
            s = (*s).next;
        }
    }
    any
}

/// Merges every run of free blocks of `h`'s arena, gives wholly free spans back to the pool, and
/// files the merged blocks (bins, large list). Afterwards no victim is set.
///
/// # Safety
/// The caller owns `h`.
pub(crate) unsafe fn consolidate(h: *mut Heap) {
    // SAFETY: we own `h`, its spans and every free block in them.
    unsafe {
        collect_remote(h);
        let a = &mut (*h).arena;
        // Mark: binned blocks get the free bit (victim, large and orphans have it).
        for i in 0..NBINS {
            let mut p = a.bins[i];
            while !p.is_null() {
                *hdr(p as usize - HDR) |= FREE_BIT;
                p = (*p).next;
            }
            a.bins[i] = null_mut();
        }
        a.bitmap = 0;
        a.binned = 0;
        a.victim = 0;
        a.large = 0;
        let mut s = a.spans;
        while !s.is_null() {
            s = merge_two(h, s);
        }
    }
}

/// Run edges a `Walk` collects before it files the runs (a multiple of 2).
const EDGES: usize = 64;

/// One span's walk for `consolidate`: the position, and the edges of the runs of free blocks seen
/// and not filed yet (`edges[..n]`: a run's start, then its end).
struct Walk {
    s: *mut Span,
    b: usize,
    end: usize,
    n: usize,
    free: usize,
    flushed: bool,
    edges: [usize; EDGES],
}

impl Walk {
    /// # Safety
    /// `s` is an arena span of the heap being consolidated.
    #[inline(always)]
    unsafe fn new(s: *mut Span) -> Walk {
        // SAFETY: caller's contract.
        let (b, end) = unsafe { ((*s).start, (*s).end()) };
        Walk { s, b, end, n: 0, free: 0, flushed: false, edges: [0; EDGES] }
    }

    /// One block: no branch that depends on the block (whether it is free is as good as random):
    /// its address goes to `edges`, kept only where a run of free blocks starts or ends.
    ///
    /// # Safety
    /// `self.b < self.end`; the heap being consolidated owns `a`.
    #[inline(always)]
    unsafe fn step(&mut self, a: &mut Arena) {
        // SAFETY: `b` is a block header inside the span; `n < EDGES`.
        unsafe {
            let word = *hdr(self.b);
            let free = word & FREE_BIT;
            *self.edges.get_unchecked_mut(self.n) = self.b;
            self.n += free ^ self.free;
            self.free = free;
            self.b += word & !FLAGS;
            if self.n == EDGES {
                file_runs(a, &self.edges);
                self.n = 0;
                self.flushed = true;
            }
        }
    }

    /// Files the runs not filed yet, or gives the span back to the pool if it is one free run.
    ///
    /// # Safety
    /// The walk reached the span's end; the caller owns `h`.
    unsafe fn finish(&mut self, h: *mut Heap) {
        if self.free != 0 {
            self.edges[self.n] = self.end;
            self.n += 1;
        }
        // SAFETY: we own `h` and the span.
        unsafe {
            if !self.flushed && self.n == 2 && self.edges[0] == (*self.s).start && self.edges[1] == self.end {
                release_span(h, self.s);
            } else {
                file_runs(&mut (*h).arena, &self.edges[..self.n]);
            }
        }
    }
}

/// Merges the runs of free blocks (marked by `consolidate`) of arena span `s` and the one after
/// it, and files them; returns the span after those two (null: none).
///
/// A span's walk is one chain of dependent loads (a block's size says where the next one starts),
/// a cache miss or two per block: two spans are walked side by side so that their loads overlap.
///
/// # Safety
/// The caller owns `h` and is consolidating it; `s` is one of its arena spans.
unsafe fn merge_two(h: *mut Heap, s: *mut Span) -> *mut Span {
    // SAFETY: we own `h` and its spans; filing a walk's runs writes only inside its span, below
    // its position.
    unsafe {
        let t = (*s).next;
        let a = &mut (*h).arena;
        let mut w0 = Walk::new(s);
        if t.is_null() {
            while w0.b < w0.end {
                w0.step(a);
            }
            w0.finish(h);
            return null_mut();
        }
        let next = (*t).next;
        let mut w1 = Walk::new(t);
        while w0.b < w0.end && w1.b < w1.end {
            w0.step(a);
            w1.step(a);
        }
        while w0.b < w0.end {
            w0.step(a);
        }
        while w1.b < w1.end {
            w1.step(a);
        }
        w0.finish(h);
        w1.finish(h);
        next
    }
}

/// Files the runs `[edges[2k], edges[2k + 1])` of free blocks where their sizes belong.
///
/// # Safety
/// Each run is a run of free blocks of `a`'s arena, in no list.
unsafe fn file_runs(a: &mut Arena, edges: &[usize]) {
    for r in edges.chunks_exact(2) {
        // SAFETY: caller's contract.
        unsafe { file_free(a, r[0], r[1] - r[0]) };
    }
}

/// Unlinks wholly free span `s` from `h`'s arena and gives it back to the pool.
unsafe fn release_span(h: *mut Heap, s: *mut Span) {
    // SAFETY: we own `h` and `s`; no block of `s` is out or pending.
    unsafe {
        let a = &mut (*h).arena;
        if (*s).prev.is_null() {
            a.spans = (*s).next;
        } else {
            (*(*s).prev).next = (*s).next;
        }
        if !(*s).next.is_null() {
            (*(*s).next).prev = (*s).prev;
        }
        a.bytes -= (*s).bytes();
        a.closed = false;
        POOL.lock().give(s);
    }
}

/// Validation: walks `h`'s arena (the tiling of every span, the bins, the victim and the large
/// list) and returns the first broken invariant.
///
/// # Safety
/// The caller owns `h`.
#[cfg(any(test, feature = "validate"))]
pub(crate) unsafe fn check(h: *mut Heap) -> Result<(), &'static str> {
    // SAFETY: we own `h` and its spans.
    unsafe {
        let a = &(*h).arena;
        let mut bytes = 0;
        let mut s = a.spans;
        while !s.is_null() {
            if (*s).kind != ARENA || heap::owner_of(s) != h {
                return Err("arena span list holds a foreign or non-arena span");
            }
            let mut b = (*s).start;
            while b < (*s).end() {
                let n = size_at(b);
                if n < 16 || n % 16 != 0 || b + n > (*s).end() {
                    return Err("arena block size breaks the span's tiling");
                }
                b += n;
            }
            bytes += (*s).bytes();
            s = (*s).next;
        }
        if bytes != a.bytes {
            return Err("arena bytes != sum of its spans");
        }
        let mut binned = 0;
        for i in 0..NBINS {
            let mut p = a.bins[i];
            if !p.is_null() && a.bitmap & (1 << i) == 0 {
                return Err("non-empty arena bin without its bitmap bit");
            }
            while !p.is_null() {
                let b = p as usize - HDR;
                if *hdr(b) & FREE_BIT != 0 || floor_bin(*hdr(b)) != i || *hdr_bin(b) != i {
                    return Err("arena block in the wrong bin or marked");
                }
                binned += *hdr(b);
                p = (*p).next;
            }
        }
        if binned != a.binned {
            return Err("arena binned != bytes in the bins");
        }
        if a.victim != 0 && *hdr(a.victim) & FREE_BIT == 0 {
            return Err("arena victim not marked free");
        }
        let mut b = a.large;
        while b != 0 {
            if *hdr(b) & FREE_BIT == 0 || size_at(b) < LARGE_MIN {
                return Err("arena large-list block unmarked or small");
            }
            b = link(b);
        }
    }
    Ok(())
}
