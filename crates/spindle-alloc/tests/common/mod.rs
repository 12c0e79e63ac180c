//! Helpers shared by the integration tests: a seeded PRNG and pattern fill/check.
#![allow(dead_code)]
use spindle_alloc as sa;

/// xorshift64*: deterministic per seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Mostly small sizes, some medium, a few large: the mix the stress tests use.
    pub fn size(&mut self) -> usize {
        match self.below(100) {
            0..=79 => 1 + self.below(256) as usize,
            80..=94 => 1 + self.below(8192) as usize,
            95..=98 => 1 + self.below(200_000) as usize,
            _ => 1 + self.below(1_500_000) as usize,
        }
    }
}

/// Bytes checked at each end of a block (whole block when smaller); fewer under Miri, which
/// interprets every byte access.
const EDGE: usize = if cfg!(miri) { 8 } else { 64 };

fn byte(tag: u64, i: usize) -> u8 {
    (tag as u8).wrapping_add((i as u8).wrapping_mul(31)) ^ (tag >> 8) as u8
}

/// Fills the first and last `EDGE` bytes of `p[..n]` with a pattern derived from `tag`.
pub unsafe fn fill(p: *mut u8, n: usize, tag: u64) {
    for i in (0..n.min(EDGE)).chain(n.saturating_sub(EDGE)..n) {
        // SAFETY: i < n, inside the block the caller lends.
        unsafe { *p.add(i) = byte(tag, i) };
    }
}

/// Checks the pattern `fill` wrote; panics with the position on a mismatch.
pub unsafe fn check(p: *const u8, n: usize, tag: u64) {
    for i in (0..n.min(EDGE)).chain(n.saturating_sub(EDGE)..n) {
        // SAFETY: i < n, inside the block the caller lends.
        let b = unsafe { *p.add(i) };
        assert_eq!(b, byte(tag, i), "corruption at byte {i} of a {n}-byte block (tag {tag:#x})");
    }
}

/// The sizes of one out-of-memory scenario (`oom_scenario`): the full-size test and the
/// Miri-sized one run the same steps at different scales.
pub struct OomScale {
    /// The cap on what the allocator takes from the platform.
    pub cap: usize,
    /// How many 1000-byte blocks must fit under the cap, at least and at most.
    pub blocks: core::ops::Range<usize>,
    /// A request larger than anything left (malloc, calloc, realloc of the last block).
    pub too_big: usize,
    /// An alignment that cannot be served any more.
    pub huge_align: usize,
    /// After freeing half: a large block and a zeroed block that must be served again.
    pub big_again: usize,
    pub zeroed_again: usize,
    /// Small blocks served again, and how many of the oldest blocks are checked at the end.
    pub refills: usize,
    pub checked: usize,
}

/// Out of memory: with `s.cap`, every allocation path returns null once the cap is reached,
/// realloc leaves the old block intact, and after frees the allocator serves requests again
/// (freed slabs coalesce into a large span after a flush). The cap is global: call it from a
/// test binary of its own.
pub fn oom_scenario(s: &OomScale) {
    sa::set_memory_limit(s.cap);
    let mut blocks = Vec::new();
    loop {
        // SAFETY: checked below.
        let p = unsafe { sa::alloc(1000, 16) };
        if p.is_null() {
            break;
        }
        // SAFETY: 1000 bytes are ours.
        unsafe { fill(p, 1000, blocks.len() as u64) };
        blocks.push(p);
        assert!(blocks.len() < s.blocks.end, "the cap of {} bytes is not enforced", s.cap);
    }
    assert!(blocks.len() >= s.blocks.start, "only {} blocks fit under the cap", blocks.len());
    // SAFETY: failing calls return null and touch nothing; `last` is live.
    unsafe {
        assert!(sa::alloc(s.too_big, 16).is_null());
        assert!(sa::alloc_zeroed(s.too_big, 16).is_null());
        assert!(sa::alloc(100, s.huge_align).is_null());
        let last = *blocks.last().unwrap();
        assert!(sa::realloc(last, s.too_big, 16).is_null());
        check(last, 1000, blocks.len() as u64 - 1);
    }
    sa::validate_pool().unwrap();
    sa::validate_heap().unwrap();
    // Free the newer half: whole slabs empty and, after a flush, coalesce for a large span.
    for p in blocks.split_off(blocks.len() / 2) {
        // SAFETY: our blocks, freed once.
        unsafe { sa::free(p) };
    }
    sa::thread_flush();
    // SAFETY: pointers are live where used and freed once.
    unsafe {
        let big = sa::alloc(s.big_again, 16);
        assert!(!big.is_null(), "freed slabs not reused for a large span");
        fill(big, s.big_again, 7);
        let z = sa::alloc_zeroed(s.zeroed_again, 16);
        assert!(!z.is_null());
        assert!((0..s.zeroed_again).all(|i| *z.add(i) == 0));
        sa::free(z);
        sa::free(big);
        for _ in 0..s.refills {
            let p = sa::alloc(1000, 16);
            assert!(!p.is_null(), "small blocks not served after frees");
            fill(p, 1000, blocks.len() as u64);
            blocks.push(p);
        }
    }
    for (i, p) in blocks.iter().enumerate().take(s.checked) {
        // SAFETY: the oldest blocks still hold their pattern.
        unsafe { check(*p, 1000, i as u64) };
    }
    for p in blocks {
        // SAFETY: our blocks, freed once.
        unsafe { sa::free(p) };
    }
    sa::validate_pool().unwrap();
    sa::validate_heap().unwrap();
}
