//! Helpers shared by the integration tests: a seeded PRNG and pattern fill/check.
#![allow(dead_code)]

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
        unsafe { *p.add(i) = byte(tag, i) };
    }
}

/// Checks the pattern `fill` wrote; panics with the position on a mismatch.
pub unsafe fn check(p: *const u8, n: usize, tag: u64) {
    for i in (0..n.min(EDGE)).chain(n.saturating_sub(EDGE)..n) {
        let b = unsafe { *p.add(i) };
        assert_eq!(
            b,
            byte(tag, i),
            "corruption at byte {i} of a {n}-byte block (tag {tag:#x})"
        );
    }
}
