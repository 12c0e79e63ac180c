//! [`Fs`]: one filesystem instance (mount table, inode tree, process-wide fd table) and the
//! WASI preview1 `fd_*` calls. The `path_*` calls are in `path_ops.rs`.
//!
//! # Lock order (the only statement of it; every module follows it)
//!
//! 1. An fd's slot lock (`fd_table.rs`), held by an `fd_*` call for its whole duration: read
//!    for calls that leave the offset alone, write for those that use or move it (`fd_read`,
//!    `fd_write`, `fd_seek`) and for flag and right changes. An fd call holds at most one slot
//!    lock and takes no other slot lock under it; `fd_close` takes one slot write lock holding
//!    nothing else; `fd_renumber` takes two, the lower number first, holding nothing else;
//!    `path_open` reserves its new slot (a CAS on the slot's `used` flag) and write-locks it
//!    holding nothing else. Path calls hold no slot lock while they walk (`dir_file` returns
//!    the directory's inode, not a guard).
//! 2. `Fs::rename_lock` — taken only by a rename between two different directories (as Linux's
//!    `s_vfs_rename_mutex`). While it is held no directory changes its parent, so the ancestry
//!    used in step 3 is stable.
//! 3. Directory `data` locks (`dir.rs`, `dir_lock.rs`): an ancestor before its descendants; two
//!    unrelated directories in ascending inode number. Path resolution holds at most one
//!    directory read at a time, a *short read* (it writes only the thread's stripe, not the
//!    lock word), and none when it returns. A short read is a leaf: nothing is locked or waited
//!    for while it is held, above all no directory write lock (a writer waits until every
//!    stripe's short readers have left, its own thread's included). `fd_readdir` takes a
//!    (counted) read under its slot lock.
//! 4. A regular file's data lock (`Kind::File`).
//! 5. Leaf locks, under which nothing else is taken: the fd table's graveyard, a directory's
//!    `parent` pointer.
//!
//! Why the slot locks cannot deadlock: a thread waits for a slot lock only while it holds no
//! lock at all (at the start of an fd call, in `fd_close`, at the end of `path_open`), or in
//! `fd_renumber` only the lower-numbered slot's, so slot locks are taken in ascending order
//! and no slot lock waits behind another. A slot lock is taken before the file's
//! data lock (or the directory's read lock), and nothing that holds a data or directory lock
//! ever waits for a slot lock: path calls and renames have released the dirfd's slot lock
//! before they walk, and `path_open` inserts only after releasing every directory and data
//! lock. So no cycle of waits can form. Readers of one slot never wait for a waiting writer
//! (`sync.rs`), so a read lock may even be taken twice by one thread.
//!
//! Shared counters that every thread would write (fd search hints, inode numbers, directory
//! reader counts) live in per-thread stripes instead (`stripes.rs`), so threads on their own
//! files write no common cache line. The clock is read once per operation (`now` is passed
//! down): on wasm each read is a host call.
//!
//! Nothing blocks on another thread outside these locks. The clock is called with locks held,
//! so it must be a plain non-blocking function.
//!
//! # Concurrency guarantees
//! Reads and preads of one file run in parallel, except that `fd_read`s of one fd are
//! serialized (each gets distinct bytes); writes to one file are serialized (so each
//! `fd_write` with O_APPEND lands whole, after every earlier one); a close of an fd waits for
//! the calls using it to return (later calls get EBADF); rename replaces its target
//! atomically (a lookup sees the old or the new entry, never neither); an unlinked file lives
//! while any fd refers to it.

use crate::dir::Dir;
use crate::errno::{Errno, Result};
use crate::fd_table::{FdExclusive, FdShared, FdTable, OpenFile};
use crate::file::FileData;
use crate::inode::{Inode, Kind};
use crate::mount::MountTable;
use crate::path::resolve_existing;
use crate::stripes::{Stripes, INO_BATCH};
use crate::sync::{Mutex, RwLock};
use crate::types::*;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Default mode bits of new nodes (stored for stat and tar only).
pub(crate) const FILE_MODE: u32 = 0o644;
pub(crate) const DIR_MODE: u32 = 0o755;
pub(crate) const LINK_MODE: u32 = 0o777;

