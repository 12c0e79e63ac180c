//! The mount table: which device ids exist and which are read-only. Every mount is a memory
//! mount: the core's inode tree is its storage (other storage is future work, ARCHITECTURE.md).
//!
//! A mount is a directory of the one tree whose `dev` differs from its parent's; every node
//! created below it inherits that `dev`. So crossing a mount needs no lookup at all, renames and
//! links compare `dev` (EXDEV), and the write check is one atomic load indexed by `dev`.
//! Device 0 is the hidden root that holds the mount points.
//!
//! Invariants: `count` only grows; `readonly[d]` is meaningful for `d < count`.
//! The permission rule lives here, in ONE function ([`MountTable::check_access`]): callers
//! compute the effective access mode first (O_TRUNC counts as write) and ask once.
//!
//! Thread rules: lock-free (atomics). `add` may run on several threads at once (two mounts
//! below different parents hold different directory locks).

use crate::errno::{Errno, Result};
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

/// Most mounts a filesystem can hold.
pub(crate) const MAX_MOUNTS: usize = 64;

pub(crate) struct MountTable {
    readonly: [AtomicBool; MAX_MOUNTS],
    count: AtomicU32,
}

impl MountTable {
    pub(crate) fn new() -> MountTable {
        MountTable { readonly: [const { AtomicBool::new(false) }; MAX_MOUNTS], count: AtomicU32::new(1) }
    }

    /// Registers a new device; returns its id. The id is claimed with one read-modify-write,
    /// because mounts below different parent directories run concurrently. Its `readonly`
    /// flag is stored before any node of the device exists (the mount point is published
    /// under its parent's write lock, which orders this store before every reader).
    pub(crate) fn add(&self, readonly: bool) -> Result<u64> {
        let claim = |n: u32| ((n as usize) < MAX_MOUNTS).then_some(n + 1);
        let dev = self.count.fetch_update(Relaxed, Relaxed, claim).map_err(|_| Errno::Nospc)? as usize;
        self.readonly[dev].store(readonly, Relaxed);
        Ok(dev as u64)
    }

    pub(crate) fn set_readonly(&self, dev: u64, readonly: bool) {
        self.readonly[dev as usize].store(readonly, Relaxed);
    }

    /// THE permission check: writing (or creating, truncating, removing, renaming) anything on
    /// a read-only device is EROFS. Reading is always allowed (mode bits are not enforced).
    #[inline]
    pub(crate) fn check_access(&self, dev: u64, write: bool) -> Result<()> {
        if write && self.readonly[dev as usize].load(Relaxed) {
            return Err(Errno::Rofs);
        }
        Ok(())
    }
}
