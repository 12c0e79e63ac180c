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
//! Invariants: `by_name` and `by_cookie` hold the same entries; `subdirs` counts entries that are
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
    pub(crate) cookie: u64,
    pub(crate) inode: Arc<Inode>,
}

#[derive(Default)]
pub(crate) struct DirData {
    by_name: BTreeMap<Box<[u8]>, Entry>,
    by_cookie: BTreeMap<u64, Box<[u8]>>,
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
    #[inline]
    pub(crate) fn get(&self, name: &[u8]) -> Option<&Arc<Inode>> {
        self.by_name.get(name).map(|e| &e.inode)
    }

    pub(crate) fn len(&self) -> usize {
        self.by_name.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Adds `name` (which must be absent) at its hash cookie.
    pub(crate) fn insert(&mut self, name: &[u8], inode: Arc<Inode>) {
        let mut cookie = name_cookie(name);
        while self.by_cookie.contains_key(&cookie) {
            cookie = if cookie == u64::MAX { FIRST_COOKIE } else { cookie + 1 };
        }
        if inode.is_dir() {
            self.subdirs += 1;
        }
        let key: Box<[u8]> = name.into();
        self.by_cookie.insert(cookie, key.clone());
        let old = self.by_name.insert(key, Entry { cookie, inode });
        assert!(old.is_none(), "spindle-fs: directory insert over an existing name");
    }

    /// Removes `name` and returns its inode.
    pub(crate) fn remove(&mut self, name: &[u8]) -> Option<Arc<Inode>> {
        let e = self.by_name.remove(name)?;
        self.by_cookie.remove(&e.cookie);
        if e.inode.is_dir() {
            self.subdirs -= 1;
        }
        Some(e.inode)
    }

    /// Entries with a cookie greater than `cookie`, in cookie order.
    pub(crate) fn after(&self, cookie: u64) -> impl Iterator<Item = (u64, &[u8], &Arc<Inode>)> + '_ {
        // Excluded, not `cookie + 1`: u64::MAX is a valid cookie (then nothing follows).
        let after = core::ops::Bound::Excluded(cookie.max(FIRST_COOKIE - 1));
        self.by_cookie.range((after, core::ops::Bound::Unbounded)).map(move |(&c, name)| {
            let e = &self.by_name[name];
            (c, &name[..], &e.inode)
        })
    }

    /// Every entry, by name (for tar export and checks).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&[u8], &Arc<Inode>)> + '_ {
        self.by_name.iter().map(|(k, e)| (&k[..], &e.inode))
    }

    /// Index consistency, for `check.rs`.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        if self.by_name.len() != self.by_cookie.len() {
            return Err("name and cookie indexes differ in size");
        }
        for (c, name) in &self.by_cookie {
            match self.by_name.get(name) {
                Some(e) if e.cookie == *c => {}
                _ => return Err("cookie index names a missing or different entry"),
            }
            if *c < FIRST_COOKIE {
                return Err("entry cookie collides with . or ..");
            }
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