/// A filesystem: create one per process and share it (`&Fs` is `Sync`).
pub struct Fs {
    pub(crate) root: Arc<Inode>,
    pub(crate) fds: FdTable,
    pub(crate) mounts: MountTable,
    pub(crate) rename_lock: Mutex<()>,
    /// Per-thread state: directory readers, fd hints, inode-number batches.
    pub(crate) stripes: Arc<Stripes>,
    /// Start of the next unclaimed batch of [`INO_BATCH`] inode numbers.
    ino_batches: AtomicU64,
    clock: Clock,
}

fn zero_clock() -> Timestamp {
    0
}

impl Default for Fs {
    fn default() -> Self {
        Fs::new(zero_clock)
    }
}

impl Fs {
    /// An empty filesystem whose timestamps come from `clock`. fds 0..=2 are left to stdio.
    pub fn new(clock: Clock) -> Fs {
        let stripes = Arc::new(Stripes::new());
        let root =
            Arc::new(Inode::new(1, 0, Kind::Dir(Dir::new(Weak::new(), stripes.clone())), DIR_MODE, clock()));
        Fs {
            root,
            fds: FdTable::new(3, stripes.clone()),
            mounts: MountTable::new(),
            rename_lock: Mutex::new(()),
            stripes,
            ino_batches: AtomicU64::new(INO_BATCH),
            clock,
        }
    }

    #[inline]
    pub(crate) fn now(&self) -> Timestamp {
        (self.clock)()
    }

    /// A fresh inode number from the calling thread's batch (unique; not in creation order
    /// across threads, as on Linux's tmpfs). A batch is used up when the stripe's next number
    /// is a multiple of INO_BATCH; then the stripe claims a new batch from `ino_batches`.
    fn next_ino(&self) -> u64 {
        let next = &self.stripes.mine().next_ino;
        loop {
            let n = next.load(Relaxed);
            if n % INO_BATCH != 0 {
                if next.compare_exchange_weak(n, n + 1, Relaxed, Relaxed).is_ok() {
                    return n;
                }
                continue;
            }
            let batch = self.ino_batches.fetch_add(INO_BATCH, Relaxed);
            // Another thread of this stripe may have refilled first: then this batch is
            // skipped (numbers are plentiful) and we take from theirs.
            if next.compare_exchange(n, batch + 1, Relaxed, Relaxed).is_ok() {
                return batch;
            }
        }
    }

    pub(crate) fn new_inode(&self, dev: u64, kind: Kind, mode: u32, now: Timestamp) -> Arc<Inode> {
        Arc::new(Inode::new(self.next_ino(), dev, kind, mode, now))
    }

    pub(crate) fn new_dir(&self, parent: &Arc<Inode>, dev: u64, now: Timestamp) -> Arc<Inode> {
        self.new_inode(dev, Kind::Dir(Dir::new(Arc::downgrade(parent), self.stripes.clone())), DIR_MODE, now)
    }

    pub(crate) fn new_file(&self, dev: u64, now: Timestamp) -> Arc<Inode> {
        self.new_inode(dev, Kind::File(RwLock::new(FileData::default())), FILE_MODE, now)
    }

    /// Makes `guest_path` (e.g. `/tmp`) a memory mount with its own device id. Parents are
    /// created as needed on the hidden root device.
    pub fn mount_memory(&self, guest_path: &[u8], readonly: bool) -> Result<()> {
        let (parent, name) = self.mkdir_parents(guest_path)?;
        let pdir = parent.as_dir().ok_or(Errno::Notdir)?;
        let mut d = pdir.data.write();
        if d.get(&name).is_some() {
            return Err(Errno::Exist);
        }
        let dev = self.mounts.add(readonly)?;
        let node = self.new_dir(&parent, dev, self.now());
        d.insert(&name, node);
        parent.nlink.fetch_add(1, Relaxed);
        Ok(())
    }

