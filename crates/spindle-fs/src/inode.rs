//! Inodes: the nodes of the tree (regular files, directories, symlinks) with their number,
//! device (mount) id, link count, mode bits and timestamps.
//!
//! An inode is shared as `Arc<Inode>` by the directory entries that name it and by the open
//! files that use it, so an unlinked file lives until its last entry AND its last open fd are
//! gone: that is the whole unlink-while-open protocol (no special state besides `nlink == 0`).
//!
//! Invariants: `nlink` counts the directory entries naming a file or symlink; for a directory
//! it is `2 + subdirectories` while linked and 0 after rmdir (as on Linux). `nlink` changes only
//! while the directory lock(s) of the entries involved are held (see the lock order in
//! `fs.rs`); readers may load it at any time. Metadata are atomics, so `stat` takes no lock
//! except the file's data lock to read its size.
//!
//! Timestamps of file contents are *marked for update* by writes and truncations and stamped
//! later, as POSIX allows ("an implementation may update timestamps that are marked for update
//! immediately, or ... periodically"), at the points where POSIX requires it: before any stat
//! of the file, on fsync, before setting times, when an fd of it is closed (and before a tar
//! export reads them). So a thousand writes read the clock once (on wasm a clock read is a host
//! call costing more than an in-memory write). Invariant: `marked` is set only after the change
//! it marks, and cleared only by the stamp that covers it (`Fs::stamp_marked`).

use crate::dir::Dir;
use crate::dir_lock::Section;
use crate::file::FileData;
use crate::sync::RwLock;
use crate::types::{FileType, Filestat, Timestamp};
use alloc::boxed::Box;
use alloc::sync::Arc;
use core::ops::Deref;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

/// What kind of node, with its payload.
pub(crate) enum Kind {
    File(RwLock<FileData>),
    Dir(Dir),
    Symlink(Box<[u8]>),
}

/// One node of the tree.
pub(crate) struct Inode {
    pub(crate) ino: u64,
    /// Mount id: renames and links between different devs fail with EXDEV.
    pub(crate) dev: u64,
    pub(crate) kind: Kind,
    pub(crate) nlink: AtomicU32,
    /// Permission bits (stored for stat and tar; never enforced).
    pub(crate) mode: AtomicU32,
    pub(crate) atim: AtomicU64,
    pub(crate) mtim: AtomicU64,
    pub(crate) ctim: AtomicU64,
    /// Contents changed since mtime/ctime were last stamped (module doc).
    pub(crate) marked: AtomicBool,
}

impl Inode {
    pub(crate) fn new(ino: u64, dev: u64, kind: Kind, mode: u32, now: Timestamp) -> Inode {
        let nlink = match kind {
            Kind::Dir(_) => 2,
            _ => 1,
        };
        Inode {
            ino,
            dev,
            kind,
            nlink: AtomicU32::new(nlink),
            mode: AtomicU32::new(mode),
            atim: AtomicU64::new(now),
            mtim: AtomicU64::new(now),
            ctim: AtomicU64::new(now),
            marked: AtomicBool::new(false),
        }
    }

    pub(crate) fn filetype(&self) -> FileType {
        match self.kind {
            Kind::File(_) => FileType::RegularFile,
            Kind::Dir(_) => FileType::Directory,
            Kind::Symlink(_) => FileType::SymbolicLink,
        }
    }

    #[inline]
    pub(crate) fn is_dir(&self) -> bool {
        matches!(self.kind, Kind::Dir(_))
    }

    #[inline]
    pub(crate) fn as_dir(&self) -> Option<&Dir> {
        match &self.kind {
            Kind::Dir(d) => Some(d),
            _ => None,
        }
    }

    #[inline]
    pub(crate) fn as_file(&self) -> Option<&RwLock<FileData>> {
        match &self.kind {
            Kind::File(f) => Some(f),
            _ => None,
        }
    }

    /// Size as stat reports it: file length, symlink target length, directory entry count.
    pub(crate) fn size(&self) -> u64 {
        match &self.kind {
            Kind::File(f) => f.read().size(),
            Kind::Dir(d) => d.data.read_short().len() as u64,
            Kind::Symlink(t) => t.len() as u64,
        }
    }

    /// `stat` without waiting, inside a read section (`dir_lock.rs`): None if a writer holds
    /// the file's data or the directory's entries.
    pub(crate) fn stat_in(&self, section: &Section<'_>) -> Option<Filestat> {
        let size = match &self.kind {
            Kind::File(f) => f.try_read()?.size(),
            Kind::Dir(d) => d.data.read_in(section)?.len() as u64,
            Kind::Symlink(t) => t.len() as u64,
        };
        Some(self.stat_with_size(size))
    }

    pub(crate) fn stat(&self) -> Filestat {
        self.stat_with_size(self.size())
    }

    fn stat_with_size(&self, size: u64) -> Filestat {
        Filestat {
            dev: self.dev,
            ino: self.ino,
            filetype: self.filetype(),
            nlink: self.nlink.load(Relaxed) as u64,
            size,
            atim: self.atim.load(Relaxed),
            mtim: self.mtim.load(Relaxed),
            ctim: self.ctim.load(Relaxed),
        }
    }

    /// Contents changed: mtime and ctime are marked for update (stamped by
    /// `Fs::stamp_marked`; module doc).
    #[inline]
    pub(crate) fn mark_modified(&self) {
        if !self.marked.load(Relaxed) {
            self.marked.store(true, Relaxed);
        }
    }

    /// Contents or entries changed now: mtime and ctime move.
    #[inline]
    pub(crate) fn touch_modified(&self, now: Timestamp) {
        self.mtim.store(now, Relaxed);
        self.ctim.store(now, Relaxed);
    }

    /// Metadata changed (links, mode, times): ctime moves.
    #[inline]
    pub(crate) fn touch_changed(&self, now: Timestamp) {
        self.ctim.store(now, Relaxed);
    }
}

/// An inode held borrowed (a preopen's, a walk's base, a directory read inside a section) or
/// by a reference count: what walks stand on and what `dir_file` returns.
pub(crate) enum InodeRef<'a> {
    Borrowed(&'a Arc<Inode>),
    Owned(Arc<Inode>),
}

impl Deref for InodeRef<'_> {
    type Target = Arc<Inode>;
    #[inline]
    fn deref(&self) -> &Arc<Inode> {
        match self {
            InodeRef::Borrowed(b) => b,
            InodeRef::Owned(o) => o,
        }
    }
}

impl InodeRef<'_> {
    pub(crate) fn to_arc(&self) -> Arc<Inode> {
        Arc::clone(self)
    }
}
