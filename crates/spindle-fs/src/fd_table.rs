//! The process-wide file descriptor table and the open-file descriptions it points to.
//!
//! POSIX fds are per process, so one table serves every thread: an fd opened on one thread is
//! usable on all. A slot holds `Arc<OpenFile>`; an operation clones the Arc under the table's
//! read lock and works without it, so a concurrent close only drops the table's reference and
//! the open file (and its inode) lives until the last operation using it returns.
//!
//! Invariants: numbers below `first` are never handed out (the shim keeps 0..=2 for stdio);
//! a new fd is the lowest free number >= `first`; `count` == number of occupied slots.
//!
//! Thread rules: the table lock is a leaf: nothing else is locked while it is held, and no
//! `OpenFile` is dropped under it (drops happen after the guard is released).

use crate::errno::{Errno, Result};
use crate::inode::Inode;
use crate::sync::{Mutex, RwLock};
use crate::types::{fdflags, Fd};
use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};

/// Largest number of simultaneously open fds.
pub(crate) const MAX_FDS: usize = 1 << 20;

/// An open file description: what `path_open` produced, shared by renumbered/dup'ed fds.
pub(crate) struct OpenFile {
    pub(crate) inode: Arc<Inode>,
    /// The file offset; also serializes `fd_read`/`fd_write` on this description (as Linux's
    /// f_pos_lock does). Lock order: before the file's data lock.
    pub(crate) pos: Mutex<u64>,
    pub(crate) flags: AtomicU16,
    pub(crate) rights_base: AtomicU64,
    pub(crate) rights_inheriting: AtomicU64,
    /// Effective access mode computed once at open.
    pub(crate) readable: bool,
    pub(crate) writable: bool,
    /// The guest name for a preopened directory (`fd_prestat_*`).
    pub(crate) preopen: Option<Box<[u8]>>,
}

impl OpenFile {
    pub(crate) fn new(inode: Arc<Inode>, readable: bool, writable: bool, flags: u16, base: u64, inh: u64) -> OpenFile {
        OpenFile {
            inode,
            pos: Mutex::new(0),
            flags: AtomicU16::new(flags),
            rights_base: AtomicU64::new(base),
            rights_inheriting: AtomicU64::new(inh),
            readable,
            writable,
            preopen: None,
        }
    }

    #[inline]
    pub(crate) fn append(&self) -> bool {
        self.flags.load(Relaxed) & fdflags::APPEND != 0
    }

    /// ENOTCAPABLE unless the fd holds every right in `need`.
    #[inline]
    pub(crate) fn require(&self, need: u64) -> Result<()> {
        if self.rights_base.load(Relaxed) & need == need {
            Ok(())
        } else {
            Err(Errno::Notcapable)
        }
    }
}

struct Slots {
    slots: Vec<Option<Arc<OpenFile>>>,
    /// No free slot below this index.
    hint: usize,
    count: usize,
}

/// The table.
pub(crate) struct FdTable {
    inner: RwLock<Slots>,
    first: usize,
}

impl FdTable {
    pub(crate) fn new(first: Fd) -> FdTable {
        let first = first as usize;
        FdTable { inner: RwLock::new(Slots { slots: Vec::new(), hint: first, count: 0 }), first }
    }

    #[inline]
    pub(crate) fn get(&self, fd: Fd) -> Result<Arc<OpenFile>> {
        let t = self.inner.read();
        match t.slots.get(fd as usize) {
            Some(Some(f)) => Ok(f.clone()),
            _ => Err(Errno::Badf),
        }
    }

    pub(crate) fn insert(&self, file: Arc<OpenFile>) -> Result<Fd> {
        let mut t = self.inner.write();
        let mut i = t.hint.max(self.first);
        while i < t.slots.len() && t.slots[i].is_some() {
            i += 1;
        }
        if i >= MAX_FDS {
            return Err(Errno::Mfile);
        }
        if i >= t.slots.len() {
            t.slots.resize_with(i + 1, || None);
        }
        t.slots[i] = Some(file);
        t.hint = i + 1;
        t.count += 1;
        Ok(i as Fd)
    }

    /// Removes `fd`; the caller drops the returned Arc after the table lock is gone.
    pub(crate) fn remove(&self, fd: Fd) -> Result<Arc<OpenFile>> {
        let mut t = self.inner.write();
        let f = t.slots.get_mut(fd as usize).and_then(Option::take).ok_or(Errno::Badf)?;
        t.count -= 1;
        if (fd as usize) < t.hint {
            t.hint = fd as usize;
        }
        Ok(f)
    }

    /// `fd_renumber`: both must be open; `to` is closed and replaced by `from`.
    pub(crate) fn renumber(&self, from: Fd, to: Fd) -> Result<Option<Arc<OpenFile>>> {
        let mut t = self.inner.write();
        let ok = |fd: Fd, t: &Slots| matches!(t.slots.get(fd as usize), Some(Some(_)));
        if !ok(from, &t) || !ok(to, &t) {
            return Err(Errno::Badf);
        }
        if from == to {
            return Ok(None);
        }
        let f = t.slots[from as usize].take();
        let old = core::mem::replace(&mut t.slots[to as usize], f);
        t.count -= 1;
        if (from as usize) < t.hint {
            t.hint = from as usize;
        }
        Ok(old)
    }

    /// Number of open fds (tests check for leaks with it).
    pub(crate) fn count(&self) -> usize {
        self.inner.read().count
    }
}
