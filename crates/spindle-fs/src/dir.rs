//! Directories: a name -> inode map plus a cookie index that makes `fd_readdir` resumable and
//! stable while other threads add and remove entries.
//!
//! A name's cookie is a 64-bit hash of the name (as ext4's htree does), so it does not depend
//! on when the entry was made: `readdir(cookie)` returns the entries whose cookie is greater, in
//! cookie order, and each entry's `d_next` is its own cookie. A scan that resumes therefore sees
//! every entry that existed throughout the scan exactly once and never shows a name twice, even
//! if the name is removed and created again (or replaced by a rename) during the scan: it keeps
//! its place. `.` is cookie 1 and `..` is 2; entries use 3..=u64::MAX. Two names whose hashes
//! collide take the next free cookie (probing), which only weakens "never twice" for them.
//!
//! Storage: the entries sit once in a vector, indexed twice by position: `by_cookie` (a B-tree,
//! for the ordered scans of `fd_readdir`) and `by_name` (a hash table, `dir_index.rs`), so a
//! lookup costs one hash of the name, a probe or two of adjacent slots and one name comparison
//! (it used to search the B-tree, a few nodes of linear key scans, which was ~10% of a `stat`).
//!
//! Invariants (checked by [`DirData::check`]):
//! - an entry keeps the cookie it got when inserted: `name_cookie(name)`, or when another entry
//!   held that cookie, the next free one after it (wrapping from u64::MAX to 3): it is then
//!   *displaced*. The entry records its cookie, so nothing else needs to know which are;
//! - `by_cookie` maps each entry's cookie, and nothing else, to the entry's position; no cookie
//!   is below 3;
//! - `by_name` indexes each position under its name's hash (`dir_index.rs` states the table's
//!   own invariants) and a name is there once;
//! - `entries` is dense: a removal moves the last entry into the hole and renumbers it in both
//!   indexes; its capacity is at most 4x its length (or 8), so memory follows the size.
//!
//! Memory, besides the name's allocation and the inode (64-bit, measured with a counting
//! allocator; wasm32 in brackets, from the layouts). Before: a `BTreeMap<u64, (name, inode)>`
//! slot of 32 [20] bytes, ~50 [~31] per entry at the B-tree's fill; a 1-entry directory one
//! leaf of 368 [228] bytes. Now: a 32 [24]-byte entry (the vector grows by doubling), a
//! 12-byte B-tree slot (~21 per entry) and an 8-byte hash slot at load 3/8..3/4: 66 B/entry at
//! 1,000 entries [~61], 81 at 100,000 [~72]; a 1-entry directory 328 [~280] bytes; `DirData` itself
//! stays 56 [32] bytes (an empty directory allocates nothing).
//!
//! Other invariants: `subdirs` counts entries that are
//! directories (a directory's nlink is `2 + subdirs`); `removed` is set by rmdir (with the parent
//! and this directory locked) and then the map is empty and stays empty (creating in a removed
//! directory is ENOENT).
//!
//! Thread rules: `data` is locked per the order in `fs.rs` (lookups take a short read,
//! `dir_lock.rs`). `parent` is a leaf lock, written only
//! by a cross-directory rename (which holds the global rename lock), read briefly for `..` in
//! listings and for the ancestry walk of rename.

use crate::dir_index::{tag_of, NameIndex};
use crate::dir_lock::DirLock;
use crate::inode::Inode;
use crate::stripes::Stripes;
use crate::sync::Mutex;
use alloc::boxed::Box;
use alloc::collections::btree_map::{BTreeMap, Entry as Slot};
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;

/// Cookie of the first real entry (after `.` = 1 and `..` = 2).
pub(crate) const FIRST_COOKIE: u64 = 3;

pub(crate) struct Entry {
    cookie: u64,
    name: Box<[u8]>,
    inode: Arc<Inode>,
}

