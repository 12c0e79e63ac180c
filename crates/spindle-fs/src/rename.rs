//! `path_rename`: the one operation that locks two directories (and possibly a third, the
//! directory it replaces). It follows the lock order of `fs.rs`:
//!
//! - same parent: lock it; a replaced directory (its child) after it;
//! - different parents: `rename_lock` first (so no directory changes parent meanwhile and the
//!   ancestry walk below is stable), then the two parents, the ancestor first if one contains
//!   the other, else by ascending inode number; then a replaced directory, which is never an
//!   ancestor of either parent (that case is ENOTEMPTY and is refused before locking it).
//!
//! With every involved directory locked, the source entry leaves and the target entry is
//! replaced in one critical section, so a concurrent lookup sees the old or the new state, never
//! a missing name; a concurrent rename cannot move a directory into its own subtree (EINVAL).

use crate::dir::DirData;
use crate::dir_lock::DirWriteGuard;
use crate::errno::{Errno, Result};
use crate::fs::Fs;
use crate::inode::Inode;
use crate::types::*;
use alloc::sync::Arc;
use core::sync::atomic::Ordering::Relaxed;

/// True if `anc` is `node` or one of its ancestors. Stable only under `rename_lock`.
fn is_ancestor(anc: &Arc<Inode>, node: &Arc<Inode>) -> bool {
    let mut cur = node.clone();
    loop {
        if Arc::ptr_eq(anc, &cur) {
            return true;
        }
        match cur.as_dir().and_then(|d| d.parent()) {
            Some(p) => cur = p,
            None => return false,
        }
    }
}

fn is_dot(name: &[u8]) -> bool {
    name == b"." || name == b".."
}

impl Fs {
    /// `path_rename`: moves `old_path` to `new_path`, atomically replacing what is there.
    pub fn path_rename(&self, old_fd: Fd, old_path: &[u8], new_fd: Fd, new_path: &[u8]) -> Result<()> {
        let (b1, b2) = (
            self.dir_file(old_fd, rights::PATH_RENAME_SOURCE)?,
            self.dir_file(new_fd, rights::PATH_RENAME_TARGET)?,
        );
        let from = crate::path::Walker::new(&b1).parent(old_path)?;
        let to = crate::path::Walker::new(&b2).parent(new_path)?;
        if is_dot(from.name) || is_dot(to.name) {
            return Err(Errno::Busy);
        }
        if from.dir.dev != to.dir.dev {
            return Err(Errno::Xdev);
        }
        self.mounts.check_access(from.dir.dev, true)?;
        let (pa, pb) = (&from.dir, &to.dir);
        let (na, nb) = (from.name, to.name);
        let da = &pa.as_dir().ok_or(Errno::Notdir)?.data;
        let db = &pb.as_dir().ok_or(Errno::Notdir)?.data;
        if Arc::ptr_eq(pa, pb) {
            let mut g = da.write();
            return self.rename_locked(pa, &mut g, None, na, nb, from.slash || to.slash);
        }
        let _serial = self.rename_lock.lock();
        let a_first = if is_ancestor(pa, pb) {
            true
        } else if is_ancestor(pb, pa) {
            false
        } else {
            pa.ino < pb.ino
        };
        let (mut ga, mut gb);
        if a_first {
            ga = da.write();
            gb = db.write();
        } else {
            gb = db.write();
            ga = da.write();
        }
        self.rename_locked(pa, &mut ga, Some((pb, &mut gb)), na, nb, from.slash || to.slash)
    }

    /// The rename with the parent(s) locked. `dst` is None when both names are in `pa`.
    fn rename_locked(
        &self,
        pa: &Arc<Inode>,
        src: &mut DirWriteGuard<'_, DirData>,
        mut dst: Option<(&Arc<Inode>, &mut DirWriteGuard<'_, DirData>)>,
        na: &[u8],
        nb: &[u8],
        slash: bool,
    ) -> Result<()> {
        if src.removed || dst.as_ref().is_some_and(|(_, d)| d.removed) {
            return Err(Errno::Noent);
        }
        let s = src.get(na).cloned().ok_or(Errno::Noent)?;
        let pb = dst.as_ref().map_or(pa, |(p, _)| *p).clone();
        if !s.is_dir() && slash {
            return Err(Errno::Notdir);
        }
        if s.dev != pa.dev {
            return Err(Errno::Busy);
        }
        if s.is_dir() && dst.is_some() && is_ancestor(&s, &pb) {
            return Err(Errno::Inval);
        }
        let target = match &dst {
            Some((_, d)) => d.get(nb).cloned(),
            None => src.get(nb).cloned(),
        };
        // Linux checks "target is an ancestor of the source" before the type checks.
        if let Some(t) = &target {
            if dst.is_some() && t.is_dir() && is_ancestor(t, pa) {
                return Err(Errno::Notempty);
            }
            if Arc::ptr_eq(t, &s) {
                return Ok(());
            }
            match (s.is_dir(), t.is_dir()) {
                (false, true) => return Err(Errno::Isdir),
                (true, false) => return Err(Errno::Notdir),
                _ => {}
            }
        }
        // A replaced directory: must be empty; lock it after the parents (it is their
        // descendant, never their ancestor once the check below passed).
        let mut victim_guard = None;
        if let Some(t) = target.as_ref().filter(|t| t.is_dir()) {
            if t.dev != pb.dev {
                return Err(Errno::Busy);
            }
            let g = t.as_dir().expect("checked is_dir").data.write();
            if !g.is_empty() {
                return Err(Errno::Notempty);
            }
            victim_guard = Some(g);
        }
        // Commit: nothing below can fail.
        let now = self.now();
        let moved = src.remove(na).expect("source vanished under its directory lock");
        let dd: &mut DirData = match &mut dst {
            Some((_, d)) => d,
            None => src,
        };
        if let Some(t) = dd.remove(nb) {
            if let Some(mut g) = victim_guard.take() {
                g.removed = true;
                t.nlink.store(0, Relaxed);
                pb.nlink.fetch_sub(1, Relaxed);
            } else {
                t.nlink.fetch_sub(1, Relaxed);
            }
            t.touch_changed(now);
        }
        dd.insert(nb, moved.clone());
        if moved.is_dir() && !Arc::ptr_eq(pa, &pb) {
            *moved.as_dir().expect("is_dir").parent.lock() = Arc::downgrade(&pb);
            pa.nlink.fetch_sub(1, Relaxed);
            pb.nlink.fetch_add(1, Relaxed);
        }
        pa.touch_modified(now);
        pb.touch_modified(now);
        moved.touch_changed(now);
        Ok(())
    }
}
