//! Path resolution with WASI (cap-std) semantics: every path is relative to a directory fd and
//! can never leave it.
//!
//! The walker keeps the chain of directories it descended through; `..` pops that chain and
//! fails with ENOTCAPABLE when it is empty, so `..` is resolved against the path actually walked
//! (a concurrent rename of an ancestor cannot make `..` escape). Absolute paths and absolute
//! symlink targets are ENOTCAPABLE; a symlink's relative target continues from the directory
//! holding the link with the same chain (its `..` is confined the same way). More than 40
//! symlinks in one resolution is ELOOP. Components longer than 255 bytes and paths of 4096
//! bytes or more are ENAMETOOLONG; a NUL byte is EINVAL; an empty path is ENOENT.
//!
//! Trailing slashes: a path ending in `/` must name a directory (a symlink there is followed).
//!
//! Two ways to walk, same answers:
//! - the *fast walk* ([`resolve`], [`with_found`]) runs the whole path inside one read section
//!   (`dir_lock.rs`): one stripe increment for the walk, every directory borrowed, no reference
//!   count touched except the result's. It handles the common case (directories only, `.` and
//!   `..` within 8 levels, the last component a file, directory or unfollowed symlink) and gives
//!   up (`None`) on anything else: a writer on a directory on the way, a symlink to follow, a
//!   missing or non-directory component, any error. Then
//! - the *walker* ([`Walker`]) decides: it takes a short read per lookup and clones each
//!   directory it enters, and is the one place that produces errors.
//!
//! Thread rules: the walker holds at most one directory read at a time (a short read,
//! `dir_lock.rs`), only for one lookup; the fast walk holds a section and waits for nothing
//! inside it; neither holds a lock when it returns. Results are therefore snapshots: callers
//! re-check under the directory write lock before they mutate.

use crate::dir_lock::Section;
use crate::errno::{Errno, Result};
use crate::inode::{Inode, InodeRef, Kind};
use alloc::borrow::Cow;
use alloc::sync::Arc;
use alloc::vec::Vec;

/// Symlinks followed in one resolution before ELOOP (Linux's MAXSYMLINKS).
pub(crate) const MAX_LINKS: u32 = 40;
/// Longest path in bytes, exclusive (Linux PATH_MAX counts the NUL).
pub(crate) const PATH_MAX: usize = 4096;
/// Longest component in bytes.
pub(crate) const NAME_MAX: usize = 255;

/// A resolved last component: the directory that holds it, its name and whether the path had a
/// trailing slash.
pub(crate) struct Parent<'a> {
    pub(crate) dir: InodeRef<'a>,
    pub(crate) name: &'a [u8],
    pub(crate) slash: bool,
}

/// The result of resolving a whole path.
pub(crate) enum Final<'a> {
    Found(Arc<Inode>),
    /// The last component does not exist in `dir` (the directory exists): creatable.
    Missing {
        dir: InodeRef<'a>,
        name: Cow<'a, [u8]>,
        slash: bool,
    },
}

/// Directories walked through, for `..`: a few inline, more on the heap.
struct Chain<'a> {
    inline: [Option<InodeRef<'a>>; 6],
    len: usize,
    spill: Vec<InodeRef<'a>>,
}

impl<'a> Chain<'a> {
    fn new() -> Self {
        Chain { inline: [const { None }; 6], len: 0, spill: Vec::new() }
    }
    #[inline]
    fn push(&mut self, n: InodeRef<'a>) {
        if self.len < self.inline.len() {
            self.inline[self.len] = Some(n);
        } else {
            self.spill.push(n);
        }
        self.len += 1;
    }
    #[inline]
    fn pop(&mut self) -> Option<InodeRef<'a>> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        if self.len < self.inline.len() {
            self.inline[self.len].take()
        } else {
            self.spill.pop()
        }
    }
}

pub(crate) struct Walker<'a> {
    chain: Chain<'a>,
    cur: InodeRef<'a>,
    links: u32,
}

/// Checks a whole path before walking.
#[inline]
pub(crate) fn check_path(path: &[u8]) -> Result<()> {
    if path.is_empty() {
        return Err(Errno::Noent);
    }
    if path.len() >= PATH_MAX {
        return Err(Errno::Nametoolong);
    }
    if path[0] == b'/' {
        return Err(Errno::Notcapable);
    }
    if path.contains(&0) {
        return Err(Errno::Inval);
    }
    Ok(())
}

/// Splits off the last component: `(dirs, last, trailing_slash)`. `last` is never empty unless
/// the path was all slashes.
#[inline]
fn split_last(path: &[u8]) -> (&[u8], &[u8], bool) {
    let mut end = path.len();
    while end > 0 && path[end - 1] == b'/' {
        end -= 1;
    }
    let slash = end < path.len();
    let start = path[..end].iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
    (&path[..start], &path[start..end], slash)
}