    /// Changes whether the mount at (or containing) `guest_path` is read-only (e.g. after a
    /// tar import has preloaded it).
    pub fn set_readonly(&self, guest_path: &[u8], readonly: bool) -> Result<()> {
        let rel = trim_root(guest_path);
        let node = if rel.is_empty() { self.root.clone() } else { resolve_existing(&self.root, rel, true)? };
        if node.dev == 0 {
            return Err(Errno::Inval);
        }
        self.mounts.set_readonly(node.dev, readonly);
        Ok(())
    }

    /// Creates the directories of `guest_path` except the last; returns the parent and name.
    fn mkdir_parents(&self, guest_path: &[u8]) -> Result<(Arc<Inode>, Vec<u8>)> {
        let rel = trim_root(guest_path);
        let mut cur = self.root.clone();
        let mut parts = rel.split(|&b| b == b'/').filter(|p| !p.is_empty()).peekable();
        while let Some(part) = parts.next() {
            if part == b"." || part == b".." || part.contains(&0) {
                return Err(Errno::Inval);
            }
            if parts.peek().is_none() {
                return Ok((cur, part.to_vec()));
            }
            let next = {
                let dir = cur.as_dir().ok_or(Errno::Notdir)?;
                let mut d = dir.data.write();
                match d.get(part) {
                    Some(n) => n.clone(),
                    None => {
                        let n = self.new_dir(&cur, cur.dev, self.now());
                        d.insert(part, n.clone());
                        cur.nlink.fetch_add(1, Relaxed);
                        n
                    }
                }
            };
            cur = next;
        }
        Err(Errno::Inval)
    }

    /// Opens `guest_path` (a directory, created if missing) as a preopen with every right;
    /// `fd_prestat_dir_name` will report `guest_path`.
    pub fn preopen(&self, guest_path: &[u8]) -> Result<Fd> {
        let rel = trim_root(guest_path);
        let node = if rel.is_empty() {
            self.root.clone()
        } else {
            match resolve_existing(&self.root, rel, true) {
                Ok(n) => n,
                Err(Errno::Noent) => {
                    self.mount_memory(guest_path, false).or_else(|e| {
                        if e == Errno::Exist {
                            Ok(())
                        } else {
                            Err(e)
                        }
                    })?;
                    resolve_existing(&self.root, rel, true)?
                }
                Err(e) => return Err(e),
            }
        };
        if !node.is_dir() {
            return Err(Errno::Notdir);
        }
        let mut of = OpenFile::new(node, true, false, 0, rights::ALL, rights::ALL);
        of.preopen = Some(guest_path.into());
        self.fds.insert_pinned(of)
    }

    // ---- fd table ------------------------------------------------------------------------

