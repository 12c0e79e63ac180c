//! The span pool: the global store of memory. It owns the region's free spans (binned by length,
//! coalesced with free neighbours), grows the region through the platform layer, and hands out
//! span records and other metadata (heap records, chunk-map leaves).
//!
//! Every function here runs with `POOL`'s lock held; the lock is taken only on slow paths (a slab
//! runs dry, a large allocation, a thread starts or exits), never per block.
//!
//! Invariants (checked by `validate`):
//! - free spans never touch each other (freed spans coalesce with free neighbours);
//! - a free span of `n` chunks is in bin `bin_of(n)`, and bit `bin_of(n)` of `nonempty` is set iff
//!   that bin is non-empty;
//! - `committed == Σ bytes obtained from the platform`; `large_bytes == Σ bytes of LARGE spans`;
//!   `slab_bytes == Σ bytes of SLAB and ARENA spans`; `free_bytes == Σ bytes of binned free spans`;
//!   `meta_bytes == Σ bytes grown for metadata`; so `committed == meta_bytes + slab_bytes +
//!   large_bytes + free_bytes` (every byte the pool got is in exactly one of them).

use crate::chunk_map;
use crate::lock::SpinLock;
use crate::platform::{self, CHUNK, CHUNK_SHIFT, GROW_CHUNKS};
use crate::span::{Span, ARENA, FREE, SLAB};
use core::ptr::null_mut;

/// Bytes a metadata area keeps beyond the request: two span records and rounding.
const META_SLACK: usize = 256;
/// The first metadata area: 10 KiB (two heap records, a leaf and some 40 span records: what a
/// program with one thread besides main takes) rather than a whole 64 KiB page.
const FIRST_META_AREA: usize = 10 << 10;
/// Smallest later metadata area.
const META_AREA: usize = 16 << 10;

/// Bins 0..EXACT hold spans of exactly `i + 1` chunks; the last bin holds longer ones.
const EXACT: usize = 31;
const NBINS: usize = EXACT + 1;

pub(crate) struct Pool {
    bins: [*mut Span; NBINS],
    nonempty: u32,
    /// One past the highest chunk index the pool got from the platform.
    end_chunk: usize,
    /// Free span records.
    free_records: *mut Span,
    /// Metadata bump area.
    meta: usize,
    meta_end: usize,
    /// The initial memory's free end (`platform::initial_free`) was looked at (it is taken once,
    /// as the first metadata area and a free span).
    initial_taken: bool,
    pub(crate) committed: usize,
    pub(crate) peak_committed: usize,
    pub(crate) large_bytes: usize,
    pub(crate) slab_bytes: usize,
    pub(crate) free_bytes: usize,
    pub(crate) meta_bytes: usize,
}

// SAFETY: only used behind the spin lock.
unsafe impl Send for Pool {}

pub(crate) static POOL: SpinLock<Pool> = SpinLock::new(Pool {
    bins: [null_mut(); NBINS],
    nonempty: 0,
    end_chunk: 0,
    free_records: null_mut(),
    meta: 0,
    meta_end: 0,
    initial_taken: false,
    committed: 0,
    peak_committed: 0,
    large_bytes: 0,
    slab_bytes: 0,
    free_bytes: 0,
    meta_bytes: 0,
});

#[inline]
fn bin_of(chunks: usize) -> usize {
    if chunks <= EXACT {
        chunks - 1
    } else {
        EXACT
    }
}

#[inline]
fn idx(addr: usize) -> usize {
    (addr - platform::base()) >> CHUNK_SHIFT
}

impl Pool {
    // ---- platform memory ----

    /// Grows the region by at least `chunks` (rounded up to whole wasm pages); returns the start
    /// address and the number of chunks obtained. Counts them as committed.
    fn os_grow(&mut self, chunks: usize) -> Option<(usize, usize)> {
        let chunks = chunks.checked_add(GROW_CHUNKS - 1)? / GROW_CHUNKS * GROW_CHUNKS;
        // SAFETY: pool lock held (we are in a `&mut Pool`).
        let p = unsafe { platform::grow(chunks)? };
        let end = idx(p) + chunks;
        // Chunk map leaves for the new range (allocated after the range is known; a leaf may come
        // from the range's own first chunk via `meta_alloc`, which is fine: it is then metadata).
        let mut c = idx(p);
        while c < end {
            if !chunk_map::has_leaf(c) && !self.new_leaf(c) {
                return None;
            }
            c = (c | 255) + 1;
        }
        self.committed += chunks * CHUNK;
        if self.committed > self.peak_committed {
            self.peak_committed = self.committed;
        }
        if end > self.end_chunk {
            self.end_chunk = end;
        }
        Some((p, chunks))
    }