fn lookup(dir: &Inode, name: &[u8]) -> Result<Option<Arc<Inode>>> {
    if name.len() > NAME_MAX {
        return Err(Errno::Nametoolong);
    }
    let d = dir.as_dir().ok_or(Errno::Notdir)?;
    Ok(d.data.read_short().get(name).cloned())
}

impl<'a> Walker<'a> {
    pub(crate) fn new(base: &'a Arc<Inode>) -> Walker<'a> {
        Walker { chain: Chain::new(), cur: InodeRef::Borrowed(base), links: 0 }
    }

    /// Walks every component of `dirs` as a directory (following symlinks).
    fn walk_dirs(&mut self, dirs: &[u8]) -> Result<()> {
        for name in dirs.split(|&b| b == b'/') {
            self.step(name)?;
        }
        Ok(())
    }

    /// Moves into the directory `name` names.
    fn step(&mut self, name: &[u8]) -> Result<()> {
        match name {
            b"" | b"." => {
                if !self.cur.is_dir() {
                    return Err(Errno::Notdir);
                }
                Ok(())
            }
            b".." => self.up(),
            _ => {
                let child = lookup(&self.cur, name)?.ok_or(Errno::Noent)?;
                match &child.kind {
                    Kind::Dir(_) => {
                        let parent = core::mem::replace(&mut self.cur, InodeRef::Owned(child));
                        self.chain.push(parent);
                        Ok(())
                    }
                    Kind::Symlink(target) => self.follow(target),
                    Kind::File(_) => Err(Errno::Notdir),
                }
            }
        }
    }

    fn up(&mut self) -> Result<()> {
        if !self.cur.is_dir() {
            return Err(Errno::Notdir);
        }
        self.cur = self.chain.pop().ok_or(Errno::Notcapable)?;
        Ok(())
    }

    /// Continues through a symlink whose target must end in a directory.
    fn follow(&mut self, target: &[u8]) -> Result<()> {
        self.count_link(target)?;
        let (dirs, last, _) = split_last(target);
        self.walk_dirs(dirs)?;
        self.step(last)
    }

    fn count_link(&mut self, target: &[u8]) -> Result<()> {
        self.links += 1;
        if self.links > MAX_LINKS {
            return Err(Errno::Loop);
        }
        if target.is_empty() {
            return Err(Errno::Noent);
        }
        if target[0] == b'/' {
            return Err(Errno::Notcapable);
        }
        Ok(())
    }

    /// Resolves everything but the last component (which is not looked up).
    pub(crate) fn parent(mut self, path: &'a [u8]) -> Result<Parent<'a>> {
        check_path(path)?;
        let (dirs, last, slash) = split_last(path);
        if last.is_empty() {
            // The path is all slashes: absolute, refused by check_path already.
            return Err(Errno::Notcapable);
        }
        if last.len() > NAME_MAX {
            return Err(Errno::Nametoolong);
        }
        self.walk_dirs(dirs)?;
        if !self.cur.is_dir() {
            return Err(Errno::Notdir);
        }
        Ok(Parent { dir: self.cur, name: last, slash })
    }

    /// Resolves the whole path. The last symlink is followed if `follow` or a trailing slash
    /// asks for it. `.` and `..` as the last component resolve to directories.
    /// `create` (O_CREAT) makes a trailing slash on a normal last name EISDIR, as on Linux.
    pub(crate) fn resolve(mut self, path: &'a [u8], follow: bool, create: bool) -> Result<Final<'a>> {
        check_path(path)?;
        let (dirs, last, slash) = split_last(path);
        self.walk_dirs(dirs)?;
        self.last(Cow::Borrowed(last), slash, follow, create)
    }

    fn last(
        mut self,
        mut name: Cow<'a, [u8]>,
        mut slash: bool,
        follow: bool,
        create: bool,
    ) -> Result<Final<'a>> {
        loop {
            match &name[..] {
                b"" | b"." => {
                    self.step(b".")?;
                    return Ok(Final::Found(self.cur.to_arc()));
                }
                b".." => {
                    self.up()?;
                    return Ok(Final::Found(self.cur.to_arc()));
                }
                _ => {}
            }
            if create && slash {
                return Err(Errno::Isdir);
            }
            let child = match lookup(&self.cur, &name)? {
                Some(c) => c,
                None => return Ok(Final::Missing { dir: self.cur, name, slash }),
            };
            match &child.kind {
                Kind::Symlink(target) if follow || slash => {
                    self.count_link(target)?;
                    let (dirs, last, s2) = split_last(target);
                    self.walk_dirs(dirs)?;
                    slash |= s2;
                    name = Cow::Owned(last.to_vec());
                }
                Kind::Dir(_) => return Ok(Final::Found(child)),
                _ if slash => return Err(Errno::Notdir),
                _ => return Ok(Final::Found(child)),
            }
        }
    }
}

/// Resolves `path` from `base` to an existing node.
pub(crate) fn resolve_existing(base: &Arc<Inode>, path: &[u8], follow: bool) -> Result<Arc<Inode>> {
    match resolve(base, path, follow, false)? {
        Final::Found(i) => Ok(i),
        Final::Missing { .. } => Err(Errno::Noent),
    }
}

/// Resolves the whole path (as [`Walker::resolve`]): by the fast walk when it can, else by the
/// walker.
pub(crate) fn resolve<'a>(
    base: &'a Arc<Inode>,
    path: &'a [u8],
    follow: bool,
    create: bool,
) -> Result<Final<'a>> {
    if let Some(d) = base.as_dir() {
        let section = d.data.section();
        let fast = fast_walk(&section, base, path, follow, create).map(|f| match f {
            Fast::Found(n) => Final::Found(n.clone()),
            Fast::Missing { dir, name, slash } => {
                let dir = if core::ptr::eq(dir, base) {
                    InodeRef::Borrowed(base)
                } else {
                    InodeRef::Owned(dir.clone())
                };
                Final::Missing { dir, name: Cow::Borrowed(name), slash }
            }
        });
        drop(section);
        if let Some(f) = fast {
            return Ok(f);
        }
    }
    Walker::new(base).resolve(path, follow, create)
}

