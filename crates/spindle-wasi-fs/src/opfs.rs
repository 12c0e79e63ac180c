//! OPFS-backed mounts: a spindle-fs memory mount that is a CACHE of an OPFS directory (the
//! browser's Origin Private File System; its root or any subdirectory).
//!
//! **Design.** The core caches file data in memory and writes back on fsync, close, normal exit
//! and after a short idle time; what is queued reaches OPFS as soon as the I/O worker is idle. So
//! small reads and writes run at memory speed while fsync gives durability.
//! - **Load** (mount time, [`mount`]): the I/O worker (runtime/src/fs/opfs-io-worker.ts) reads the
//!   OPFS directory and hands it over as a tar stream, imported into the fresh memory mount; so
//!   files that other tabs or page code created before the mount are visible. (The memory-FS
//!   module's host loads the directory itself, without blocking, and calls [`mount_loaded`].)
//! - **Write-back**: a whole-file snapshot (its bytes at that moment) is queued to the I/O worker,
//!   which owns every FileSystemSyncAccessHandle. `fd_close` of an fd that could have changed
//!   the file (opened for writing, O_CREAT or O_TRUNC) queues one and does not wait; `fd_sync`/
//!   `fd_datasync` (any fd of a regular file) queues one and WAITS (Atomics.wait, in the
//!   calling thread's worker) until the I/O worker has flushed it: that is the durability point.
//! - **Exit flush** ([`flush_open`]): at a normal exit every file still open through an fd that
//!   could change it is queued like a close (in-program: wasi-libc's `atexit`, registered by
//!   the start-up constructor when a start-up mount is an OPFS mount, `opfs_tasks.rs`; module
//!   build: the runtime calls the export on the exiting thread).
//! - **Idle write-back** ([`flush_idle`], every [`IDLE_TICK_MS`]): each such file that changed
//!   since its last snapshot (its mtime differs from the one the snapshot recorded) and then
//!   stayed unchanged for a whole tick is queued (in-program: the thread in `opfs_tasks.rs`;
//!   module build: the runtime's idle worker, runtime/src/fs/opfs-idle-worker.ts).
//! - **Namespace**: mkdir, unlink, rmdir and rename are mirrored, in the order they happened
//!   here (the change and its queueing happen under one lock). Links and symlinks do not exist
//!   in OPFS: `path_link`/`path_symlink` on an OPFS mount answer ENOTSUP.
//! - **Crash safety** (I/O worker): a snapshot is written to a temporary sibling
//!   (`.spindle-tmp.NAME`), flushed, closed and then moved over `NAME`; Chromium's `move()`
//!   replaces an existing destination in one step of its directory database, so a crash leaves
//!   either the old or the new bytes of an fsynced file, never a mix. Temporaries a crash left
//!   behind are deleted at the next load.
//! - **Errors**: a failed write-back (QuotaExceededError -> ENOSPC, anything else -> EIO) is
//!   returned by the fsync that waited for it; for a queued write-back nobody waited for, it is
//!   kept per file and returned by the next fsync or close of that file (like Linux's deferred
//!   writeback errors). It is also printed on the console. Never a silent loss.
//!
//! **What is persisted when.** After `fsync` returns 0: the file's bytes at the time of the call
//! and every namespace change made before it. After `close`, a normal exit (return from main,
//! `exit()`) and 1 to 2 ticks (100-200 ms) after the last write to a file left open: nothing
//! yet; the snapshot is queued and reaches OPFS when the I/O worker gets to it (normally within
//! milliseconds, also after the program has exited, as long as the page stays open). A crash
//! (tab killed, trap, in-program `proc_exit` called directly) loses what was written since the
//! last of these points. Timestamps and permission bits are not persisted (OPFS has only
//! lastModified).
//!
//! **Cost for memory mounts**: one relaxed atomic load ([`active`]) in open, close, sync,
//! renumber and the namespace calls; data calls (read, write, seek, stat) have no hook at all.
//! No exit handler and no idle thread exist until an OPFS mount (a writable open on one) does.
//! Without the `opfs` feature [`active`] is the constant `false`, the module imports nothing
//! and the exit flush and idle scan do not exist.
//!
//! The hooks are given the [`Fs`] by their callers; the work that runs outside any fs call
//! (the in-program exit flush and idle thread) is in `opfs_tasks.rs`.
//!
//! **Side table**: fd -> (mount, path below the mount root, write-back?) for every fd on an OPFS
//! mount, including the mount's preopen (path ""). Paths are canonical (no `.`, `..` or
//! symlinks, which cannot exist on these mounts); a rename rewrites every path below it.
//!
//! Thread rules: ONE spin lock (`LOCK`) guards the table and is held across "change the tree +
//! queue the mirror" and "snapshot + queue" (close, fsync, exit and idle scans alike), so the
//! I/O worker sees the operations in the order the tree saw them. Lock order: this lock, then
//! spindle-fs's locks; spindle-fs never calls back. Waiting for the I/O worker (fsync) happens
//! after the lock is released.

