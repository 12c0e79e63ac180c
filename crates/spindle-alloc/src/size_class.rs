//! Size classes: the sizes a slab block can have, and how many 2 KiB chunks a slab of each class
//! spans.
//!
//! Classes are multiples of 16 up to 128 bytes, then 8 classes per doubling,
//! `class_size = (9 + sub) << (g + 4)`, so rounding a request up to its class wastes at most
//! 1/9 (11.1%) of the block for requests above 128 bytes. Blocks are at least 16-aligned (C's
//! `max_align_t` on wasm32). A slab's tail, the bytes no whole block fits in, is at most 1/8 of
//! the slab. A class has two slab lengths:
//! - `first_chunks`, the shortest such slab: a heap's first slab of the class (`slab::SHORT_SLABS`;
//!   every class a thread uses costs it at least one slab, so a class it uses a little costs
//!   2-6 KiB, not a full slab), and any slab when the pool has no free span of full length
//!   (before the memory grows);
//! - `chunks`, for the slabs after those: one 2 KiB chunk for classes of which it holds `MIN_BLOCKS`
//!   blocks, whole 8 KiB units above (fewer slow paths for a busy class; spare slabs, reused by
//!   any class of the same length, come in few lengths).
//!
//! Slabs start on a chunk boundary, so a class that is a multiple of `align` (`align <= CHUNK`)
//! has aligned blocks: aligned allocation picks such a class.
//!
//! Invariant (checked by the unit tests below): for every class `c` and both lengths `n`,
//! `n * CHUNK - (n * CHUNK / size(c)) * size(c) <= n * CHUNK / 8`, at least one block fits, and
//! `first_chunks(c) <= chunks(c)`.

use crate::platform::CHUNK;

/// Block alignment every class guarantees.
pub(crate) const MIN_ALIGN: usize = 16;
/// Largest request served from slabs; larger ones get whole spans of chunks (waste <= 1/8).
pub(crate) const SLAB_MAX: usize = 512 * 1024;
/// Number of classes: 8 linear ones, then 8 per doubling from 256 B to 512 KiB.
pub(crate) const NUM_CLASSES: usize = 8 + 8 * 12;

/// The class of a request of `size` bytes, `size <= SLAB_MAX`.
#[inline(always)]
pub(crate) const fn class_of(size: usize) -> usize {
    if size <= 128 {
        if size == 0 {
            0
        } else {
            (size - 1) >> 4
        }
    } else {
        let w = size - 1;
        let b = (usize::BITS - 1 - w.leading_zeros()) as usize; // top bit, >= 7
        let sub = (w >> (b - 3)) & 7;
        8 + (b - 7) * 8 + sub
    }
}

/// The block size of class `c`.
pub(crate) const fn class_size(c: usize) -> usize {
    if c < 8 {
        (c + 1) * 16
    } else {
        let g = (c - 8) / 8;
        let sub = (c - 8) % 8;
        (9 + sub) << (g + 4)
    }
}

/// Static facts about one class.
#[derive(Clone, Copy)]
pub(crate) struct ClassInfo {
    pub(crate) size: u32,
    /// Chunks of a heap's slabs of this class after its first one.
    pub(crate) chunks: u32,
    /// Chunks of a heap's first slab of this class (the shortest slab the tail rule allows).
    pub(crate) first_chunks: u32,
}

/// Whether a slab of `bytes` holds a block of `size` with a tail of at most 1/8.
const fn fits(bytes: usize, size: usize) -> bool {
    bytes >= size && bytes % size <= bytes / 8
}

const fn first_chunks(size: usize) -> usize {
    let mut n = 1;
    while !fits(n * CHUNK, size) {
        n += 1;
    }
    n
}

const fn slab_chunks(size: usize) -> usize {
    if CHUNK / size >= MIN_BLOCKS {
        return 1;
    }
    let unit = SLAB_UNIT / CHUNK;
    let mut n = unit;
    while !fits(n * CHUNK, size) {
        n += unit;
    }
    n
}