    /// `fd` read-locked for a call that leaves its offset alone (see the lock order).
    #[inline]
    pub(crate) fn file(&self, fd: Fd) -> Result<FdShared<'_>> {
        self.fds.read(fd)
    }

    /// `fd` write-locked for a call that uses or moves its offset or changes its flags.
    #[inline]
    fn file_mut(&self, fd: Fd) -> Result<FdExclusive<'_>> {
        self.fds.write(fd)
    }

    /// Stamps mtime and ctime of `node` if a change marked them (`inode.rs`): one clock read
    /// for any number of writes.
    #[inline]
    pub(crate) fn stamp_marked(&self, node: &Inode) {
        if node.marked.load(Relaxed) && node.marked.swap(false, Relaxed) {
            node.touch_modified(self.now());
        }
    }

    /// `fd_close`.
    pub fn fd_close(&self, fd: Fd) -> Result<()> {
        let f = self.fds.remove(fd)?;
        if let Some(of) = f.file() {
            self.stamp_marked(&of.inode);
        }
        drop(f);
        Ok(())
    }

    /// `fd_renumber`: atomically makes `to` refer to what `from` referred to, closing `to`.
    pub fn fd_renumber(&self, from: Fd, to: Fd) -> Result<()> {
        let old = self.fds.renumber(from, to)?;
        if let Some(of) = old.as_ref().and_then(|o| o.file()) {
            self.stamp_marked(&of.inode);
        }
        drop(old);
        Ok(())
    }

    /// Number of open fds, preopens included (for leak checks).
    pub fn open_fds(&self) -> usize {
        self.fds.count()
    }

    /// `fd_prestat_get`: EBADF unless `fd` is a preopen.
    pub fn fd_prestat_get(&self, fd: Fd) -> Result<Prestat> {
        let f = self.file(fd)?;
        let name = f.preopen.as_ref().ok_or(Errno::Badf)?;
        Ok(Prestat { name_len: name.len() as u32 })
    }

    /// `fd_prestat_dir_name`: copies the preopen's guest name (ENAMETOOLONG if `buf` is short).
    pub fn fd_prestat_dir_name(&self, fd: Fd, buf: &mut [u8]) -> Result<()> {
        let f = self.file(fd)?;
        let name = f.preopen.as_ref().ok_or(Errno::Badf)?;
        if buf.len() < name.len() {
            return Err(Errno::Nametoolong);
        }
        buf[..name.len()].copy_from_slice(name);
        Ok(())
    }

    // ---- data ----------------------------------------------------------------------------

    /// `fd_read`: reads at the fd's offset into `bufs` and advances it.
    pub fn fd_read(&self, fd: Fd, bufs: &mut [IoSliceMut<'_>]) -> Result<usize> {
        let mut g = self.file_mut(fd)?;
        let (f, pos) = g.parts();
        let data = readable_file(f)?;
        let n = data.read().read_at(*pos, bufs);
        *pos += n as u64;
        Ok(n)
    }

    /// `fd_pread`: reads at `offset`; the fd's offset is unchanged.
    pub fn fd_pread(&self, fd: Fd, bufs: &mut [IoSliceMut<'_>], offset: u64) -> Result<usize> {
        let f = self.file(fd)?;
        let data = readable_file(&f)?;
        if offset > file_max() {
            return Err(Errno::Inval);
        }
        let n = data.read().read_at(offset, bufs);
        Ok(n)
    }

    /// `fd_write`: writes at the fd's offset (at the end, atomically, with O_APPEND).
    pub fn fd_write(&self, fd: Fd, bufs: &[IoSlice<'_>]) -> Result<usize> {
        let mut g = self.file_mut(fd)?;
        let (f, pos) = g.parts();
        let data = writable_file(f)?;
        let mut d = data.write();
        let at = if f.append() { d.size() } else { *pos };
        let n = d.write_at(at, bufs)?;
        drop(d);
        *pos = at + n as u64;
        if n > 0 {
            f.inode.mark_modified();
        }
        Ok(n)
    }

    /// `fd_pwrite`: writes at `offset` without moving the fd's offset. As on Linux, an O_APPEND
    /// fd appends regardless of `offset`.
    pub fn fd_pwrite(&self, fd: Fd, bufs: &[IoSlice<'_>], offset: u64) -> Result<usize> {
        let f = self.file(fd)?;
        let data = writable_file(&f)?;
        if offset > file_max() {
            return Err(Errno::Inval);
        }
        let mut d = data.write();
        let at = if f.append() { d.size() } else { offset };
        let n = d.write_at(at, bufs)?;
        drop(d);
        if n > 0 {
            f.inode.mark_modified();
        }
        Ok(n)
    }

    /// `fd_seek`: returns the new offset.
    pub fn fd_seek(&self, fd: Fd, offset: i64, whence: Whence) -> Result<u64> {
        let mut g = self.file_mut(fd)?;
        let (f, pos) = g.parts();
        f.require(if offset == 0 && whence == Whence::Cur { rights::FD_TELL } else { rights::FD_SEEK })?;
        let base = match whence {
            Whence::Set => 0,
            Whence::Cur => *pos as i64,
            Whence::End => match f.inode.as_file() {
                Some(d) => d.read().size() as i64,
                // Directory offsets are readdir positions; there is no end (EINVAL on Linux).
                None => return Err(Errno::Inval),
            },
        };
        let new = base.checked_add(offset).ok_or(Errno::Overflow)?;
        if new < 0 {
            return Err(Errno::Inval);
        }
        *pos = new as u64;
        Ok(new as u64)
    }

    /// `fd_tell`.
    pub fn fd_tell(&self, fd: Fd) -> Result<u64> {
        let f = self.file(fd)?;
        f.require(rights::FD_TELL)?;
        Ok(f.pos())
    }

    /// `fd_sync` / `fd_datasync`: memory is always in sync.
    pub fn fd_sync(&self, fd: Fd) -> Result<()> {
        self.stamp_marked(&self.file(fd)?.inode);
        Ok(())
    }

    /// `fd_datasync`.
    pub fn fd_datasync(&self, fd: Fd) -> Result<()> {
        self.fd_sync(fd)
    }

    /// `fd_advise`: validated, otherwise ignored.
    pub fn fd_advise(&self, fd: Fd, _offset: u64, _len: u64, advice: u8) -> Result<()> {
        let f = self.file(fd)?;
        if advice > 5 {
            return Err(Errno::Inval);
        }
        if f.inode.is_dir() {
            return Err(Errno::Badf);
        }
        Ok(())
    }

    /// `fd_allocate`: makes the file at least `offset + len` bytes long.
    pub fn fd_allocate(&self, fd: Fd, offset: u64, len: u64) -> Result<()> {
        let f = self.file(fd)?;
        if len == 0 {
            return Err(Errno::Inval);
        }
        let data = writable_file(&f)?;
        let end = offset.checked_add(len).ok_or(Errno::Fbig)?;
        let mut d = data.write();
        if end > d.size() {
            d.set_size(end)?;
            drop(d);
            f.inode.mark_modified();
        }
        Ok(())
    }

    /// `fd_filestat_set_size` (ftruncate). EINVAL unless the fd was opened for writing.
    pub fn fd_filestat_set_size(&self, fd: Fd, size: u64) -> Result<()> {
        let f = self.file(fd)?;
        let data = match (f.inode.as_file(), f.writable) {
            (Some(d), true) => d,
            _ => return Err(Errno::Inval),
        };
        data.write().set_size(size)?;
        f.inode.mark_modified();
        Ok(())
    }

    // ---- metadata ------------------------------------------------------------------------

    /// `fd_filestat_get`.
    pub fn fd_filestat_get(&self, fd: Fd) -> Result<Filestat> {
        let f = self.file(fd)?;
        self.stamp_marked(&f.inode);
        Ok(f.inode.stat())
    }

    /// `fd_filestat_set_times`.
    pub fn fd_filestat_set_times(&self, fd: Fd, atim: Timestamp, mtim: Timestamp, flags: u16) -> Result<()> {
        let f = self.file(fd)?;
        self.set_times(&f.inode, atim, mtim, flags)
    }

    pub(crate) fn set_times(&self, node: &Inode, atim: Timestamp, mtim: Timestamp, flags: u16) -> Result<()> {
        use fstflags::*;
        if (flags & ATIM != 0 && flags & ATIM_NOW != 0) || (flags & MTIM != 0 && flags & MTIM_NOW != 0) {
            return Err(Errno::Inval);
        }
        self.mounts.check_access(node.dev, true)?;
        // A marked change is older than these times: stamp it first so it cannot override them.
        self.stamp_marked(node);
        let now = self.now();
        if flags & ATIM != 0 {
            node.atim.store(atim, Relaxed);
        } else if flags & ATIM_NOW != 0 {
            node.atim.store(now, Relaxed);
        }
        if flags & MTIM != 0 {
            node.mtim.store(mtim, Relaxed);
        } else if flags & MTIM_NOW != 0 {
            node.mtim.store(now, Relaxed);
        }
        node.touch_changed(now);
        Ok(())
    }

    /// `fd_fdstat_get`.
    pub fn fd_fdstat_get(&self, fd: Fd) -> Result<Fdstat> {
        // wasi-libc asks this of the directory before every open: a preopen takes no lock.
        if let Some(f) = self.fds.pinned(fd) {
            return Ok(Self::fdstat(f));
        }
        Ok(Self::fdstat(&*self.file(fd)?))
    }

    /// The fdstat of a description.
    fn fdstat(f: &OpenFile) -> Fdstat {
        Fdstat {
            filetype: f.inode.filetype(),
            flags: f.flags.load(Relaxed),
            rights_base: f.rights_base.load(Relaxed),
            rights_inheriting: f.rights_inheriting.load(Relaxed),
        }
    }

    /// `fd_fdstat_set_flags`: APPEND and NONBLOCK can change; the sync flags cannot (ENOTSUP).
    pub fn fd_fdstat_set_flags(&self, fd: Fd, flags: u16) -> Result<()> {
        let f = self.file_mut(fd)?;
        f.require(rights::FD_FDSTAT_SET_FLAGS)?;
        if flags & !(fdflags::APPEND | fdflags::NONBLOCK) != 0 {
            return Err(Errno::Notsup);
        }
        f.flags.store(flags, Relaxed);
        Ok(())
    }

    /// `fd_fdstat_set_rights`: rights may only shrink (ENOTCAPABLE otherwise).
    pub fn fd_fdstat_set_rights(&self, fd: Fd, base: u64, inheriting: u64) -> Result<()> {
        let f = self.file_mut(fd)?;
        let (b, i) = (f.rights_base.load(Relaxed), f.rights_inheriting.load(Relaxed));
        if base & !b != 0 || inheriting & !i != 0 {
            return Err(Errno::Notcapable);
        }
        f.rights_base.store(base, Relaxed);
        f.rights_inheriting.store(inheriting, Relaxed);
        Ok(())
    }

    // ---- directories ---------------------------------------------------------------------

    /// `fd_readdir` as values: the entries after `cookie` (`.` and `..` first), at most `max`.
    pub fn fd_readdir(&self, fd: Fd, cookie: u64, max: usize) -> Result<Vec<Dirent>> {
        let f = self.file(fd)?;
        let dir = f.inode.as_dir().ok_or(Errno::Notdir)?;
        f.require(rights::FD_READDIR)?;
        let mut out = Vec::new();
        if max == 0 {
            return Ok(out);
        }
        if cookie == 0 {
            out.push(Dirent {
                next: 1,
                ino: f.inode.ino,
                filetype: FileType::Directory,
                name: b".".to_vec(),
            });
        }
        if cookie <= 1 && out.len() < max {
            let pino = dir.parent().map_or(f.inode.ino, |p| p.ino);
            out.push(Dirent { next: 2, ino: pino, filetype: FileType::Directory, name: b"..".to_vec() });
        }
        let d = dir.data.read();
        for (c, name, node) in d.after(cookie) {
            if out.len() >= max {
                break;
            }
            out.push(Dirent { next: c, ino: node.ino, filetype: node.filetype(), name: name.to_vec() });
        }
        Ok(out)
    }

    /// `fd_readdir` exactly as the WASI call: serializes dirent records after `cookie` into
    /// `buf` (the last one possibly cut, as wasmtime does) and returns the bytes used.
    pub fn fd_readdir_into(&self, fd: Fd, buf: &mut [u8], cookie: u64) -> Result<usize> {
        // Each record takes at least DIRENT_SIZE + 1 bytes, so this many entries fill `buf`.
        let max = buf.len() / (DIRENT_SIZE + 1) + 1;
        let entries = self.fd_readdir(fd, cookie, max)?;
        Ok(write_dirents(&entries, buf))
    }
}

fn trim_root(p: &[u8]) -> &[u8] {
    let mut s = p;
    while let [b'/', rest @ ..] = s {
        s = rest;
    }
    s
}

#[inline]
fn file_max() -> u64 {
    crate::file::MAX_SIZE
}

#[inline]
fn readable_file(f: &OpenFile) -> Result<&RwLock<FileData>> {
    if !f.readable {
        return Err(Errno::Badf);
    }
    match f.inode.as_file() {
        Some(d) => Ok(d),
        None if f.inode.is_dir() => Err(Errno::Isdir),
        None => Err(Errno::Inval),
    }
}

#[inline]
fn writable_file(f: &OpenFile) -> Result<&RwLock<FileData>> {
    if !f.writable {
        return Err(Errno::Badf);
    }
    match f.inode.as_file() {
        Some(d) => Ok(d),
        None if f.inode.is_dir() => Err(Errno::Isdir),
        None => Err(Errno::Inval),
    }
}