use crate::opfs_host as host;
use crate::opfs_path::join;
use crate::spin::SpinLock;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::cell::{Cell, UnsafeCell};
use core::sync::atomic::{AtomicBool, Ordering::*};
use spindle_fs::{oflags, rights, Errno, Fd, FileType, Fs};

pub(crate) use host::Op;

/// True once an OPFS mount exists (never false again).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Is any OPFS mount present? The only cost a memory mount pays.
#[inline(always)]
pub(crate) fn active() -> bool {
    cfg!(feature = "opfs") && ACTIVE.load(Relaxed)
}

/// One fd on an OPFS mount.
struct Node {
    mount: u32,
    path: Vec<u8>,
    write_back: bool,
    /// Idle write-back (write-back fds only): the file's mtime when its last snapshot was
    /// taken (`NEVER`: none since this fd was opened) and at the last idle scan.
    seen: Cell<u64>,
    #[cfg(feature = "opfs")]
    observed: Cell<u64>,
}

impl Node {
    fn new(mount: u32, path: Vec<u8>, write_back: bool) -> Node {
        Node {
            mount,
            path,
            write_back,
            seen: Cell::new(NEVER),
            #[cfg(feature = "opfs")]
            observed: Cell::new(NEVER),
        }
    }
}

/// No snapshot yet (no real mtime is `u64::MAX`).
const NEVER: u64 = u64::MAX;

struct Table {
    fds: BTreeMap<Fd, Node>,
}

struct Locked(UnsafeCell<Table>);
// SAFETY: the table is only reached through `with`, which holds `LOCK`.
unsafe impl Sync for Locked {}
static TABLE: Locked = Locked(UnsafeCell::new(Table { fds: BTreeMap::new() }));
static LOCK: SpinLock = SpinLock::new();

/// Runs `f` with the table locked.
fn with<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    LOCK.lock();
    // SAFETY: we hold the lock; `f` cannot re-enter `with` (nothing it calls does).
    let r = f(unsafe { &mut *TABLE.0.get() });
    LOCK.unlock();
    r
}

/// Mounts the OPFS directory `opfs_dir` ("" = the OPFS root; "a/b" = a subdirectory, created if
/// missing) at `guest_path`: a memory mount filled with the directory's current contents and
/// mirrored back from now on. Returns the mount's preopen fd (spindle-fs's number).
#[cfg(not(spindle_fs_module))]
pub(crate) fn mount(fs: &Fs, guest_path: &[u8], opfs_dir: &[u8]) -> Result<Fd, Errno> {
    let (mount, tar) = host::load(opfs_dir)?;
    mount_loaded(fs, guest_path, mount, &tar)
}