const fn build() -> [ClassInfo; NUM_CLASSES] {
    let mut t = [ClassInfo { size: 0, chunks: 0, first_chunks: 0 }; NUM_CLASSES];
    let mut c = 0;
    while c < NUM_CLASSES {
        let size = class_size(c);
        t[c] = ClassInfo {
            size: size as u32,
            chunks: slab_chunks(size) as u32,
            first_chunks: first_chunks(size) as u32,
        };
        c += 1;
    }
    t
}

/// Small classes (a chunk holds `MIN_BLOCKS` of their blocks) get one-chunk slabs: every class a
/// thread uses costs it one slab, and most of the small ones hold a few blocks. Larger classes get
/// slabs in whole `SLAB_UNIT`s, so that a heap's spare slabs (reused by any class of the same
/// length) come in few lengths.
const MIN_BLOCKS: usize = 8;
/// The slab length unit of the larger classes: 8 KiB.
const SLAB_UNIT: usize = 8192;

pub(crate) static CLASSES: [ClassInfo; NUM_CLASSES] = build();

/// The smallest class whose blocks hold `size` bytes at an alignment of `align`
/// (`MIN_ALIGN < align <= CHUNK`), or None. Slabs start on a chunk boundary and blocks sit at
/// multiples of the class size, so a class that is a multiple of `align` gives aligned blocks.
pub(crate) fn aligned_class(size: usize, align: usize) -> Option<usize> {
    let need = if size > align { size } else { align };
    if need > SLAB_MAX {
        return None;
    }
    let mut c = class_of(need);
    // A power-of-two class >= need exists below SLAB_MAX and is a multiple of align: terminates.
    while c < NUM_CLASSES {
        let s = CLASSES[c].size as usize;
        if s % align == 0 {
            return Some(c);
        }
        c += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_sizes_with_bounded_waste() {
        assert_eq!(class_size(NUM_CLASSES - 1), SLAB_MAX);
        let step = if cfg!(miri) { 61 } else { 1 };
        for size in (1..=SLAB_MAX).step_by(step) {
            let c = class_of(size);
            let s = class_size(c);
            assert!(s >= size, "size {size} class {c} ({s})");
            assert!(c == 0 || class_size(c - 1) < size, "size {size} not in its smallest class");
            if size > 128 {
                assert!((s - size) * 9 <= s, "waste above 1/9 for {size} -> {s}");
            }
        }
        for (c, &i) in CLASSES.iter().enumerate() {
            let size = i.size as usize;
            assert_eq!(size % MIN_ALIGN, 0);
            assert!(
                i.first_chunks >= 1 && i.first_chunks <= i.chunks,
                "class {c}: first slab longer than the others"
            );
            for n in [i.first_chunks as usize, i.chunks as usize] {
                let slab = n * CHUNK;
                assert!(
                    slab >= size && slab - (slab / size) * size <= slab / 8,
                    "class {c}: {n} chunks break the tail rule"
                );
            }
            // The first slab is the shortest the tail rule allows.
            for n in 1..i.first_chunks as usize {
                let slab = n * CHUNK;
                assert!(
                    slab < size || slab % size > slab / 8,
                    "class {c}: a first slab of {n} chunks would do"
                );
            }
            // The others: one chunk holding MIN_BLOCKS blocks, or the fewest whole SLAB_UNITs.
            let slab = i.chunks as usize * CHUNK;
            assert!(
                (i.chunks == 1 && slab / size >= MIN_BLOCKS) || slab % SLAB_UNIT == 0,
                "class {c}: a slab of {slab} bytes is neither one chunk of {MIN_BLOCKS} blocks nor whole units"
            );
            if i.chunks > 1 {
                let less = slab - SLAB_UNIT;
                assert!(less < size || less % size > less / 8, "class {c}: slab longer than needed");
            }
        }
    }

    #[test]
    fn aligned_classes() {
        let mut a = 32;
        while a <= CHUNK {
            for size in [1, a / 2, a, a + 1, 3 * a, 100_000] {
                if let Some(c) = aligned_class(size, a) {
                    assert!(CLASSES[c].size as usize >= size);
                    assert_eq!(CLASSES[c].size as usize % a, 0);
                }
            }
            a *= 2;
        }
    }
}
