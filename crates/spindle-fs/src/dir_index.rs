//! A directory's name index: an open-addressing hash table from a name's hash to the
//! position of its entry in `DirData::entries` (`dir.rs`), so a lookup by name costs one hash
//! and, at the loads kept here, one or two probes of adjacent slots before the one name comparison.
//!
//! A slot is 8 bytes: a 32-bit *tag* (the high half of the name hash times a Fibonacci
//! constant) and the entry's position. The table has `2^bits` slots and a tag's home slot is its
//! top `bits` bits, so the tags alone suffice to move slots when the table is resized or a slot
//! is emptied (no name is hashed again). Collisions probe linearly to the next slot.
//!
//! Invariants (checked by [`NameIndex::check`]):
//! - every position `0..len` is in exactly one slot; no other slot is occupied (`EMPTY`);
//! - linear probing: no empty slot lies between an occupied slot and its tag's home slot, so a
//!   search from the home slot that stops at the first empty slot finds the position;
//! - no tombstones: [`NameIndex::remove`] shifts the rest of the cluster back into the hole
//!   (Knuth's algorithm R), so after any removals the table is laid out as some insertion
//!   order of the names present would have left it, never slower than that;
//! - load: `len <= 3/4` of the slots, so a miss (creating a name) scans a short cluster; the
//!   table doubles when an insertion would exceed it (amortized O(1) growth) and is rebuilt at
//!   load at most 1/2 when `len` falls below 1/8 of the slots (every rebuild follows at least
//!   `slots/8` insertions or removals, so it is amortized O(1) too); an index that never held
//!   an entry has no table.
//!
//! The index does not count its entries: positions are dense (`dir.rs`), so the caller passes
//! the count where it matters, and the index is one fat pointer (16 bytes; 8 on wasm32) inside
//! every directory inode.

use alloc::boxed::Box;
use alloc::vec;

/// One slot: a tag and the position of an entry, or `pos == EMPTY`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Slot {
    tag: u32,
    pos: u32,
}

/// `Slot::pos` of an empty slot (positions are below it: an index holds < 2^32 - 1 entries).
const EMPTY: u32 = u32::MAX;
const FREE: Slot = Slot { tag: 0, pos: EMPTY };
/// Smallest table (it holds 3 entries).
const MIN_BITS: u32 = 2;

#[derive(Default)]
pub(crate) struct NameIndex {
    /// `2^bits` slots, or none before the first insertion.
    slots: Box<[Slot]>,
}

/// The tag of a name hash: its high 32 bits after mixing, so the home slot (the top bits of the
/// tag) depends on every bit of the hash.
#[inline]
pub(crate) fn tag_of(hash: u64) -> u32 {
    (hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as u32
}

impl NameIndex {
    #[inline]
    fn bits(&self) -> u32 {
        self.slots.len().trailing_zeros()
    }

    #[inline]
    fn home(&self, tag: u32) -> usize {
        (tag >> (32 - self.bits())) as usize
    }

    #[inline]
    fn next(&self, i: usize) -> usize {
        (i + 1) & (self.slots.len() - 1)
    }

    /// The position whose tag is `tag` and for which `is(pos)` holds, if any.
    #[inline]
    pub(crate) fn find(&self, tag: u32, mut is: impl FnMut(u32) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mut i = self.home(tag);
        loop {
            let s = self.slots[i];
            if s.pos == EMPTY {
                return None;
            }
            if s.tag == tag && is(s.pos) {
                return Some(s.pos);
            }
            i = self.next(i);
        }
    }

    /// The slot holding `pos` (which must be indexed under `tag`).
    fn slot_of(&self, tag: u32, pos: u32) -> usize {
        let mut i = self.home(tag);
        while self.slots[i].pos != pos {
            assert!(self.slots[i].pos != EMPTY, "spindle-fs: directory index lost an entry");
            i = self.next(i);
        }
        i
    }

    /// Indexes `pos` under `tag`: `pos` is the number of entries already indexed, and the
    /// caller has checked that the name is absent.
    pub(crate) fn insert(&mut self, tag: u32, pos: u32) {
        assert!(pos < EMPTY, "spindle-fs: directory index full");
        if (pos as usize + 1) * 4 > self.slots.len() * 3 {
            self.resize(if self.slots.is_empty() { MIN_BITS } else { self.bits() + 1 });
        }
        self.place(Slot { tag, pos });
    }

    /// Puts `s` in the first free slot from its home (there is one: load < 1).
    fn place(&mut self, s: Slot) {
        let mut i = self.home(s.tag);
        while self.slots[i].pos != EMPTY {
            i = self.next(i);
        }
        self.slots[i] = s;
    }

    /// Unindexes `pos` (indexed under `tag`), shifting the rest of its cluster back; `left`
    /// entries stay indexed.
    pub(crate) fn remove(&mut self, tag: u32, pos: u32, left: usize) {
        let mut hole = self.slot_of(tag, pos);
        let mut j = hole;
        loop {
            j = self.next(j);
            let s = self.slots[j];
            if s.pos == EMPTY {
                break;
            }
            // `s` may fill the hole unless its home lies cyclically in (hole, j].
            let home = self.home(s.tag);
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.slots[hole] = s;
                hole = j;
            }
        }
        self.slots[hole] = FREE;
        if self.slots.len() > 1 << MIN_BITS && left * 8 < self.slots.len() {
            self.resize(Self::bits_for(left));
        }
    }

    /// The entry at `from` moved to `to` (both indexed under `tag`).
    pub(crate) fn renumber(&mut self, tag: u32, from: u32, to: u32) {
        let i = self.slot_of(tag, from);
        self.slots[i].pos = to;
    }

    /// The smallest table bits that hold `len` entries at load at most 1/2.
    fn bits_for(len: usize) -> u32 {
        (len * 2).max(1 << MIN_BITS).next_power_of_two().trailing_zeros()
    }

    /// Rebuilds the table with `2^bits` slots.
    fn resize(&mut self, bits: u32) {
        let old = core::mem::replace(&mut self.slots, vec![FREE; 1 << bits].into_boxed_slice());
        for &s in old.iter().filter(|s| s.pos != EMPTY) {
            self.place(s);
        }
    }

    /// Memory of the table, in bytes (for the tests' cost bound).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        core::mem::size_of_val(&*self.slots)
    }

    /// The invariants of the module doc, for `len` entries.
    pub(crate) fn check(&self, len: usize) -> Result<(), &'static str> {
        if self.slots.is_empty() {
            return if len == 0 { Ok(()) } else { Err("name index has entries but no table") };
        }
        let n = self.slots.len();
        if !n.is_power_of_two() || n < 1 << MIN_BITS || len * 4 > n * 3 || (n > 1 << MIN_BITS && len * 8 < n)
        {
            return Err("name index table size or load is out of bounds");
        }
        let mut seen = vec![false; len];
        for (i, s) in self.slots.iter().enumerate().filter(|(_, s)| s.pos != EMPTY) {
            match seen.get_mut(s.pos as usize) {
                Some(b) if !*b => *b = true,
                _ => return Err("name index slot names a missing or repeated position"),
            }
            let mut k = self.home(s.tag);
            while k != i {
                if self.slots[k].pos == EMPTY {
                    return Err("name index slot is cut off from its home by an empty slot");
                }
                k = self.next(k);
            }
        }
        if seen.contains(&false) {
            return Err("name index lacks a position");
        }
        Ok(())
    }
}