/// The second half of [`mount`], for a host that loaded the directory itself (the memory-FS
/// module's host loads it asynchronously on the page, which may not block): `mount` is the I/O
/// worker's id for it and `tar` its contents. Returns the mount's preopen fd.
pub fn mount_loaded(fs: &Fs, guest_path: &[u8], mount: u32, tar: &[u8]) -> Result<Fd, Errno> {
    fs.mount_memory(guest_path, false)?;
    let root = fs.preopen(guest_path)?;
    if tar.iter().any(|&b| b != 0) {
        fs.tar_import(root, b".", tar)?;
    }
    with(|t| t.fds.insert(root, Node::new(mount, Vec::new(), false)));
    ACTIVE.store(true, Release);
    Ok(root)
}

/// Exit flush: queues a write-back of every file on an OPFS mount that is still open through
/// an fd that could have changed it (as its close would), without waiting: the I/O worker
/// writes them after the program ended, while the page stays open. Runs on the exiting thread
/// (in-program: wasi-libc's atexit handlers; module build: the runtime before it publishes the
/// exit). Takes only the spin lock and spindle-fs's locks (no Atomics wait on the I/O worker),
/// which threads still running release. Errors are printed by the I/O worker; nobody is left
/// to return them to.
#[cfg(feature = "opfs")]
pub fn flush_open(fs: &Fs) {
    if active() {
        with(|t| flush_where(fs, t, |_, _| true));
    }
}

/// Idle write-back, called every [`IDLE_TICK_MS`] (in-program: the thread in `opfs_tasks.rs`;
/// module build: the runtime's idle worker through its export): queues a write-back of every file
/// open for writing on an OPFS mount that changed since its last snapshot and then stayed
/// unchanged for a whole tick, so it reaches OPFS 1 to 2 ticks after its last write. "Changed"
/// is the file's mtime, which spindle-fs stamps from the clock at the first stat after a write
/// (this scan's own stat included); a write within the clock's resolution of the snapshot's
/// stamp goes unseen here (close, fsync and exit still write it back).
#[cfg(feature = "opfs")]
pub fn flush_idle(fs: &Fs) {
    if active() {
        with(|t| {
            flush_where(fs, t, |fd, n| {
                let Ok(st) = fs.fd_filestat_get(fd) else {
                    return false;
                };
                let idle = st.mtim == n.observed.get();
                n.observed.set(st.mtim);
                idle && st.mtim != n.seen.get()
            })
        });
    }
}

/// The milliseconds between two idle scans ([`flush_idle`]).
#[cfg(feature = "opfs")]
pub const IDLE_TICK_MS: u32 = 100;

/// Queues a write-back of each file open for writing whose fd passes `due` (once per file),
/// under the lock.
#[cfg(feature = "opfs")]
fn flush_where(fs: &Fs, t: &Table, mut due: impl FnMut(Fd, &Node) -> bool) {
    let mut done: Vec<(u32, &[u8])> = Vec::new();
    for (&fd, node) in t.fds.iter().filter(|(_, n)| n.write_back) {
        let key = (node.mount, node.path.as_slice());
        if done.contains(&key) || !due(fd, node) {
            continue;
        }
        let _ = queue_snapshot(fs, t, fd, node);
        let seen = node.seen.get();
        for n in t.fds.values().filter(|n| (n.mount, n.path.as_slice()) == key) {
            n.seen.set(seen);
        }
        done.push(key);
    }
}

/// After a successful `path_open` of `path` (relative to `dir`) that gave `fd`. True if `fd`
/// is on an OPFS mount and could change its file (it is written back: in-program, the idle
/// write-back thread should run).
#[inline]
pub(crate) fn opened(dir: Fd, path: &[u8], oflags: u16, base: u64, fd: Fd) -> bool {
    active() && opened_slow(dir, path, oflags, base, fd)
}

#[cold]
#[inline(never)]
fn opened_slow(dir: Fd, path: &[u8], of: u16, base: u64, fd: Fd) -> bool {
    with(|t| {
        let Some(d) = t.fds.get(&dir) else {
            return false;
        };
        let Some(path) = join(&d.path, path) else {
            return false;
        };
        let changes = of & (oflags::CREAT | oflags::TRUNC) != 0 || base & rights::WRITE_MODE != 0;
        let write_back = changes && of & oflags::DIRECTORY == 0;
        t.fds.insert(fd, Node::new(d.mount, path, write_back));
        write_back
    })
}