#[derive(Default)]
pub(crate) struct DirData {
    /// Every entry once, in no particular order (the indexes hold positions in it).
    entries: Vec<Entry>,
    /// Position of each entry, by cookie: the order of `fd_readdir`. Boxed on first insertion:
    /// `DirData` sits in every inode's `Kind` (files too), which this keeps at its former size.
    #[allow(clippy::box_collection)] // the box is the point: 8 bytes here instead of 24
    by_cookie: Option<Box<BTreeMap<u64, u32>>>,
    /// Position of each entry, by name hash: lookup.
    by_name: NameIndex,
    pub(crate) subdirs: u32,
    pub(crate) removed: bool,
}
/// A directory node's payload.
pub(crate) struct Dir {
    pub(crate) data: DirLock<DirData>,
    pub(crate) parent: Mutex<Weak<Inode>>,
}

impl Dir {
    pub(crate) fn new(parent: Weak<Inode>, stripes: Arc<Stripes>) -> Dir {
        Dir { data: DirLock::new(DirData::default(), stripes), parent: Mutex::new(parent) }
    }

    pub(crate) fn parent(&self) -> Option<Arc<Inode>> {
        self.parent.lock().upgrade()
    }
}

impl DirData {
    /// The position of `name`, whose hash has tag `tag`, if it is here.
    #[inline]
    fn position(&self, name: &[u8], tag: u32) -> Option<u32> {
        self.by_name.find(tag, |p| *self.entries[p as usize].name == *name)
    }

    #[inline]
    pub(crate) fn get(&self, name: &[u8]) -> Option<&Arc<Inode>> {
        let p = self.position(name, tag_of(name_cookie(name)))?;
        Some(&self.entries[p as usize].inode)
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds `name` (which must be absent) at its hash cookie, or the next free one.
    pub(crate) fn insert(&mut self, name: &[u8], inode: Arc<Inode>) {
        let home = name_cookie(name);
        assert!(
            self.position(name, tag_of(home)).is_none(),
            "spindle-fs: directory insert over an existing name"
        );
        let pos = u32::try_from(self.entries.len()).expect("spindle-fs: directory full");
        let cookie = self.claim_cookie(home, pos);
        self.by_name.insert(tag_of(home), pos);
        if inode.is_dir() {
            self.subdirs += 1;
        }
        self.entries.push(Entry { cookie, name: name.into(), inode });
    }

    /// Maps the first free cookie from `home` on to `pos`, and returns it.
    fn claim_cookie(&mut self, home: u64, pos: u32) -> u64 {
        let map = self.by_cookie.get_or_insert_with(Box::default);
        let mut cookie = home;
        loop {
            match map.entry(cookie) {
                Slot::Vacant(v) => {
                    v.insert(pos);
                    return cookie;
                }
                Slot::Occupied(_) => cookie = if cookie == u64::MAX { FIRST_COOKIE } else { cookie + 1 },
            }
        }
    }

    /// Removes `name` and returns its inode.
    pub(crate) fn remove(&mut self, name: &[u8]) -> Option<Arc<Inode>> {
        let tag = tag_of(name_cookie(name));
        let pos = self.position(name, tag)?;
        let e = self.entries.swap_remove(pos as usize);
        self.by_name.remove(tag, pos, self.entries.len());
        let map = self.by_cookie.as_mut().expect("an entry was here, so the cookie index is");
        map.remove(&e.cookie);
        if let Some(moved) = self.entries.get(pos as usize) {
            let from = self.entries.len() as u32;
            self.by_name.renumber(tag_of(name_cookie(&moved.name)), from, pos);
            *map.get_mut(&moved.cookie).expect("a moved entry is in the cookie index") = pos;
        }
        if self.entries.capacity() > 8 && self.entries.len() * 4 < self.entries.capacity() {
            self.entries.shrink_to(self.entries.len() * 2);
        }
        if e.inode.is_dir() {
            self.subdirs -= 1;
        }
        Some(e.inode)
    }

    /// Entries with a cookie greater than `cookie`, in cookie order.
    pub(crate) fn after(&self, cookie: u64) -> impl Iterator<Item = (u64, &[u8], &Arc<Inode>)> + '_ {
        // Excluded, not `cookie + 1`: u64::MAX is a valid cookie (then nothing follows).
        let after = core::ops::Bound::Excluded(cookie.max(FIRST_COOKIE - 1));
        let map = self.by_cookie.as_deref();
        map.into_iter().flat_map(move |m| m.range((after, core::ops::Bound::Unbounded))).map(|(&c, &p)| {
            let e = &self.entries[p as usize];
            (c, &e.name[..], &e.inode)
        })
    }

