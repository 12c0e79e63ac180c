//! The backend trait: what a mount's storage must provide when it is not the core's own memory.
//!
//! The memory backend is the default and is not behind this trait: for a memory mount the
//! core's inode tree (`inode`, `dir`, `file`) IS the storage, so the hot paths make no dynamic
//! call. Other backends (host directories through the host's WASI imports, OPFS through an I/O
//! worker; other issues) implement [`Backend`] on their own node handles. The core keeps the
//! directory cache and the fd table, resolves and confines paths itself, and calls a backend
//! with single names relative to a node it already holds, so a backend never parses a path and
//! cannot be asked to escape.
//!
//! Rules for implementors: a call may be slow and may block (the core never calls a backend
//! while holding a lock that another thread needs to make progress on unrelated files); each
//! backend maps its native errors to [`Errno`] in exactly one function; a backend does no
//! caching of its own (caching belongs to the core).
//!
//! Status: the trait is defined and registered in the mount table; the core dispatches to it
//! for non-memory mounts in the next issue (the shim's host passthrough).

use crate::errno::Result;
use crate::types::{FileType, Filestat};
use alloc::vec::Vec;

/// A backend's own handle for one of its nodes (a host fd, an OPFS handle id, ...).
pub type NodeId = u64;

/// What to create.
pub enum NewNode<'a> {
    File,
    Dir,
    Symlink(&'a [u8]),
}

/// Storage behind a non-memory mount. All names are single components (no `/`, not `.`/`..`).
pub trait Backend: Send + Sync {
    /// The node of the mount's root directory.
    fn root(&self) -> NodeId;
    /// Finds `name` in directory `dir`.
    fn lookup(&self, dir: NodeId, name: &[u8]) -> Result<Option<(NodeId, FileType)>>;
    /// Metadata; `dev` is overwritten by the core with the mount's device id.
    fn stat(&self, node: NodeId) -> Result<Filestat>;
    /// Reads at `off`; returns bytes read (0 at end of file).
    fn read(&self, node: NodeId, off: u64, buf: &mut [u8]) -> Result<usize>;
    /// Writes at `off`, growing the file; returns bytes written.
    fn write(&self, node: NodeId, off: u64, data: &[u8]) -> Result<usize>;
    /// Truncates or extends (new bytes read as zero).
    fn set_size(&self, node: NodeId, size: u64) -> Result<()>;
    /// Creates `name` in `dir` (EEXIST if present).
    fn create(&self, dir: NodeId, name: &[u8], what: NewNode<'_>) -> Result<NodeId>;
    /// Adds a hard link to `node` (ENOTSUP where the storage has none).
    fn link(&self, node: NodeId, dir: NodeId, name: &[u8]) -> Result<()>;
    /// Removes a file, symlink or empty directory entry.
    fn remove(&self, dir: NodeId, name: &[u8]) -> Result<()>;
    /// Atomically moves `from` in `from_dir` to `to` in `to_dir`, replacing it.
    fn rename(&self, from_dir: NodeId, from: &[u8], to_dir: NodeId, to: &[u8]) -> Result<()>;
    /// A symlink's target.
    fn readlink(&self, node: NodeId) -> Result<Vec<u8>>;
    /// Calls `each` for every entry of `dir` (not `.`/`..`).
    fn readdir(&self, dir: NodeId, each: &mut dyn FnMut(&[u8], NodeId, FileType)) -> Result<()>;
    /// Sets access/modification times (None: leave as is).
    fn set_times(&self, node: NodeId, atim: Option<u64>, mtim: Option<u64>) -> Result<()>;
    /// Makes the node durable.
    fn sync(&self, node: NodeId) -> Result<()>;
    /// The core dropped its last reference to `node`.
    fn forget(&self, _node: NodeId) {}
}