/// `fd_close` through `close`: queues the write-back first (the fd is still open for the
/// snapshot), then closes; a deferred write-back error of the file is returned after the close.
#[inline]
pub(crate) fn close(fs: &Fs, fd: Fd, close: impl FnOnce() -> Result<(), Errno>) -> Result<(), Errno> {
    if !active() {
        return close();
    }
    close_slow(fs, fd, close)
}

#[cold]
#[inline(never)]
fn close_slow(fs: &Fs, fd: Fd, close: impl FnOnce() -> Result<(), Errno>) -> Result<(), Errno> {
    let queued = with(|t| {
        let node = t.fds.get(&fd)?;
        let r = if node.write_back { queue_snapshot(fs, t, fd, node) } else { Ok(0) };
        Some((node.mount, node.path.clone(), r))
    });
    close()?;
    let Some((mount, path, r)) = queued else {
        return Ok(());
    };
    with(|t| t.fds.remove(&fd));
    r?;
    host::take_error(mount, &path)
}

/// `fd_sync`/`fd_datasync` through `sync`: then, on an OPFS mount, a write-back of the whole
/// file (a directory: of every change queued before) that this thread waits for.
#[inline]
pub(crate) fn sync(fs: &Fs, fd: Fd, sync: impl FnOnce() -> Result<(), Errno>) -> Result<(), Errno> {
    sync()?;
    if !active() {
        return Ok(());
    }
    sync_slow(fs, fd)
}

#[cold]
#[inline(never)]
fn sync_slow(fs: &Fs, fd: Fd) -> Result<(), Errno> {
    let queued = with(|t| {
        let node = t.fds.get(&fd)?;
        let seq = match is_file(fs, fd) {
            true => queue_snapshot(fs, t, fd, node),
            false => host::namespace(node.mount, Op::Barrier, b"", b""),
        };
        Some((node.mount, node.path.clone(), seq))
    });
    match queued {
        None => Ok(()),
        Some((mount, path, seq)) => host::wait(mount, seq?, &path),
    }
}

/// `fd_renumber(from, to)` through `renumber`: `to`'s file is written back as by a close, and
/// `from`'s entry moves to `to`.
#[inline]
pub(crate) fn renumber(
    fs: &Fs,
    from: Fd,
    to: Fd,
    renumber: impl FnOnce() -> Result<(), Errno>,
) -> Result<(), Errno> {
    if !active() {
        return renumber();
    }
    with(|t| {
        if let Some(node) = t.fds.get(&to).filter(|n| n.write_back) {
            let _ = queue_snapshot(fs, t, to, node);
        }
        renumber()?;
        t.fds.remove(&to);
        if let Some(node) = t.fds.remove(&from) {
            t.fds.insert(to, node);
        }
        Ok(())
    })
}

/// A namespace call (`op` on `path` relative to `dir`; `to` for a rename or link) through
/// `change`: on an OPFS mount the change is made and mirrored under the lock.
#[inline]
pub(crate) fn namespace(
    op: Op,
    dir: Fd,
    path: &[u8],
    to: Option<(Fd, &[u8])>,
    change: impl FnOnce() -> Result<(), Errno>,
) -> Result<(), Errno> {
    if !active() {
        return change();
    }
    namespace_slow(op, dir, path, to, change)
}

