//! The consistency checker: walks the pool, the chunk map and the calling thread's heap and checks
//! the invariants written on `Pool`, `chunk_map`, `Span` and `Heap`. Compiled only for tests and
//! with the `validate` feature (fuzzing, guest tests). Returns the first broken invariant.

use crate::arena;
use crate::chunk_map;
use crate::heap::{self, Heap};
use crate::lifecycle;
use crate::platform::{self, CHUNK};
use crate::pool::{bin_index, POOL};
use crate::size_class::{CLASSES, NUM_CLASSES};
use crate::span::{Block, Span, ARENA, FREE, LARGE, NOTIFY, SLAB};
use core::sync::atomic::Ordering;

macro_rules! check {
    ($c:expr, $msg:expr) => {
        if !$c {
            return Err($msg);
        }
    };
}

/// Checks the pool and the chunk map. Safe to call while other threads allocate.
pub fn validate_pool() -> Result<(), &'static str> {
    let pool = POOL.lock();
    let end = pool.end_chunk();
    let base = platform::base();
    let mut large = 0usize;
    let mut slab_bytes = 0usize;
    let mut free_bytes = 0usize;
    let mut prev_free_end = usize::MAX;
    let mut i = 0;
    // SAFETY: records reachable from the map are valid; the lock keeps them still (owner-only
    // fields of slabs are not read).
    unsafe {
        while i < end {
            let s = chunk_map::get(i);
            if s.is_null() {
                i += 1;
                continue;
            }
            check!((*s).start == base + i * CHUNK, "span record start does not match its first chunk");
            let n = (*s).chunks as usize;
            check!(n >= 1 && i + n <= end, "span length out of region");
            match (*s).kind {
                FREE => {
                    check!(chunk_map::get(i + n - 1) == s, "free span's last chunk not mapped to it");
                    for c in i + 1..i + n - 1 {
                        check!(chunk_map::get(c).is_null(), "free span interior chunk mapped");
                    }
                    check!(prev_free_end != i, "two adjacent free spans (not coalesced)");
                    free_bytes += n * CHUNK;
                    prev_free_end = i + n;
                    let (bins, nonempty) = pool.bins();
                    let b = bin_index(n);
                    check!(nonempty & (1 << b) != 0, "nonempty bit clear for a used bin");
                    let mut f = bins[b];
                    while !f.is_null() && f != s {
                        f = (*f).next;
                    }
                    check!(f == s, "free span not in its bin");
                }
                ARENA => {
                    for c in i..i + n {
                        check!(chunk_map::get(c) == s, "chunk of an arena span not mapped to it");
                    }
                    slab_bytes += n * CHUNK;
                    check!(!(*s).heap.load(Ordering::Relaxed).is_null(), "arena span without heap");
                }
                SLAB | LARGE => {
                    for c in i..i + n {
                        check!(chunk_map::get(c) == s, "chunk of an in-use span not mapped to it");
                    }
                    if (*s).kind == LARGE {
                        large += n * CHUNK;
                    } else {
                        slab_bytes += n * CHUNK;
                        let cl = (*s).class as usize;
                        check!(cl < NUM_CLASSES, "slab class out of range");
                        check!((*s).block_size == CLASSES[cl].size, "slab block size != class size");
                        check!(
                            (*s).chunks == CLASSES[cl].chunks || (*s).chunks == CLASSES[cl].first_chunks,
                            "slab length is neither of its class's slab lengths"
                        );
                        check!(!(*s).heap.load(Ordering::Relaxed).is_null(), "slab without heap");
                    }
                }
                _ => return Err("span of unknown kind"),
            }
            i += n;
        }
        check!(large == pool.large_bytes, "large_bytes != sum of large spans");
        check!(slab_bytes == pool.slab_bytes, "slab_bytes != sum of slabs");
        check!(free_bytes == pool.free_bytes, "free_bytes != sum of free spans");
        check!(
            pool.committed == pool.meta_bytes + pool.slab_bytes + pool.large_bytes + pool.free_bytes,
            "committed != metadata + slabs + large + free"
        );
        let (bins, nonempty) = pool.bins();
        for (b, &head) in bins.iter().enumerate() {
            check!(head.is_null() == (nonempty & (1 << b) == 0), "nonempty bit disagrees with bin");
            let mut f = head;
            while !f.is_null() {
                check!((*f).kind == FREE, "non-free span in a bin");
                check!(bin_index((*f).chunks as usize) == b, "span in the wrong bin");
                check!(chunk_map::get((*f).start.wrapping_sub(base) / CHUNK) == f, "binned span not mapped");
                f = (*f).next;
            }
        }
    }
    Ok(())
}