    fn new_leaf(&mut self, c: usize) -> bool {
        let leaf = self.meta_alloc(chunk_map::LEAF_BYTES);
        if leaf.is_null() {
            return false;
        }
        // A metadata refill inside `meta_alloc` may have installed this very leaf (for the free
        // rest of its pages, `rest_to_pool`): never replace a leaf, its entries are live.
        if chunk_map::has_leaf(c) {
            return true;
        }
        // SAFETY: lock held; fresh zeroed metadata, never freed.
        unsafe { chunk_map::install_leaf(c, leaf) };
        true
    }

    /// Bump-allocates `bytes` (rounded to 64) of zeroed, never-freed metadata; null when out of memory.
    pub(crate) fn meta_alloc(&mut self, bytes: usize) -> *mut u8 {
        let bytes = (bytes + 63) & !63;
        if self.meta_end - self.meta < bytes && !self.meta_refill(bytes) {
            return null_mut();
        }
        let p = self.meta;
        self.meta += bytes;
        p as *mut u8
    }

    /// A new metadata area for a request of `bytes`: the first one is the free end of the initial
    /// memory when that is long enough; otherwise the platform grows by whole wasm pages. The
    /// area keeps the first chunks of them (`FIRST_META_AREA`, then `META_AREA` or as much as all
    /// metadata so far, and at least the request plus room for the leaf and record the rest
    /// needs), and the rest becomes a free span: a small program pays 10 KiB of metadata, not a
    /// 64 KiB page. Metadata chunks map to nothing: a free() into them is an invalid free. The old
    /// area's tail is left unused.
    fn meta_refill(&mut self, bytes: usize) -> bool {
        // Areas double with the metadata already taken: few areas split the region, however
        // large the heap gets (at most twice the metadata needed).
        let least = if self.meta_bytes == 0 { FIRST_META_AREA } else { META_AREA.max(self.meta_bytes) };
        let keep = (bytes + chunk_map::LEAF_BYTES + META_SLACK).max(least).div_ceil(CHUNK);
        let (p, chunks) = match self.initial_area(keep) {
            Some(area) => area,
            None => {
                let chunks = keep.div_ceil(GROW_CHUNKS) * GROW_CHUNKS;
                // SAFETY: lock held.
                match unsafe { platform::grow(chunks) } {
                    Some(p) => (p, chunks),
                    None => return false,
                }
            }
        };
        self.committed += chunks * CHUNK;
        self.meta_bytes += keep * CHUNK;
        if self.committed > self.peak_committed {
            self.peak_committed = self.committed;
        }
        let end = idx(p) + chunks;
        if end > self.end_chunk {
            self.end_chunk = end;
        }
        self.meta = p;
        self.meta_end = p + keep * CHUNK;
        if chunks > keep {
            self.rest_to_pool(p + keep * CHUNK, chunks - keep);
        }
        true
    }

    /// The first time only: the free end of the initial memory as `(start, chunks)`, when it holds
    /// a metadata area of `keep` chunks (the pool's first metadata refill comes before its first
    /// growth). A shorter one is left unused.
    fn initial_area(&mut self, keep: usize) -> Option<(usize, usize)> {
        if self.initial_taken {
            return None;
        }
        self.initial_taken = true;
        let (start, end) = platform::initial_free();
        let chunks = (end - start) / CHUNK;
        if chunks >= keep {
            Some((start, chunks))
        } else {
            None
        }
    }

    /// Makes the `chunks` fresh chunks at `start` (after a new metadata area) a free span. Its leaf
    /// and record come from that area, which was sized for them; if they cannot be had the chunks
    /// count as metadata (never handed out).
    fn rest_to_pool(&mut self, start: usize, chunks: usize) {
        let c = idx(start);
        let r = if chunk_map::has_leaf(c) || self.new_leaf(c) { self.new_record() } else { null_mut() };
        if r.is_null() {
            self.meta_bytes += chunks * CHUNK;
            return;
        }
        // SAFETY: a fresh record we own; leaves exist for the chunks (one leaf covers the pages).
        unsafe {
            (*r).start = start;
            (*r).chunks = chunks as u32;
            (*r).zeroed = true;
        }
        self.give(r);
    }

