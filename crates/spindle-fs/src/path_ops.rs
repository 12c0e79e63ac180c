//! The WASI preview1 `path_*` calls (and `path_open`) on [`Fs`].
//!
//! Shape of every mutating call: resolve without locks (`path.rs`), then take the directory
//! write lock(s) in the order stated in `fs.rs`, re-check what resolution saw (the entry may
//! have changed, the directory may have been removed: ENOENT), check access once, mutate,
//! release. Link counts and the directory's `subdirs` change only under that lock.

use crate::dir::DirData;
use crate::dir_lock::DirWriteGuard;
use crate::errno::{Errno, Result};
use crate::fd_table::OpenFile;
use crate::fs::{Fs, LINK_MODE};
use crate::inode::{Inode, InodeRef, Kind};
use crate::path::{resolve, resolve_existing, with_found, Final, Walker};
use crate::types::*;
use alloc::sync::Arc;
use core::sync::atomic::Ordering::Relaxed;

impl Fs {
    /// The inode of the open directory `fd`, which must hold the rights `need`. No slot lock
    /// is held on return, so a walk from it holds none (lock order in `fs.rs`).
    #[inline]
    pub(crate) fn dir_file(&self, fd: Fd, need: u64) -> Result<InodeRef<'_>> {
        self.fds.inode(fd, |f| {
            if !f.inode.is_dir() {
                return Err(Errno::Notdir);
            }
            f.require(need)
        })
    }

    /// `path_open`. The effective access mode is computed first (rights that read, rights that
    /// write, and O_TRUNC, which writes); then access is checked once, on the node opened or,
    /// when creating, on the directory that receives it.
    #[allow(clippy::too_many_arguments)]
    pub fn path_open(
        &self,
        dirfd: Fd,
        lookupflags: u32,
        path: &[u8],
        oflags: u16,
        rights_base: u64,
        rights_inheriting: u64,
        fdflags: u16,
    ) -> Result<Fd> {
        use crate::types::oflags::*;
        let base = self.dir_file(dirfd, rights::PATH_OPEN)?;
        let readable = rights_base & rights::READ_MODE != 0;
        let writable = rights_base & rights::WRITE_MODE != 0;
        let writes = writable || oflags & TRUNC != 0;
        let creat = oflags & CREAT != 0;
        let excl = creat && oflags & EXCL != 0;
        if creat && oflags & DIRECTORY != 0 {
            return Err(Errno::Inval);
        }
        // O_CREAT|O_EXCL never follows the last symlink (it exists, so EEXIST).
        let follow = lookupflags & lookupflags::SYMLINK_FOLLOW != 0 && !excl;
        // Retried when a name resolution saw missing was created by another thread before we
        // locked its directory: the new node then goes through the checks of an existing one.
        let node = loop {
            match resolve(&base, path, follow, creat)? {
                Final::Found(n) => {
                    if excl {
                        return Err(Errno::Exist);
                    }
                    if creat && n.is_dir() {
                        return Err(Errno::Isdir);
                    }
                    if oflags & DIRECTORY != 0 && !n.is_dir() {
                        return Err(Errno::Notdir);
                    }
                    match n.kind {
                        Kind::Symlink(_) => return Err(Errno::Loop),
                        Kind::Dir(_) if writes => return Err(Errno::Isdir),
                        _ => {}
                    }
                    self.mounts.check_access(n.dev, writes)?;
                    break n;
                }
                Final::Missing { dir, name, slash } => {
                    if !creat {
                        return Err(Errno::Noent);
                    }
                    if slash {
                        return Err(Errno::Isdir);
                    }
                    self.mounts.check_access(dir.dev, true)?;
                    if let Some(n) = self.create_file(&dir, &name)? {
                        break n;
                    }
                }
            }
        };
        if oflags & TRUNC != 0 {
            if let Some(d) = node.as_file() {
                d.write().set_size(0)?;
                node.mark_modified();
            }
        }
        let of = OpenFile::new(
            node,
            readable,
            writable,
            fdflags,
            rights_base & rights::ALL,
            rights_inheriting & rights::ALL,
        );
        self.fds.insert(of)
    }

    /// Creates a regular file `name` in `dir`; None if the name exists by now.
    fn create_file(&self, dir: &Arc<Inode>, name: &[u8]) -> Result<Option<Arc<Inode>>> {
        let pd = dir.as_dir().ok_or(Errno::Notdir)?;
        let mut d = pd.data.write();
        if d.removed {
            return Err(Errno::Noent);
        }
        if d.get(name).is_some() {
            return Ok(None);
        }
        let now = self.now();
        let n = self.new_file(dir.dev, now);
        d.insert(name, n.clone());
        drop(d);
        dir.touch_modified(now);
        Ok(Some(n))
    }

    /// `path_create_directory`.
    pub fn path_create_directory(&self, fd: Fd, path: &[u8]) -> Result<()> {
        let base = self.dir_file(fd, rights::PATH_CREATE_DIRECTORY)?;
        let p = Walker::new(&base).parent(path)?;
        if p.name == b"." || p.name == b".." {
            return Err(Errno::Exist);
        }
        self.mounts.check_access(p.dir.dev, true)?;
        // A trailing slash is fine for mkdir ("a/" names a directory to be).
        let mut d = lock_for_new_entry(&p.dir, p.name, false)?;
        let now = self.now();
        let n = self.new_dir(&p.dir, p.dir.dev, now);
        d.insert(p.name, n);
        p.dir.nlink.fetch_add(1, Relaxed);
        drop(d);
        p.dir.touch_modified(now);
        Ok(())
    }

    /// `path_remove_directory`.
    pub fn path_remove_directory(&self, fd: Fd, path: &[u8]) -> Result<()> {
        let base = self.dir_file(fd, rights::PATH_REMOVE_DIRECTORY)?;
        let p = Walker::new(&base).parent(path)?;
        match p.name {
            b"." => return Err(Errno::Inval),
            b".." => return Err(Errno::Notempty),
            _ => {}
        }
        let pd = p.dir.as_dir().ok_or(Errno::Notdir)?;
        let mut d = pd.data.write();
        let child = d.get(p.name).cloned().ok_or(Errno::Noent)?;
        let cd = child.as_dir().ok_or(Errno::Notdir)?;
        self.mounts.check_access(p.dir.dev, true)?;
        if child.dev != p.dir.dev {
            return Err(Errno::Busy);
        }
        // Lock order: parent, then child (ancestor first).
        let mut c = cd.data.write();
        if !c.is_empty() {
            return Err(Errno::Notempty);
        }
        c.removed = true;
        child.nlink.store(0, Relaxed);
        drop(c);
        d.remove(p.name);
        p.dir.nlink.fetch_sub(1, Relaxed);
        drop(d);
        let now = self.now();
        p.dir.touch_modified(now);
        child.touch_changed(now);
        Ok(())
    }

    /// `path_unlink_file`: removes a file or symlink entry. An open file stays usable.
    pub fn path_unlink_file(&self, fd: Fd, path: &[u8]) -> Result<()> {
        let base = self.dir_file(fd, rights::PATH_UNLINK_FILE)?;
        let p = Walker::new(&base).parent(path)?;
        if p.name == b"." || p.name == b".." {
            return Err(Errno::Isdir);
        }
        let pd = p.dir.as_dir().ok_or(Errno::Notdir)?;
        let mut d = pd.data.write();
        let child = d.get(p.name).ok_or(Errno::Noent)?;
        if child.is_dir() {
            return Err(Errno::Isdir);
        }
        if p.slash {
            return Err(Errno::Notdir);
        }
        self.mounts.check_access(p.dir.dev, true)?;
        let child = d.remove(p.name).expect("entry vanished under the directory lock");
        child.nlink.fetch_sub(1, Relaxed);
        drop(d);
        let now = self.now();
        p.dir.touch_modified(now);
        child.touch_changed(now);
        Ok(())
    }

    /// `path_link`: a new name `new_path` for the file `old_path` names.
    pub fn path_link(
        &self,
        old_fd: Fd,
        lookupflags: u32,
        old_path: &[u8],
        new_fd: Fd,
        new_path: &[u8],
    ) -> Result<()> {
        let follow = lookupflags & lookupflags::SYMLINK_FOLLOW != 0;
        let src = resolve_existing(&*self.dir_file(old_fd, rights::PATH_LINK_SOURCE)?, old_path, follow)?;
        let base = self.dir_file(new_fd, rights::PATH_LINK_TARGET)?;
        let p = Walker::new(&base).parent(new_path)?;
        if p.name == b"." || p.name == b".." {
            return Err(Errno::Exist);
        }
        let mut d = lock_for_new_entry(&p.dir, p.name, p.slash)?;
        if src.is_dir() {
            return Err(Errno::Perm);
        }
        if src.dev != p.dir.dev {
            return Err(Errno::Xdev);
        }
        self.mounts.check_access(p.dir.dev, true)?;
        // nlink only changes under a directory lock of an entry of the file; one that reached
        // 0 was unlinked for good (its entries are gone), so it cannot be linked again.
        if src.nlink.load(Relaxed) == 0 {
            return Err(Errno::Noent);
        }
        src.nlink.fetch_add(1, Relaxed);
        d.insert(p.name, src.clone());
        drop(d);
        let now = self.now();
        p.dir.touch_modified(now);
        src.touch_changed(now);
        Ok(())
    }

    /// `path_symlink`: creates `new_path` pointing at `target` (stored as given; an absolute or
    /// escaping target is refused when followed, not here).
    pub fn path_symlink(&self, target: &[u8], fd: Fd, new_path: &[u8]) -> Result<()> {
        let base = self.dir_file(fd, rights::PATH_SYMLINK)?;
        let p = Walker::new(&base).parent(new_path)?;
        if p.name == b"." || p.name == b".." {
            return Err(Errno::Exist);
        }
        if target.is_empty() {
            return Err(Errno::Noent);
        }
        if target.len() >= crate::path::PATH_MAX {
            return Err(Errno::Nametoolong);
        }
        if target.contains(&0) {
            return Err(Errno::Inval);
        }
        let mut d = lock_for_new_entry(&p.dir, p.name, p.slash)?;
        self.mounts.check_access(p.dir.dev, true)?;
        let now = self.now();
        let n = self.new_inode(p.dir.dev, Kind::Symlink(target.into()), LINK_MODE, now);
        d.insert(p.name, n);
        drop(d);
        p.dir.touch_modified(now);
        Ok(())
    }

    /// `path_readlink`: copies the target into `buf` (cut to fit); returns bytes copied.
    pub fn path_readlink(&self, fd: Fd, path: &[u8], buf: &mut [u8]) -> Result<usize> {
        let n = resolve_existing(&*self.dir_file(fd, rights::PATH_READLINK)?, path, false)?;
        match &n.kind {
            Kind::Symlink(t) => {
                let len = t.len().min(buf.len());
                buf[..len].copy_from_slice(&t[..len]);
                Ok(len)
            }
            _ => Err(Errno::Inval),
        }
    }

    /// `path_filestat_get`.
    pub fn path_filestat_get(&self, fd: Fd, lookupflags: u32, path: &[u8]) -> Result<Filestat> {
        let follow = lookupflags & lookupflags::SYMLINK_FOLLOW != 0;
        let base = self.dir_file(fd, rights::PATH_FILESTAT_GET)?;
        // In the fast walk's section: no reference count, no lock that waits (`path.rs`).
        if let Some(st) = with_found(&base, path, follow, |n, section| {
            self.stamp_marked(n);
            n.stat_in(section)
        }) {
            return Ok(st);
        }
        let n = resolve_existing(&base, path, follow)?;
        self.stamp_marked(&n);
        Ok(n.stat())
    }

    /// `path_filestat_set_times`.
    pub fn path_filestat_set_times(
        &self,
        fd: Fd,
        lookupflags: u32,
        path: &[u8],
        atim: Timestamp,
        mtim: Timestamp,
        flags: u16,
    ) -> Result<()> {
        let follow = lookupflags & lookupflags::SYMLINK_FOLLOW != 0;
        let n = resolve_existing(&*self.dir_file(fd, rights::PATH_FILESTAT_SET_TIMES)?, path, follow)?;
        self.set_times(&n, atim, mtim, flags)
    }
}

/// Write-locks directory `dir` for adding the entry `name`, in the errno order Linux uses:
/// ENOTDIR (not a directory), ENOENT (the directory was removed), EEXIST (the name is taken),
/// then ENOENT for a trailing slash on a name that is not to be a directory (`slash_is_error`).
fn lock_for_new_entry<'a>(
    dir: &'a Inode,
    name: &[u8],
    slash_is_error: bool,
) -> Result<DirWriteGuard<'a, DirData>> {
    let d = dir.as_dir().ok_or(Errno::Notdir)?.data.write();
    if d.removed {
        return Err(Errno::Noent);
    }
    if d.get(name).is_some() {
        return Err(Errno::Exist);
    }
    if slash_is_error {
        return Err(Errno::Noent);
    }
    Ok(d)
}