    /// Every entry, in cookie order (for tar export and checks).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&[u8], &Arc<Inode>)> + '_ {
        self.after(0).map(|(_, name, inode)| (name, inode))
    }

    /// Index consistency (the module doc's invariants), for `check.rs`.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        let map = self.by_cookie.as_deref();
        if map.map_or(0, |m| m.len()) != self.entries.len() {
            return Err("the cookie index and the entries differ in number");
        }
        // Equal sizes and a key per entry's own cookie: the cookie index is a bijection.
        for (&c, &p) in map.into_iter().flatten() {
            if c < FIRST_COOKIE {
                return Err("entry cookie collides with . or ..");
            }
            if self.entries.get(p as usize).map(|e| e.cookie) != Some(c) {
                return Err("the cookie index names an entry with another cookie");
            }
        }
        self.by_name.check(self.entries.len())?;
        for (p, e) in self.entries.iter().enumerate() {
            if self.position(&e.name, tag_of(name_cookie(&e.name))) != Some(p as u32) {
                return Err("an entry is not found by its name (or its name is there twice)");
            }
        }
        if self.entries.capacity() > 8 && self.entries.len() * 4 < self.entries.capacity() {
            return Err("the entry vector holds over 4x its length");
        }
        Ok(())
    }
}

/// FNV-1a of the name, moved out of the range of `.` and `..`.
fn name_cookie(name: &[u8]) -> u64 {
    #[cfg(test)]
    if let Some(forced) = tests::forced_hash(name) {
        return forced.max(FIRST_COOKIE);
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in name {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h.max(FIRST_COOKIE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inode::Kind;
    use alloc::collections::BTreeSet;
    use alloc::format;
    use alloc::vec;

    /// Test names `\0` + 8 bytes + tail hash to those 8 bytes (little-endian), so tests can make
    /// names collide. A real name never starts with NUL (path resolution refuses it: EINVAL).
    pub(super) fn forced_hash(name: &[u8]) -> Option<u64> {
        match name {
            [0, h @ ..] if h.len() >= 8 => Some(u64::from_le_bytes(h[..8].try_into().unwrap())),
            _ => None,
        }
    }

    fn forced(hash: u64, tail: &[u8]) -> Vec<u8> {
        let mut n = vec![0];
        n.extend_from_slice(&hash.to_le_bytes());
        n.extend_from_slice(tail);
        n
    }

    fn node(ino: u64) -> Arc<Inode> {
        Arc::new(Inode::new(ino, 0, Kind::Symlink(b"t".as_slice().into()), 0o777, 0))
    }

    fn cookies(d: &DirData) -> Vec<(u64, Vec<u8>)> {
        d.after(0).map(|(c, n, _)| (c, n.to_vec())).collect()
    }

    /// A name whose hash cookie is taken is displaced, found, listed and removed like any other,
    /// keeps its cookie after the entry that took its home is gone, and the name that left gets
    /// its home back when created again (a cookie is the name's, not the creation's).
    #[test]
    fn displaced_names() {
        let mut d = DirData::default();
        let h = 1000;
        let (x, b) = (forced(h, b"x"), forced(h, b"b"));
        d.insert(&x, node(1));
        d.insert(&b, node(2));
        d.check().unwrap();
        assert!(d.get(&b).is_some() && d.get(&x).is_some());
        assert!(d.get(&forced(h, b"c")).is_none() && d.get(b"c").is_none());
        assert_eq!(cookies(&d), [(h, x.clone()), (h + 1, b.clone())]);
        assert!(d.remove(&x).is_some());
        d.check().unwrap();
        assert!(d.get(&b).is_some() && d.get(&x).is_none());
        assert_eq!(cookies(&d), [(h + 1, b.clone())]);
        d.insert(&x, node(3));
        assert_eq!(cookies(&d), [(h, x.clone()), (h + 1, b.clone())]);
        assert_eq!(d.remove(&b).unwrap().ino, 2);
        assert_eq!(d.remove(&x).unwrap().ino, 3);
        assert!(d.is_empty());
        d.check().unwrap();
    }

    /// Probing wraps from u64::MAX to the first entry cookie, and hashes below it (where `.` and
    /// `..` are) are moved up to it.
    #[test]
    fn probing_wraps_and_skips_dot_cookies() {
        let mut d = DirData::default();
        for (i, t) in [b"a", b"b", b"c"].into_iter().enumerate() {
            d.insert(&forced(u64::MAX - 1, t), node(i as u64));
        }
        d.insert(&forced(1, b"d"), node(9));
        d.check().unwrap();
        let got: Vec<u64> = cookies(&d).into_iter().map(|(c, _)| c).collect();
        assert_eq!(got, [FIRST_COOKIE, FIRST_COOKIE + 1, u64::MAX - 1, u64::MAX]);
        assert_eq!(d.after(u64::MAX - 1).count(), 1);
        assert_eq!(d.after(u64::MAX).count(), 0);
        assert_eq!(d.get(&forced(1, b"d")).unwrap().ino, 9);
    }

    /// splitmix64: a small deterministic generator for the randomized tests.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A name from a pool: plain names, and forced hashes from a few values (so names collide in
    /// full, and near u64::MAX and below 3 for the wrap).
    fn random_name(r: &mut Rng, pool: u64) -> Vec<u8> {
        let i = r.below(pool);
        match r.below(4) {
            0 => {
                let hashes = [7, 7_000_000, u64::MAX, u64::MAX - 2, 0];
                forced(hashes[r.below(5) as usize], format!("{i}").as_bytes())
            }
            _ => format!("n{i}").into_bytes(),
        }
    }

    /// The reference: name -> (cookie, ino), with cookies assigned by the documented rule.
    #[derive(Default)]
    struct Model {
        names: BTreeMap<Vec<u8>, (u64, u64)>,
        used: BTreeSet<u64>,
    }

    impl Model {
        fn insert(&mut self, name: &[u8], ino: u64) {
            let mut c = name_cookie(name);
            while self.used.contains(&c) {
                c = if c == u64::MAX { FIRST_COOKIE } else { c + 1 };
            }
            self.used.insert(c);
            self.names.insert(name.to_vec(), (c, ino));
        }
        fn remove(&mut self, name: &[u8]) -> Option<u64> {
            let (c, ino) = self.names.remove(name)?;
            self.used.remove(&c);
            Some(ino)
        }
        fn after(&self, cookie: u64) -> Vec<(u64, Vec<u8>)> {
            let mut v: Vec<_> =
                self.names.iter().map(|(n, &(c, _))| (c, n.clone())).filter(|&(c, _)| c > cookie).collect();
            v.sort();
            v
        }
    }

    /// One random step on both; then everything observable must agree.
    fn step(d: &mut DirData, m: &mut Model, r: &mut Rng, pool: u64, insert_bias: u64) {
        let name = random_name(r, pool);
        let ino = r.next();
        if r.below(100) < insert_bias {
            if m.names.contains_key(&name) {
                assert!(d.get(&name).is_some());
            } else {
                m.insert(&name, ino);
                d.insert(&name, node(ino));
            }
        } else {
            assert_eq!(d.remove(&name).map(|n| n.ino), m.remove(&name));
        }
        d.check().unwrap();
        assert_eq!(d.get(&name).map(|n| n.ino), m.names.get(&name).map(|v| v.1));
        assert_eq!(d.len(), m.names.len());
    }

    fn agree(d: &DirData, m: &Model, r: &mut Rng) {
        assert_eq!(cookies(d), m.after(0));
        for (n, &(_, ino)) in &m.names {
            assert_eq!(d.get(n).map(|x| x.ino), Some(ino));
        }
        let from = m.after(0).get(r.below(m.names.len() as u64 + 1) as usize).map_or(u64::MAX, |e| e.0);
        let got: Vec<_> = d.after(from).map(|(c, n, _)| (c, n.to_vec())).collect();
        assert_eq!(got, m.after(from));
    }

    /// Random inserts and removes against the model, through growth to ~1500 entries, churn,
    /// and a drain to empty (the tables shrink and stay consistent).
    #[test]
    fn matches_a_model() {
        let mut r = Rng(42);
        let (mut d, mut m) = (DirData::default(), Model::default());
        for (steps, bias) in [(3000, 80), (3000, 50), (4000, 10)] {
            for i in 0..steps {
                step(&mut d, &mut m, &mut r, 2000, bias);
                if i % 100 == 0 {
                    agree(&d, &m, &mut r);
                }
            }
            agree(&d, &m, &mut r);
        }
        for n in m.names.keys() {
            d.remove(n).unwrap();
        }
        assert!(d.is_empty());
        d.check().unwrap();
    }

    /// `DirData` sits in every inode (in the `Kind` enum, files included): the indexes must not
    /// make it bigger than the two B-tree heads and counters it had before them.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn directory_head_stays_small() {
        assert!(core::mem::size_of::<DirData>() <= 56, "{}", core::mem::size_of::<DirData>());
    }

    /// Emptying a large directory gives its memory back: the name table and the entry vector
    /// shrink with it (the table then is as fast as a fresh one: no tombstones are left).
    #[test]
    fn removal_shrinks() {
        let mut d = DirData::default();
        let names: Vec<Vec<u8>> = (0..10_000).map(|i| format!("entry-{i}").into_bytes()).collect();
        for (i, n) in names.iter().enumerate() {
            d.insert(n, node(i as u64));
        }
        assert!(d.by_name.bytes() >= 10_000 * 8);
        for n in &names[1..] {
            d.remove(n).unwrap();
        }
        d.check().unwrap();
        assert_eq!(d.by_name.bytes(), 4 * 8);
        assert!(d.entries.capacity() <= 8);
        assert_eq!(d.get(&names[0]).unwrap().ino, 0);
    }

    /// A scan resumed from each `d_next` sees every entry that stays throughout exactly once and
    /// no name twice, while names are removed, created again and added between its calls.
    #[test]
    fn resumed_scan_is_stable() {
        let mut r = Rng(7);
        let mut d = DirData::default();
        let stay: Vec<Vec<u8>> = (0..300).map(|i| format!("stay{i}").into_bytes()).collect();
        for n in &stay {
            d.insert(n, node(1));
        }
        let mut seen: BTreeMap<Vec<u8>, u32> = BTreeMap::new();
        let mut cookie = 0;
        loop {
            let page: Vec<(u64, Vec<u8>)> =
                d.after(cookie).take(7).map(|(c, n, _)| (c, n.to_vec())).collect();
            let Some(&(last, _)) = page.last() else { break };
            for (_, n) in page {
                *seen.entry(n).or_default() += 1;
            }
            cookie = last;
            for _ in 0..5 {
                let n = format!("churn{}", r.below(400)).into_bytes();
                if d.remove(&n).is_none() {
                    d.insert(&n, node(2));
                }
                let s = &stay[r.below(300) as usize];
                let again = d.remove(s).unwrap();
                d.insert(s, again);
            }
            d.check().unwrap();
        }
        assert!(stay.iter().all(|n| seen.get(n) == Some(&1)));
        assert!(seen.values().all(|&k| k == 1));
    }
}