    fn new_record(&mut self) -> *mut Span {
        let r = self.free_records;
        if !r.is_null() {
            // SAFETY: records on the free list are valid Span memory we own.
            unsafe {
                self.free_records = (*r).next;
                r.write(Span::empty());
            }
            return r;
        }
        let r = self.meta_alloc(core::mem::size_of::<Span>()) as *mut Span;
        if !r.is_null() {
            // SAFETY: fresh metadata sized and aligned (64) for a Span.
            unsafe { r.write(Span::empty()) };
        }
        r
    }

    fn drop_record(&mut self, r: *mut Span) {
        // SAFETY: `r` is a record no list or map entry refers to any more.
        unsafe { (*r).next = self.free_records };
        self.free_records = r;
    }

    // ---- bins ----

    fn bin_push(&mut self, s: *mut Span) {
        // SAFETY: `s` is a free span record we own under the lock.
        unsafe {
            let b = bin_of((*s).chunks as usize);
            self.free_bytes += (*s).bytes();
            (*s).kind = FREE;
            (*s).prev = null_mut();
            (*s).next = self.bins[b];
            if !self.bins[b].is_null() {
                (*self.bins[b]).prev = s;
            }
            self.bins[b] = s;
            self.nonempty |= 1 << b;
        }
    }

    fn bin_remove(&mut self, s: *mut Span) {
        // SAFETY: `s` is in its bin.
        unsafe {
            let b = bin_of((*s).chunks as usize);
            self.free_bytes -= (*s).bytes();
            if (*s).prev.is_null() {
                self.bins[b] = (*s).next;
            } else {
                (*(*s).prev).next = (*s).next;
            }
            if !(*s).next.is_null() {
                (*(*s).next).prev = (*s).prev;
            }
            if self.bins[b].is_null() {
                self.nonempty &= !(1 << b);
            }
        }
    }

    /// Marks `s` free: map entries (first and last chunk to `s`, interior null) and its bin.
    fn insert_free(&mut self, s: *mut Span) {
        // SAFETY: `s` is a record we own; its chunks' leaves exist.
        unsafe {
            let first = idx((*s).start);
            let last = first + (*s).chunks as usize - 1;
            chunk_map::set(first, s);
            chunk_map::set(last, s);
            self.bin_push(s);
        }
    }

    /// Smallest free span with at least `chunks` chunks, removed from its bin.
    fn find(&mut self, chunks: usize) -> *mut Span {
        let b = bin_of(chunks);
        let mask = self.nonempty & !((1u32 << b) - 1);
        if mask == 0 {
            return null_mut();
        }
        let b = mask.trailing_zeros() as usize;
        let mut s = self.bins[b];
        if b == EXACT {
            // Best fit among the long spans.
            let mut best: *mut Span = null_mut();
            // SAFETY: walking our own bin list.
            unsafe {
                while !s.is_null() {
                    if (*s).chunks as usize >= chunks && (best.is_null() || (*s).chunks < (*best).chunks) {
                        best = s;
                    }
                    s = (*s).next;
                }
            }
            if best.is_null() {
                return null_mut();
            }
            s = best;
        }
        self.bin_remove(s);
        s
    }

    /// Splits `s` (not in any bin) so it keeps its first `chunks` chunks; the rest goes back free.
    /// The remainder's right neighbour is not free (free spans never touch), so no coalescing.
    fn trim(&mut self, s: *mut Span, chunks: usize) -> bool {
        // SAFETY: `s` is a record we own.
        unsafe {
            let have = (*s).chunks as usize;
            if have == chunks {
                return true;
            }
            let r = self.new_record();
            if r.is_null() {
                return false;
            }
            (*r).start = (*s).start + chunks * CHUNK;
            (*r).chunks = (have - chunks) as u32;
            (*r).zeroed = (*s).zeroed;
            (*s).chunks = chunks as u32;
            // The old last entry now lies inside `s`'s used part or the remainder; fix both ends.
            self.insert_free(r);
            true
        }
    }

    /// Takes a free span of `chunks` chunks without growing the region; null when no free span is
    /// long enough. The span's map entries are not set (see `take`).
    pub(crate) fn take_free(&mut self, chunks: usize) -> *mut Span {
        let s = self.find(chunks);
        if !s.is_null() && !self.trim(s, chunks) {
            self.give(s);
            return null_mut();
        }
        s
    }

