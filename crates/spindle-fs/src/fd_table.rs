//! The process-wide file descriptor table and the open-file descriptions it holds.
//!
//! POSIX fds are per process, so one table serves every thread: an fd opened on one thread is
//! usable on all. The table is built so that threads working on their own fds share no written
//! cache line: slots live in segments that only grow (segment k holds `64 << k` slots, created
//! once with a CAS, never moved or freed before the table), each slot has its own lock and its
//! own cache line, and the search for a free number starts at the calling thread's stripe hint
//! (`stripes.rs`), so two threads opening and closing their own files keep to their own slots.
//! The table keeps no shared counter: [`FdTable::count`] scans (it serves leak checks only).
//!
//! Numbering: a new fd is the lowest free number at or above the thread's hint, wrapping to the
//! lowest free number overall before the table grows. A single-threaded program thus gets
//! POSIX's lowest free number (its stripe's hint drops on every close; this holds while its
//! calls map to one stripe, i.e. stay in one 64 KiB window of its stack, see `stripes.rs`);
//! with several threads numbers are not lowest-first, which WASI does not require.
//!
//! Descriptions live inline in their slot: WASI preview1 has no `dup`, so a description is
//! reachable through exactly one fd (`fd_renumber` moves it), and the slot's lock protects it.
//! An fd call holds that lock for its whole duration instead of taking a reference: a read lock
//! ([`FdShared`]) for calls that leave the offset alone, the write lock ([`FdExclusive`]) for
//! calls that use or move it (`fd_read`, `fd_write`, `fd_seek`) or change flags or rights. So
//! opening allocates nothing, and an fd call costs the lock and its release: on wasm in V8 every
//! atomic read-modify-write or store is a locked instruction (~20 cycles), atomic loads are
//! plain loads.
//!
//! Preopened directories, which every path call of every thread goes through, are *pinned*:
//! their description is boxed and read through one atomic pointer load, with no lock and no
//! reference count traffic ([`FdTable::inode`]). A pinned description is freed with the table;
//! if its fd is closed earlier it moves to a graveyard freed with the table (a racing reader may
//! still hold it; preopens are closed rarely, so the graveyard stays small).
//!
//! Invariants: numbers below `first` are never handed out (the shim keeps 0..=2 for stdio);
//! a slot's `used` flag is set while its number is reserved or open; `pinned` is non-null only
//! while the slot's entry is `Pinned` with that pointer; a stripe's `fd_hint` is a hint only.
//! An entry's offset changes only under its slot's write lock. A description's flags and rights
//! are atomics only because a pinned one is read without the lock; they too change only under
//! the slot's write lock, and nothing else of a description changes after it is made.
//!
//! Thread rules (the lock order is stated in `fs.rs`): an fd call holds at most one slot lock
//! and takes no other slot lock while it holds it; it may take its file's data lock under it.
//! `remove` takes one slot write lock holding nothing; `renumber` takes two slot write locks,
//! the lower number first, holding nothing else; `insert` reserves a free number (CAS on
//! `used`) and write-locks that slot holding nothing. [`FdTable::inode`] holds a slot read lock
//! only to clone the inode reference, so path walks hold no slot lock. Under a slot lock only
//! the graveyard's leaf lock is taken by the table itself. No description is dropped under a
//! slot lock (`remove`/`renumber` hand it to the caller, who drops it after the guard is gone).

use crate::errno::{Errno, Result};
use crate::inode::{Inode, InodeRef};
use crate::stripes::Stripes;
use crate::sync::{Mutex, ReadGuard, RwLock, WriteGuard};
use crate::types::{fdflags, Fd};
use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Deref;
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU16, AtomicU64, Ordering::*};

const SEG0: usize = 64;
const SEGS: usize = 14;
/// Largest number of simultaneously open fds (64 * (2^14 - 1)).
pub(crate) const MAX_FDS: usize = SEG0 * ((1 << SEGS) - 1);