#[cold]
#[inline(never)]
fn namespace_slow(
    op: Op,
    dir: Fd,
    path: &[u8],
    to: Option<(Fd, &[u8])>,
    change: impl FnOnce() -> Result<(), Errno>,
) -> Result<(), Errno> {
    with(|t| {
        let from = t.fds.get(&dir).map(|n| (n.mount, join(&n.path, path)));
        let dest = to.map(|(d, p)| t.fds.get(&d).map(|n| (n.mount, join(&n.path, p))));
        let on_opfs = from.is_some() || matches!(dest, Some(Some(_)));
        if !on_opfs {
            return change();
        }
        if matches!(op, Op::Link | Op::Symlink) {
            return Err(Errno::Notsup);
        }
        change()?;
        // A path this module cannot name (it went through `..` above the fd) was still changed
        // in memory; its mirror is skipped (it cannot happen on a canonical, symlink-free tree).
        let (Some((mount, Some(a))), b) = (from, dest) else {
            return Ok(());
        };
        let b = match b {
            Some(Some((_, Some(b)))) => b,
            Some(_) => return Ok(()),
            None => Vec::new(),
        };
        host::namespace(mount, op, &a, &b)?;
        if op == Op::Rename {
            rename_paths(t, mount, &a, &b);
        }
        Ok(())
    })
}

/// Rewrites the side table after `a` was renamed to `b` on `mount`.
fn rename_paths(t: &mut Table, mount: u32, a: &[u8], b: &[u8]) {
    for n in t.fds.values_mut().filter(|n| n.mount == mount) {
        let below = n.path.len() > a.len() && n.path.starts_with(a) && n.path[a.len()] == b'/';
        if n.path == a || below {
            let mut p = b.to_vec();
            p.extend_from_slice(&n.path[a.len()..]);
            n.path = p;
        }
    }
}

/// Is `fd` a regular file?
fn is_file(fs: &Fs, fd: Fd) -> bool {
    fs.fd_filestat_get(fd).is_ok_and(|s| s.filetype == FileType::RegularFile)
}

/// Queues a write-back of the file open as `fd` (under the lock). The bytes are read through
/// a second fd opened by path, so a write-only fd works too; if the path no longer names the
/// fd's file (unlinked or replaced), there is nothing to write back. Returns the sequence
/// number to wait for (0: nothing queued).
fn queue_snapshot(fs: &Fs, t: &Table, fd: Fd, node: &Node) -> Result<u32, Errno> {
    let Some(bytes) = snapshot(fs, t, fd, node)? else {
        return Ok(0);
    };
    host::write_back(node.mount, &node.path, &bytes)
}

/// The file's bytes; records its mtime (stamped by this stat, taken before the bytes are read,
/// so a later write shows as a later mtime) in `node.seen`.
fn snapshot(fs: &Fs, t: &Table, fd: Fd, node: &Node) -> Result<Option<Vec<u8>>, Errno> {
    let st = fs.fd_filestat_get(fd)?;
    if st.filetype != FileType::RegularFile {
        return Ok(None);
    }
    node.seen.set(st.mtim);
    let root = root_of(t, node.mount).ok_or(Errno::Badf)?;
    let need = rights::FD_READ | rights::FD_FILESTAT_GET;
    let Ok(r) = fs.path_open(root, 0, &node.path, 0, need, 0, 0) else {
        return Ok(None);
    };
    let out = read_all(fs, r, st.ino);
    fs.fd_close(r)?;
    out
}

/// The whole file behind `r` if it is inode `ino`.
fn read_all(fs: &Fs, r: Fd, ino: u64) -> Result<Option<Vec<u8>>, Errno> {
    let st = fs.fd_filestat_get(r)?;
    if st.ino != ino {
        return Ok(None);
    }
    let mut buf = alloc::vec![0u8; st.size as usize];
    let mut off = 0;
    while off < buf.len() {
        let n = fs.fd_pread(r, &mut [&mut buf[off..]], off as u64)?;
        if n == 0 {
            buf.truncate(off);
            break;
        }
        off += n;
    }
    Ok(Some(buf))
}

/// The preopen fd of `mount` (the one entry with an empty path).
fn root_of(t: &Table, mount: u32) -> Option<Fd> {
    t.fds.iter().find(|(_, n)| n.mount == mount && n.path.is_empty()).map(|(&fd, _)| fd)
}