/// Runs `f` on the existing node `path` names, inside the fast walk's section (so `f` must not
/// wait: loads and `try_` locks only). None when the fast walk gives up or `f` does: then the
/// caller resolves with [`resolve_existing`] and does the work outside.
pub(crate) fn with_found<R>(
    base: &Arc<Inode>,
    path: &[u8],
    follow: bool,
    f: impl FnOnce(&Inode, &Section<'_>) -> Option<R>,
) -> Option<R> {
    let section = base.as_dir()?.data.section();
    match fast_walk(&section, base, path, follow, false)? {
        Fast::Found(n) => f(n, &section),
        Fast::Missing { .. } => None,
    }
}

/// What the fast walk found, borrowed for the section's life (`'s`) and the path's (`'p`).
enum Fast<'s, 'p> {
    Found(&'s Arc<Inode>),
    Missing { dir: &'s Arc<Inode>, name: &'p [u8], slash: bool },
}

/// Directories the fast walk keeps for `..` (deeper walks take the walker).
const FAST_DEPTH: usize = 8;

/// The fast walk (module doc): the same answer as [`Walker::resolve`] when it gives one.
fn fast_walk<'s, 'p>(
    section: &'s Section<'_>,
    base: &'s Arc<Inode>,
    path: &'p [u8],
    follow: bool,
    create: bool,
) -> Option<Fast<'s, 'p>> {
    check_path(path).ok()?;
    let (dirs, last, slash) = split_last(path);
    let mut chain: [&Arc<Inode>; FAST_DEPTH] = [base; FAST_DEPTH];
    let mut depth: usize = 0;
    let mut cur = base;
    for name in dirs.split(|&b| b == b'/') {
        match name {
            b"" | b"." => {}
            b".." => {
                depth = depth.checked_sub(1)?;
                cur = chain[depth];
            }
            _ => {
                let child = fast_lookup(section, cur, name)??;
                if !child.is_dir() || depth == FAST_DEPTH {
                    return None;
                }
                chain[depth] = cur;
                depth += 1;
                cur = child;
            }
        }
    }
    if matches!(last, b"" | b"." | b"..") || (create && slash) {
        return None;
    }
    let Some(child) = fast_lookup(section, cur, last)? else {
        return Some(Fast::Missing { dir: cur, name: last, slash });
    };
    match child.kind {
        Kind::Symlink(_) if follow || slash => None,
        Kind::Dir(_) => Some(Fast::Found(child)),
        _ if slash => None,
        _ => Some(Fast::Found(child)),
    }
}

/// `name` in directory `dir`, read inside the section: None to give up (a writer holds the
/// directory, or the name is too long), `Some(None)` if the name is not there.
#[inline]
fn fast_lookup<'s>(section: &'s Section<'_>, dir: &'s Inode, name: &[u8]) -> Option<Option<&'s Arc<Inode>>> {
    if name.len() > NAME_MAX {
        return None;
    }
    Some(dir.as_dir()?.data.read_in(section)?.get(name))
}

#[cfg(test)]
mod tests {
    use super::split_last;

    #[test]
    fn split() {
        assert_eq!(split_last(b"a/b/c"), (&b"a/b/"[..], &b"c"[..], false));
        assert_eq!(split_last(b"a//"), (&b""[..], &b"a"[..], true));
        assert_eq!(split_last(b"x"), (&b""[..], &b"x"[..], false));
        assert_eq!(split_last(b"a/b/"), (&b"a/"[..], &b"b"[..], true));
    }
}
