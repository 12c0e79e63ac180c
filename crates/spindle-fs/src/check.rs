//! A consistency scanner for tests, stress runs and the fuzzer: walks the whole tree and checks
//! the invariants stated on the structs. Call it only when no other thread is using the `Fs`.
//!
//! Checked: every directory's `subdirs` matches its entries and its `nlink` is `2 + subdirs`;
//! every subdirectory's parent pointer names the directory that lists it; a directory is listed
//! once; a file's or symlink's `nlink` equals the number of entries naming it; cookie and name
//! indexes agree (`DirData::check`).

use crate::fs::Fs;
use crate::inode::Inode;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec;
use core::sync::atomic::Ordering::Relaxed;

impl Fs {
    /// Checks the tree's invariants; returns the first one broken. Not thread-safe with
    /// respect to concurrent mutations (it would report transient states): quiesce first.
    #[doc(hidden)]
    pub fn check_invariants(&self) -> Result<(), &'static str> {
        let mut links: BTreeMap<u64, (Arc<Inode>, u32)> = BTreeMap::new();
        let mut seen_dirs: BTreeMap<u64, ()> = BTreeMap::new();
        let mut todo = vec![self.root.clone()];
        while let Some(dir) = todo.pop() {
            if seen_dirs.insert(dir.ino, ()).is_some() {
                return Err("a directory is listed twice (cycle or duplicate)");
            }
            let d = dir.as_dir().ok_or("non-directory on the directory stack")?;
            let data = d.data.read();
            data.check()?;
            if data.removed {
                return Err("a removed directory is still listed");
            }
            let mut subdirs = 0;
            for (_, child) in data.iter() {
                if child.is_dir() {
                    subdirs += 1;
                    let p = child.as_dir().and_then(|c| c.parent()).ok_or("directory without parent")?;
                    if !Arc::ptr_eq(&p, &dir) {
                        return Err("parent pointer does not name the listing directory");
                    }
                    todo.push(child.clone());
                } else {
                    links.entry(child.ino).or_insert_with(|| (child.clone(), 0)).1 += 1;
                }
            }
            if subdirs != data.subdirs {
                return Err("subdirs count is wrong");
            }
            if dir.nlink.load(Relaxed) != 2 + subdirs {
                return Err("directory nlink != 2 + subdirectories");
            }
        }
        for (_, (node, n)) in links {
            if node.nlink.load(Relaxed) != n {
                return Err("file nlink != number of entries naming it");
            }
        }
        Ok(())
    }
}
