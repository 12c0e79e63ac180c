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
//! Lookup by name is a search of `by_cookie` at the name's hash and one name comparison (the
//! name map this replaces cost a dozen byte-string comparisons per path component); names that
//! collided sit elsewhere and are listed in `displaced`.
//!
//! Invariants: an entry is at cookie `name_cookie(name)`, or at another cookie and then listed
//! in `displaced` with that cookie (and `displaced` lists nothing else); `subdirs` counts entries that are
//! directories (a directory's nlink is `2 + subdirs`); `removed` is set by rmdir (with the parent
//! and this directory locked) and then the map is empty and stays empty (creating in a removed
//! directory is ENOENT).
//!
//! Thread rules: `data` is locked per the order in `fs.rs` (lookups take a short read,
//! `dir_lock.rs`). `parent` is a leaf lock, written only
//! by a cross-directory rename (which holds the global rename lock), read briefly for `..` in
//! listings and for the ancestry walk of rename.

use crate::dir_lock::DirLock;
use crate::inode::Inode;
use crate::stripes::Stripes;
use crate::sync::Mutex;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};

/// Cookie of the first real entry (after `.` = 1 and `..` = 2).
pub(crate) const FIRST_COOKIE: u64 = 3;

pub(crate) struct Entry {
    name: Box<[u8]>,
    inode: Arc<Inode>,
}

#[derive(Default)]
pub(crate) struct DirData {
    /// Every entry, by cookie. An entry sits at its name's hash (`name_cookie`) unless that
    /// cookie was taken when it was inserted: then it is *displaced*.
    by_cookie: BTreeMap<u64, Entry>,
    /// The displaced names and their cookies (empty unless two names' hashes collided), so a
    /// lookup is one search by hash and one name comparison.
    displaced: BTreeMap<Box<[u8]>, u64>,
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
    /// The cookie `name` sits at, if it is here.
    #[inline]
    fn cookie_of(&self, name: &[u8]) -> Option<u64> {
        let home = name_cookie(name);
        match self.by_cookie.get(&home) {
            Some(e) if *e.name == *name => Some(home),
            _ if self.displaced.is_empty() => None,
            _ => self.displaced.get(name).copied(),
        }
    }

    #[inline]
    pub(crate) fn get(&self, name: &[u8]) -> Option<&Arc<Inode>> {
        let c = self.cookie_of(name)?;
        self.by_cookie.get(&c).map(|e| &e.inode)
    }

    pub(crate) fn len(&self) -> usize {
        self.by_cookie.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.by_cookie.is_empty()
    }

    /// Adds `name` (which must be absent) at its hash cookie, or the next free one.
    pub(crate) fn insert(&mut self, name: &[u8], inode: Arc<Inode>) {
        assert!(self.cookie_of(name).is_none(), "spindle-fs: directory insert over an existing name");
        let home = name_cookie(name);
        let mut cookie = home;
        while self.by_cookie.contains_key(&cookie) {
            cookie = if cookie == u64::MAX { FIRST_COOKIE } else { cookie + 1 };
        }
        if inode.is_dir() {
            self.subdirs += 1;
        }
        if cookie != home {
            self.displaced.insert(name.into(), cookie);
        }
        self.by_cookie.insert(cookie, Entry { name: name.into(), inode });
    }

    /// Removes `name` and returns its inode.
    pub(crate) fn remove(&mut self, name: &[u8]) -> Option<Arc<Inode>> {
        let c = self.cookie_of(name)?;
        if c != name_cookie(name) {
            self.displaced.remove(name);
        }
        let e = self.by_cookie.remove(&c).expect("cookie_of found it");
        if e.inode.is_dir() {
            self.subdirs -= 1;
        }
        Some(e.inode)
    }

    /// Entries with a cookie greater than `cookie`, in cookie order.
    pub(crate) fn after(&self, cookie: u64) -> impl Iterator<Item = (u64, &[u8], &Arc<Inode>)> + '_ {
        // Excluded, not `cookie + 1`: u64::MAX is a valid cookie (then nothing follows).
        let after = core::ops::Bound::Excluded(cookie.max(FIRST_COOKIE - 1));
        self.by_cookie.range((after, core::ops::Bound::Unbounded)).map(|(&c, e)| (c, &e.name[..], &e.inode))
    }

    /// Every entry, in cookie order (for tar export and checks).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&[u8], &Arc<Inode>)> + '_ {
        self.by_cookie.values().map(|e| (&e.name[..], &e.inode))
    }

    /// Index consistency, for `check.rs`.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        let mut displaced = 0;
        for (&c, e) in &self.by_cookie {
            if c < FIRST_COOKIE {
                return Err("entry cookie collides with . or ..");
            }
            if c != name_cookie(&e.name) {
                displaced += 1;
                if self.displaced.get(&e.name) != Some(&c) {
                    return Err("a displaced entry is missing from the displaced index");
                }
            }
        }
        if displaced != self.displaced.len() {
            return Err("the displaced index names entries that are not displaced");
        }
        Ok(())
    }
}

/// FNV-1a of the name, moved out of the range of `.` and `..`.
fn name_cookie(name: &[u8]) -> u64 {
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

    fn node() -> Arc<Inode> {
        Arc::new(Inode::new(7, 0, Kind::Symlink(b"t".as_slice().into()), 0o777, 0))
    }

    /// A name whose hash cookie is taken is displaced, found, listed and removed like any other,
    /// also after the entry that took its cookie is gone.
    #[test]
    fn displaced_names() {
        let mut d = DirData::default();
        // "x" sits where "b" would (as if their hashes collided).
        let home_b = name_cookie(b"b");
        d.by_cookie.insert(home_b, Entry { name: b"x".as_slice().into(), inode: node() });
        d.displaced.insert(b"x".as_slice().into(), home_b);
        d.check().unwrap();
        d.insert(b"b", node());
        d.check().unwrap();
        assert!(d.get(b"b").is_some() && d.get(b"x").is_some());
        assert!(d.get(b"c").is_none());
        assert_eq!(d.after(0).count(), 2);
        assert!(d.remove(b"x").is_some());
        d.check().unwrap();
        assert!(d.get(b"b").is_some() && d.get(b"x").is_none());
        assert!(d.remove(b"b").is_some());
        assert!(d.is_empty() && d.displaced.is_empty());
        d.check().unwrap();
    }
}