    /// Takes a span of `chunks` chunks whose start is aligned to `align_chunks` chunks. The span's
    /// map entries are not set (the caller sets them with `claim`). Null when out of memory.
    pub(crate) fn take(&mut self, chunks: usize, align_chunks: usize) -> *mut Span {
        let want = match chunks.checked_add(align_chunks - 1) {
            Some(w) => w,
            None => return null_mut(),
        };
        let mut s = self.find(want);
        if s.is_null() {
            s = self.grow_span(want);
            if s.is_null() {
                return null_mut();
            }
        }
        // SAFETY: `s` is a record we own, removed from the bins.
        unsafe {
            if align_chunks > 1 {
                let a = align_chunks * CHUNK;
                let aligned = ((*s).start + a - 1) & !(a - 1);
                let pre = (aligned - (*s).start) / CHUNK;
                if pre > 0 {
                    // Keep the prefix free: split it off as its own free span (merged with a free
                    // left neighbour: a span fresh from `grow_span` may have one).
                    let r = self.new_record();
                    if r.is_null() {
                        self.give(s);
                        return null_mut();
                    }
                    (*r).start = aligned;
                    (*r).chunks = (*s).chunks - pre as u32;
                    (*r).zeroed = (*s).zeroed;
                    (*s).chunks = pre as u32;
                    self.give(s);
                    s = r;
                }
            }
            if !self.trim(s, chunks) {
                self.give(s);
                return null_mut();
            }
        }
        s
    }

    /// A free span of at least `chunks` chunks made by growing the region, merged with the free
    /// span at the region's top when the platform hands out contiguous memory.
    fn grow_span(&mut self, chunks: usize) -> *mut Span {
        let r = self.new_record();
        if r.is_null() {
            return null_mut();
        }
        // The free span at the top of the region, if any, can be extended instead of left behind.
        let mut top: *mut Span = null_mut();
        if self.end_chunk > 0 {
            let t = chunk_map::get(self.end_chunk - 1);
            // SAFETY: map entries are valid records.
            if !t.is_null() && unsafe { (*t).kind == FREE && (*t).chunks as usize <= chunks } {
                top = t;
            }
        }
        // SAFETY: records are ours.
        let have = if top.is_null() { 0 } else { unsafe { (*top).chunks as usize } };
        let expect_at = self.end_chunk;
        let (p, got) = match self.os_grow(chunks - have) {
            Some(g) => g,
            None => {
                self.drop_record(r);
                return null_mut();
            }
        };
        // SAFETY: records are ours.
        unsafe {
            if !top.is_null() && idx(p) == expect_at {
                self.bin_remove(top);
                chunk_map::set(idx((*top).start) + have - 1, null_mut());
                (*top).chunks = (have + got) as u32;
                (*top).zeroed = false; // conservatively: part of it was used before
                self.drop_record(r);
                return top;
            }
            (*r).start = p;
            (*r).chunks = got as u32;
            (*r).zeroed = true;
            if got >= chunks {
                return r;
            }
            // Someone else grew memory in between (the program itself, or a metadata area taken
            // while this span was being made): keep what we got as a free span, merged with a
            // free neighbour, and grow the full amount.
            self.give(r);
            let r2 = self.new_record();
            if r2.is_null() {
                return null_mut();
            }
            match self.os_grow(chunks) {
                Some((p2, got2)) => {
                    (*r2).start = p2;
                    (*r2).chunks = got2 as u32;
                    (*r2).zeroed = true;
                    r2
                }
                None => {
                    self.drop_record(r2);
                    null_mut()
                }
            }
        }
    }

    /// Points every chunk of `s` at `s` (it becomes a slab or large span).
    pub(crate) fn claim(&mut self, s: *mut Span) {
        // SAFETY: `s` is ours, leaves exist for its chunks.
        unsafe {
            let first = idx((*s).start);
            for c in first..first + (*s).chunks as usize {
                chunk_map::set(c, s);
            }
            if (*s).kind == SLAB || (*s).kind == ARENA {
                self.slab_bytes += (*s).bytes();
            }
        }
    }