/// An open file description: what `path_open` or `preopen` produced. Its offset is kept beside
/// it in the slot (`Entry`), so a pinned description is never written but through atomics.
pub(crate) struct OpenFile {
    pub(crate) inode: Arc<Inode>,
    /// Changed only under the slot's write lock (module doc).
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
    pub(crate) fn new(
        inode: Arc<Inode>,
        readable: bool,
        writable: bool,
        flags: u16,
        base: u64,
        inh: u64,
    ) -> OpenFile {
        OpenFile {
            inode,
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

enum Entry {
    Empty,
    /// A description owned by the slot, and its offset.
    Open {
        file: OpenFile,
        pos: u64,
    },
    /// A preopen's description (from `Box::into_raw`, owned by the table, see the module doc)
    /// and its offset, which lives here so that the shared description is never written.
    Pinned {
        file: *mut OpenFile,
        pos: u64,
    },
}

impl Entry {
    #[inline]
    fn file(&self) -> Option<&OpenFile> {
        match self {
            Entry::Open { file, .. } => Some(file),
            // SAFETY: a pinned description is freed only with the table (module doc).
            Entry::Pinned { file, .. } => Some(unsafe { &**file }),
            Entry::Empty => None,
        }
    }

    #[inline]
    fn pos(&self) -> u64 {
        match self {
            Entry::Open { pos, .. } | Entry::Pinned { pos, .. } => *pos,
            Entry::Empty => unreachable!("an fd guard is made only for an open slot"),
        }
    }

    #[inline]
    fn open_file(&self) -> &OpenFile {
        self.file().expect("an fd guard is made only for an open slot")
    }
}

/// An open fd read-locked for one call: nobody moves its offset, changes its flags or rights,
/// renumbers or closes it while this lives (a close waits for it).
pub(crate) struct FdShared<'t>(ReadGuard<'t, Entry>);

impl FdShared<'_> {
    /// The fd's offset.
    #[inline]
    pub(crate) fn pos(&self) -> u64 {
        self.0.pos()
    }
}

impl Deref for FdShared<'_> {
    type Target = OpenFile;
    #[inline]
    fn deref(&self) -> &OpenFile {
        self.0.open_file()
    }
}

/// An open fd write-locked for one call: the only user of its description and offset.
pub(crate) struct FdExclusive<'t>(WriteGuard<'t, Entry>);

impl FdExclusive<'_> {
    /// The description and its offset, to move.
    #[inline]
    pub(crate) fn parts(&mut self) -> (&OpenFile, &mut u64) {
        match &mut *self.0 {
            Entry::Open { file, pos } => (file, pos),
            // SAFETY: a pinned description is freed only with the table (module doc).
            Entry::Pinned { file, pos } => (unsafe { &**file }, pos),
            Entry::Empty => unreachable!("an fd guard is made only for an open slot"),
        }
    }
}

impl Deref for FdExclusive<'_> {
    type Target = OpenFile;
    #[inline]
    fn deref(&self) -> &OpenFile {
        self.0.open_file()
    }
}

/// One fd number. Alone on its cache line: neighbouring numbers are often other threads' fds.
#[repr(align(64))]
struct Slot {
    entry: RwLock<Entry>,
    pinned: AtomicPtr<OpenFile>,
    used: AtomicBool,
}

// SAFETY: `Entry::Pinned` points to an OpenFile (Send + Sync) that only the table frees.
unsafe impl Send for Slot {}
// SAFETY: as above; all access goes through the slot lock or atomics.
unsafe impl Sync for Slot {}

/// A pinned description whose fd was closed; freed when the table drops.
struct Grave(*mut OpenFile);
// SAFETY: the pointer owns an OpenFile (Send + Sync); only the table's Drop frees it.
unsafe impl Send for Grave {}
// SAFETY: as above; the graveyard only stores and frees these pointers.
unsafe impl Sync for Grave {}

/// What a removed slot held, to be dropped by the caller after the slot lock is released.
pub(crate) enum Removed {
    Open(OpenFile),
    /// A pinned description, now in the graveyard.
    Buried,
}

impl Removed {
    /// The description, unless it was a preopen's (those are never written).
    pub(crate) fn file(&self) -> Option<&OpenFile> {
        match self {
            Removed::Open(f) => Some(f),
            Removed::Buried => None,
        }
    }
}

/// The table.
pub(crate) struct FdTable {
    segs: [AtomicPtr<Slot>; SEGS],
    first: usize,
    /// Per-thread search hints (`Stripe::fd_hint`).
    stripes: Arc<Stripes>,
    /// Pinned descriptions whose fd was closed (leaf lock).
    graveyard: Mutex<Vec<Grave>>,
}

#[inline]
fn locate(i: usize) -> (usize, usize) {
    let n = i / SEG0 + 1;
    let seg = (usize::BITS - 1 - n.leading_zeros()) as usize;
    (seg, i - SEG0 * ((1 << seg) - 1))
}

impl FdTable {
    pub(crate) fn new(first: Fd, stripes: Arc<Stripes>) -> FdTable {
        FdTable {
            segs: [const { AtomicPtr::new(ptr::null_mut()) }; SEGS],
            first: first as usize,
            stripes,
            graveyard: Mutex::new(Vec::new()),
        }
    }