/// Checks the calling thread's heap: list membership and, for every slab,
/// `used + |free| + bump_left == capacity`, `|thread_free| <= used`, free blocks on block
/// boundaries inside the slab, no block twice.
pub fn validate_heap() -> Result<(), &'static str> {
    let h = lifecycle::current();
    if h.is_null() {
        return Ok(());
    }
    // SAFETY: we own our heap and its slabs; thread_free is read atomically.
    unsafe {
        for c in 0..NUM_CLASSES {
            let mut s = (*h).fast[c];
            if s == heap::empty() {
                check!((*heap::empty()).free.is_null(), "EMPTY span was written");
                s = core::ptr::null_mut();
            }
            check!(s.is_null() || (*s).prev.is_null(), "available head has a prev");
            let mut slabs = 0;
            while !s.is_null() {
                check!(!(*s).in_full, "available slab marked full");
                check_slab(h, s, c)?;
                check!((*s).next.is_null() || (*(*s).next).prev == s, "broken available list links");
                slabs += 1;
                s = (*s).next;
            }
            let mut s = (*h).full[c];
            while !s.is_null() {
                check!((*s).in_full, "full-list slab not marked full");
                check_slab(h, s, c)?;
                slabs += 1;
                s = (*s).next;
            }
            check!(slabs == (*h).slabs[c], "slabs[c] != the slabs in class c's lists");
        }
        let mut n = 0;
        let mut s = (*h).spares;
        while !s.is_null() {
            check!((*s).kind == SLAB && (*s).used == 0, "spare slab in use");
            check!(heap::owner_of(s) == h, "spare slab of another heap");
            check!((*s).thread_free.load(Ordering::Relaxed) == 0, "spare slab with pending frees");
            n += 1;
            s = (*s).next;
        }
        check!(n == (*h).spare_count, "spare_count != number of spares");
        arena::check(h)?;
    }
    Ok(())
}

unsafe fn check_slab(h: *mut Heap, s: *mut Span, c: usize) -> Result<(), &'static str> {
    // SAFETY: caller owns the slab.
    unsafe {
        check!((*s).kind == SLAB, "heap list holds a non-slab");
        check!((*s).class as usize == c, "slab in the wrong class list");
        check!(heap::owner_of(s) == h, "slab in a foreign heap's list");
        check!(chunk_map::lookup((*s).start) == s, "slab not mapped");
        let bs = (*s).block_size as usize;
        let cap = (*s).capacity as usize;
        let mut seen = [0u64; 64]; // capacity <= 4096 blocks
        check!(cap <= 4096, "capacity above 4096");
        let mut nfree = 0usize;
        let mut f = (*s).free;
        while !f.is_null() {
            let off = (f as usize).wrapping_sub((*s).start);
            check!(off < cap * bs && off % bs == 0, "free-list block outside the slab or misaligned");
            check!(off < (*s).bump - (*s).start, "free-list block in the uncarved bump region");
            let k = off / bs;
            check!(seen[k / 64] & (1 << (k % 64)) == 0, "block twice in the free list (double free)");
            seen[k / 64] |= 1 << (k % 64);
            nfree += 1;
            f = (*f).next;
        }
        let bump_left = ((*s).bump_end - (*s).bump) / bs;
        check!((*s).used as usize + nfree + bump_left == cap, "used + |free| + bump_left != capacity");
        let tf = (*s).thread_free.load(Ordering::Acquire);
        check!(tf & NOTIFY == 0 || (*s).in_full, "NOTIFY set on an available slab");
        let mut ntf = 0usize;
        let mut t = (tf & !NOTIFY) as *mut Block;
        while !t.is_null() {
            ntf += 1;
            check!(ntf <= (*s).used as usize, "|thread_free| > used");
            t = (*t).next;
        }
    }
    Ok(())
}