    /// Returns span `s` (slab or large, or a free span not in a bin) to the free bins, merging it
    /// with free neighbours.
    pub(crate) fn give(&mut self, mut s: *mut Span) {
        // SAFETY: `s` and its neighbours' records are ours under the lock.
        unsafe {
            let first = idx((*s).start);
            let n = (*s).chunks as usize;
            for c in first..first + n {
                chunk_map::set(c, null_mut());
            }
            if (*s).kind == SLAB || (*s).kind == ARENA {
                self.slab_bytes -= (*s).bytes();
            }
            (*s).kind = FREE;
            (*s).heap = core::sync::atomic::AtomicPtr::new(null_mut());
            (*s).heapless = false;
            if first > 0 {
                let left = chunk_map::get(first - 1);
                if !left.is_null() && (*left).kind == FREE && (*left).end() == (*s).start {
                    self.bin_remove(left);
                    chunk_map::set(first - 1, null_mut());
                    (*left).chunks += (*s).chunks;
                    (*left).zeroed &= (*s).zeroed;
                    self.drop_record(s);
                    s = left;
                }
            }
            let after = first + n;
            if after < self.end_chunk {
                let right = chunk_map::get(after);
                if !right.is_null() && (*right).kind == FREE && (*right).start == (*s).end() {
                    self.bin_remove(right);
                    chunk_map::set(after, null_mut());
                    (*s).chunks += (*right).chunks;
                    (*s).zeroed &= (*right).zeroed;
                    self.drop_record(right);
                }
            }
            self.insert_free(s);
        }
    }

    /// Tries to extend LARGE span `s` in place to `chunks` chunks by taking the free span after it.
    pub(crate) fn extend(&mut self, s: *mut Span, chunks: usize) -> bool {
        // SAFETY: `s` is a live large span; records are ours.
        unsafe {
            let have = (*s).chunks as usize;
            let after = idx((*s).start) + have;
            if after >= self.end_chunk {
                // At the top of the region: grow it, if the platform's memory comes out contiguous.
                let r = self.new_record();
                if r.is_null() {
                    return false;
                }
                let (p, got) = match self.os_grow(chunks - have) {
                    Some(g) => g,
                    None => {
                        self.drop_record(r);
                        return false;
                    }
                };
                (*r).start = p;
                (*r).chunks = got as u32;
                (*r).zeroed = true;
                if p != (*s).end() {
                    // Not contiguous (a metadata area may have been grown in between): keep it
                    // free, merged with a free neighbour.
                    self.give(r);
                    return false;
                }
                // Keep what is needed, the rest of the grown pages becomes a free span.
                let add = chunks - have;
                for c in after..after + add {
                    chunk_map::set(c, s);
                }
                (*s).chunks = chunks as u32;
                self.large_bytes += add * CHUNK;
                if got > add {
                    (*r).start = p + add * CHUNK;
                    (*r).chunks = (got - add) as u32;
                    self.insert_free(r);
                } else {
                    self.drop_record(r);
                }
                return true;
            }
            let right = chunk_map::get(after);
            if right.is_null() || (*right).kind != FREE || (*right).start != (*s).end() {
                return false;
            }
            if have + ((*right).chunks as usize) < chunks {
                return false;
            }
            self.bin_remove(right);
            if !self.trim(right, chunks - have) {
                self.bin_push(right);
                return false;
            }
            let add = (*right).chunks as usize;
            for c in after..after + add {
                chunk_map::set(c, s);
            }
            (*s).chunks += add as u32;
            self.large_bytes += add * CHUNK;
            self.drop_record(right);
            true
        }
    }

    /// Shrinks LARGE span `s` in place to `chunks` chunks, giving the tail back.
    pub(crate) fn shrink(&mut self, s: *mut Span, chunks: usize) {
        // SAFETY: `s` is a live large span; records are ours.
        unsafe {
            let have = (*s).chunks as usize;
            if chunks >= have {
                return;
            }
            let r = self.new_record();
            if r.is_null() {
                return;
            }
            (*r).start = (*s).start + chunks * CHUNK;
            (*r).chunks = (have - chunks) as u32;
            (*s).chunks = chunks as u32;
            self.large_bytes -= (have - chunks) * CHUNK;
            self.give(r);
        }
    }

    /// One past the highest address the pool got from the platform: every span and record the
    /// pool hands out lies below it, or in memory the calling thread grows itself.
    #[inline]
    pub(crate) fn top(&self) -> usize {
        platform::base() + self.end_chunk * CHUNK
    }

    #[cfg(any(test, feature = "validate"))]
    pub(crate) fn end_chunk(&self) -> usize {
        self.end_chunk
    }

    #[cfg(any(test, feature = "validate"))]
    pub(crate) fn bins(&self) -> (&[*mut Span; NBINS], u32) {
        (&self.bins, self.nonempty)
    }
}

#[cfg(any(test, feature = "validate"))]
pub(crate) fn bin_index(chunks: usize) -> usize {
    bin_of(chunks)
}