    #[inline]
    fn slot(&self, i: usize) -> Option<&Slot> {
        if i >= MAX_FDS {
            return None;
        }
        let (seg, off) = locate(i);
        let p = self.segs[seg].load(Acquire);
        if p.is_null() {
            return None;
        }
        // SAFETY: a published segment has `SEG0 << seg` initialized slots and lives as long as
        // the table; `off` is in range by construction of `locate`.
        Some(unsafe { &*p.add(off) })
    }

    #[cold]
    fn grow(&self, seg: usize) {
        let len = SEG0 << seg;
        let v: Vec<Slot> = (0..len)
            .map(|_| Slot {
                entry: RwLock::new(Entry::Empty),
                pinned: AtomicPtr::new(ptr::null_mut()),
                used: AtomicBool::new(false),
            })
            .collect();
        let p = Box::into_raw(v.into_boxed_slice()) as *mut Slot;
        if self.segs[seg].compare_exchange(ptr::null_mut(), p, AcqRel, Acquire).is_err() {
            // SAFETY: `p` was never published; rebuild the box we made to free it.
            drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(p, len)) });
        }
    }

    /// `fd` read-locked for one call that leaves its offset alone (EBADF if not open).
    #[inline]
    pub(crate) fn read(&self, fd: Fd) -> Result<FdShared<'_>> {
        let g = self.slot(fd as usize).ok_or(Errno::Badf)?.entry.read();
        if matches!(*g, Entry::Empty) {
            return Err(Errno::Badf);
        }
        Ok(FdShared(g))
    }

    /// `fd` write-locked for one call that uses or moves its offset, or changes its flags or
    /// rights (EBADF if not open).
    #[inline]
    pub(crate) fn write(&self, fd: Fd) -> Result<FdExclusive<'_>> {
        let g = self.slot(fd as usize).ok_or(Errno::Badf)?.entry.write();
        if matches!(*g, Entry::Empty) {
            return Err(Errno::Badf);
        }
        Ok(FdExclusive(g))
    }

    /// The description of `fd` if it is pinned (a preopen): one atomic load, no lock. Its
    /// fields that can change are atomics, so it is read without the slot lock.
    #[inline]
    pub(crate) fn pinned(&self, fd: Fd) -> Option<&OpenFile> {
        let p = self.slot(fd as usize)?.pinned.load(Acquire);
        // SAFETY: a pinned description is freed only with the table (module doc).
        (!p.is_null()).then(|| unsafe { &*p })
    }

    /// The inode of `fd` once `check` has accepted its description; no slot lock is held on
    /// return. A pinned description costs one atomic load; any other a brief read lock and a
    /// reference count increment.
    #[inline]
    pub(crate) fn inode(&self, fd: Fd, check: impl FnOnce(&OpenFile) -> Result<()>) -> Result<InodeRef<'_>> {
        let s = self.slot(fd as usize).ok_or(Errno::Badf)?;
        let p = s.pinned.load(Acquire);
        if !p.is_null() {
            // SAFETY: a pinned description is freed only with the table (module doc).
            let f = unsafe { &*p };
            check(f)?;
            return Ok(InodeRef::Borrowed(&f.inode));
        }
        let g = s.entry.read();
        let f = g.file().ok_or(Errno::Badf)?;
        check(f)?;
        Ok(InodeRef::Owned(f.inode.clone()))
    }

    /// Claims a free number: the first at or above the stripe's hint in the segments that
    /// exist, else the first from `first` (growing the table only if none is free).
    fn reserve(&self) -> Result<(usize, &Slot)> {
        let hint = &self.stripes.mine().fd_hint;
        let start = hint.load(Relaxed).max(self.first);
        let (mut i, mut wrapped) = (start, start == self.first);
        loop {
            let s = match self.slot(i) {
                Some(s) => s,
                None if !wrapped => {
                    (i, wrapped) = (self.first, true);
                    continue;
                }
                None if i >= MAX_FDS => return Err(Errno::Mfile),
                None => {
                    self.grow(locate(i).0);
                    continue;
                }
            };
            if !s.used.load(Relaxed) && s.used.compare_exchange(false, true, Acquire, Relaxed).is_ok() {
                // The hint moves only past numbers found taken: the next search skips `i` with
                // one load, and a thread that closes what it opened writes no hint at all (an
                // atomic store is a locked instruction on wasm in V8).
                if i != start {
                    hint.store(i + 1, Relaxed);
                }
                return Ok((i, s));
            }
            i += 1;
        }
    }

    /// A number became free: the closing thread's searches start there again.
    #[inline]
    fn release_hint(&self, fd: usize) {
        let hint = &self.stripes.mine().fd_hint;
        if fd < hint.load(Relaxed) {
            hint.store(fd, Relaxed);
        }
    }

    /// Opens a new fd on `file` (offset 0). Holds no lock but the new slot's.
    pub(crate) fn insert(&self, file: OpenFile) -> Result<Fd> {
        let (i, s) = self.reserve()?;
        *s.entry.write() = Entry::Open { file, pos: 0 };
        Ok(i as Fd)
    }

    /// Inserts a description that is read without locks from now on (preopens).
    pub(crate) fn insert_pinned(&self, file: OpenFile) -> Result<Fd> {
        let (i, s) = self.reserve()?;
        let p = Box::into_raw(Box::new(file));
        *s.entry.write() = Entry::Pinned { file: p, pos: 0 };
        s.pinned.store(p, Release);
        Ok(i as Fd)
    }

    fn take(&self, s: &Slot, e: &mut Entry) -> Result<Removed> {
        match core::mem::replace(e, Entry::Empty) {
            Entry::Empty => Err(Errno::Badf),
            Entry::Open { file, .. } => Ok(Removed::Open(file)),
            Entry::Pinned { file, .. } => {
                s.pinned.store(ptr::null_mut(), Release);
                self.graveyard.lock().push(Grave(file));
                Ok(Removed::Buried)
            }
        }
    }

    /// Removes `fd`, after any call still using it has returned; the caller drops the result
    /// after this returns.
    pub(crate) fn remove(&self, fd: Fd) -> Result<Removed> {
        let s = self.slot(fd as usize).ok_or(Errno::Badf)?;
        let r = self.take(s, &mut s.entry.write())?;
        s.used.store(false, Release);
        self.release_hint(fd as usize);
        Ok(r)
    }

    /// `fd_renumber`: both must be open; `to` is closed and `from`'s description, with its
    /// offset, moves to `to`.
    pub(crate) fn renumber(&self, from: Fd, to: Fd) -> Result<Option<Removed>> {
        let a = self.slot(from as usize).ok_or(Errno::Badf)?;
        let b = self.slot(to as usize).ok_or(Errno::Badf)?;
        if from == to {
            return match &*a.entry.read() {
                Entry::Empty => Err(Errno::Badf),
                _ => Ok(None),
            };
        }
        let (mut ga, mut gb);
        if from < to {
            ga = a.entry.write();
            gb = b.entry.write();
        } else {
            gb = b.entry.write();
            ga = a.entry.write();
        }
        if matches!(*ga, Entry::Empty) || matches!(*gb, Entry::Empty) {
            return Err(Errno::Badf);
        }
        let old = self.take(b, &mut gb)?;
        let moved = core::mem::replace(&mut *ga, Entry::Empty);
        if let Entry::Pinned { file, .. } = moved {
            a.pinned.store(ptr::null_mut(), Release);
            b.pinned.store(file, Release);
        }
        *gb = moved;
        drop((ga, gb));
        a.used.store(false, Release);
        self.release_hint(from as usize);
        Ok(Some(old))
    }

    /// Number of open fds (tests check for leaks with it): a scan, exact when no other
    /// thread opens or closes meanwhile.
    pub(crate) fn count(&self) -> usize {
        let mut n = 0;
        let mut i = 0;
        while let Some(s) = self.slot(i) {
            if !matches!(*s.entry.read(), Entry::Empty) {
                n += 1;
            }
            i += 1;
        }
        n
    }
}

impl Drop for FdTable {
    fn drop(&mut self) {
        for Grave(p) in self.graveyard.lock().drain(..) {
            // SAFETY: graveyard entries come from Box::into_raw (insert_pinned) and were moved
            // here exactly once; `&mut self` means no reader is left.
            drop(unsafe { Box::from_raw(p) });
        }
        for seg in 0..SEGS {
            let p = *self.segs[seg].get_mut();
            if p.is_null() {
                continue;
            }
            // SAFETY: published segments were made by `grow` with this length; `&mut self`
            // means no reader is left.
            let slots = unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(p, SEG0 << seg)) };
            for s in slots.iter() {
                if let Entry::Pinned { file, .. } = core::mem::replace(&mut *s.entry.write(), Entry::Empty) {
                    // SAFETY: pinned descriptions come from Box::into_raw and are freed only here.
                    drop(unsafe { Box::from_raw(file) });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn segments() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(63), (0, 63));
        assert_eq!(locate(64), (1, 0));
        assert_eq!(locate(191), (1, 127));
        assert_eq!(locate(192), (2, 0));
        assert_eq!(locate(super::MAX_FDS - 1), (super::SEGS - 1, (super::SEG0 << (super::SEGS - 1)) - 1));
    }
}
