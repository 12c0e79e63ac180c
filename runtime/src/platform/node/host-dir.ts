/**
 * The path operations relative to a host directory fd (`Directory`), on node:fs, synchronously on
 * the calling thread. The directory fd's OS fd is pinned for the whole call (host-file.ts's
 * `pinned`), every guest path is resolved by `walk` (host-path.ts) from that OS fd one component
 * at a time, and the host call then acts on `(parent fd, name)` without following `name`:
 * confinement by construction, whatever another thread or process renames meanwhile. In a
 * directory that is the host's root, where nothing is outside, a path of plain names is the
 * kernel's to resolve in one call instead (host-path.ts's kernelPathInRoot: path_filestat_get
 * and path_open for reading), with the walk's answers.
 *
 * Read-only mounts (`--dir-ro`, `{ readOnly: true }`): every call that would change the tree, and
 * opening a file for writing (TRUNC and CREAT count as writing: compute the access first, check
 * once), is EPERM, as wasmtime answers for a directory without DirPerms::MUTATE; files opened
 * there carry AUX_READ_ONLY (no set-times, set-size, allocate through their fds).
 *
 * Hard links and renames between a host directory and another backend are EXDEV.
 */
import {
  constants, fstatSync, linkSync, lutimesSync, mkdirSync, openSync, readlinkSync, realpathSync,
  renameSync, rmdirSync, statSync, symlinkSync, unlinkSync, closeSync, lstatSync,
} from 'node:fs';
import type { OpenedRoot } from '../../fs/drivers.js';
import {
  ERRNO_BADF, ERRNO_EXIST, ERRNO_INVAL, ERRNO_ISDIR, ERRNO_LOOP, ERRNO_NOENT, ERRNO_NOTDIR, ERRNO_PERM, ERRNO_XDEV,
  FDFLAGS_APPEND, FDFLAGS_DSYNC, FDFLAGS_RSYNC, FDFLAGS_SYNC, FILETYPE_DIRECTORY, LOOKUPFLAGS_SYMLINK_FOLLOW,
  OFLAGS_CREAT, OFLAGS_DIRECTORY, OFLAGS_EXCL, OFLAGS_TRUNC,
  RIGHTS_FD_ALLOCATE, RIGHTS_FD_DATASYNC, RIGHTS_FD_FILESTAT_SET_SIZE, RIGHTS_FD_READ,
  RIGHTS_FD_READDIR, RIGHTS_FD_WRITE,
} from '../../wasi/constants.js';
import { fail } from '../../wasi/errno.js';
import type { Descriptor, Directory, Filestat } from '../../wasi/fd-table.js';
import { AUX_OS_APPEND, AUX_OS_READ, AUX_OS_WRITE, AUX_READ_ONLY, filestatOf, filetypeOf, PendingHost, setFdTimes, type MountInfo } from './host-file.js';
import { childPathIn, setTimes } from './host-times.js';
import { DIR_INHERITING, hostDirEntryFor } from '../../fs/runtime-fs.js';
import { cachedDirOf, DIR_FLAGS, dirItself, inDir, isHostRoot, kernelPathInRoot, lstatIn, PROC_FD, quiet, sys, walk, WALK, type DirRef, type Named, type Resolved } from './host-path.js';
import { errnoOfNodeError } from './errno.js';
import { HOST_FILE, type SharedFdTable } from '../../fs/shared-fd-table.js';
import { DirCache, release } from './host-dir-cache.js';

const WRITE_RIGHTS = RIGHTS_FD_WRITE | RIGHTS_FD_DATASYNC | RIGHTS_FD_ALLOCATE | RIGHTS_FD_FILESTAT_SET_SIZE;
const follows = (lookupflags: number): boolean => (lookupflags & LOOKUPFLAGS_SYMLINK_FOLLOW) !== 0;

export class HostDirectory implements Directory {
  /** This thread's cache of directories below this one (host-dir-cache.ts). */
  private readonly cache = PROC_FD ? new DirCache() : undefined;
  /** This directory is the host's root (host-path.ts DirRef.hostRoot): known at the first walk. */
  private hostRoot: boolean | undefined;

  constructor(
    private readonly table: SharedFdTable,
    private readonly fd: number,
    private readonly gen: number,
    private readonly path: string,
    private readonly mount: number,
    private readonly info: MountInfo,
  ) {}

  private writable(): void {
    if (this.info.readOnly) fail(ERRNO_PERM);
  }
  /**
   * `f` on `path` resolved from this directory (its OS fd pinned, the walk's fds open): what
   * host-file.ts's `pinned` does, without its closure (every lookup comes through here).
   */
  private at<T>(path: string, follow: boolean, f: (r: Resolved, root: DirRef) => T, lastStat = true): T {
    const os = this.table.pinOs(this.fd, this.gen);
    if (os < 0) fail(ERRNO_BADF);
    try {
      return walk({ fd: os, path: this.path, hostRoot: this.hostRootAt(os) }, path, follow, f, this.cache, lastStat);
    } finally {
      this.table.unpinOs(os);
    }
  }
  /** Whether this directory, pinned as OS fd `os`, is the host's root: asked once. */
  private hostRootAt(os: number): boolean {
    return this.hostRoot ??= isHostRoot(os);
  }
  /** The same, pinning the OS fd to ask when it was not asked yet (before any walk). */
  private isHostRoot(): boolean {
    if (this.hostRoot !== undefined) return this.hostRoot;
    const os = this.table.pinOs(this.fd, this.gen);
    if (os < 0) fail(ERRNO_BADF);
    try {
      return this.hostRootAt(os);
    } finally {
      this.table.unpinOs(os);
    }
  }
  /** The entry `path` names, as a name in a parent (mkdir, unlink, ... never act on "." or ".."). */
  private named<T>(path: string, follow: boolean, f: (r: Named) => T): T {
    return this.at(path, follow, (r) => (r.name === null ? fail(r.stat ? ERRNO_EXIST : ERRNO_NOENT) : f(r as Named)));
  }

  createDirectory(path: string): void {
    this.writable();
    this.at(path, false, (r) => {
      if (r.name === null || r.stat) fail(ERRNO_EXIST);
      sys(() => mkdirSync(inDir(r.parent, r.name!), 0o777));
    });
  }

  filestat(lookupflags: number, path: string): Filestat {
    const st = this.filestatOrErrno(lookupflags, path);
    return typeof st === 'number' ? fail(st) : st;
  }

  filestatOrErrno(lookupflags: number, path: string): Filestat | number {
    const follow = follows(lookupflags);
    const os = this.table.pinOs(this.fd, this.gen);
    if (os < 0) return ERRNO_BADF;
    try {
      // In the host's root, a path of plain names is the kernel's to resolve (host-path.ts).
      const abs = this.hostRootAt(os) ? kernelPathInRoot(path) : undefined;
      if (abs !== undefined) return kernelFilestat(abs, follow);
      if (this.cache !== undefined) {
        // The usual lookup: the last name in a cached directory (host-path.ts's cachedDirOf).
        const hit = cachedDirOf(os, path, this.cache);
        if (typeof hit === 'number') {
          if (hit !== WALK) return hit;
        } else {
          try {
            const st = lstatIn(hit, path.slice(path.lastIndexOf('/') + 1));
            // A symlink to follow: the walk follows it.
            if (st === undefined) return ERRNO_NOENT;
            if (!follow || !st.isSymbolicLink()) return filestatOf(st);
          } finally {
            release(hit);
          }
        }
      }
    } finally {
      this.table.unpinOs(os);
    }
    return this.at(path, follow, filestatAnswer);
  }

  setTimes(lookupflags: number, path: string, atim: bigint, mtim: bigint, fstflags: number): void {
    this.writable();
    this.at(path, follows(lookupflags), (r, root) => {
      if (!r.stat) fail(ERRNO_NOENT);
      if (r.trailingSlash && !r.stat.isDirectory()) fail(ERRNO_NOTDIR);
      if (r.name === null) return setFdTimes(root.fd, atim, mtim, fstflags);
      // Resolved: the entry is a symlink only when not following, and lutimes never follows it.
      const host = inDir(r.parent, r.name);
      setTimes({
        nodeSet: (a, m) => lutimesSync(host, a, m), childPath: childPathIn(r.parent.fd, r.name), followChildPath: false,
        stat: () => sys(() => lstatSync(host, { bigint: true })),
      }, r.stat, atim, mtim, fstflags);
    });
  }

  link(srcLookupflags: number, srcPath: string, target: Directory, targetPath: string): void {
    if (!(target instanceof HostDirectory)) fail(ERRNO_XDEV);
    this.writable();
    target.writable();
    this.named(srcPath, follows(srcLookupflags), (src) => {
      if (!src.stat) fail(ERRNO_NOENT);
      if (src.trailingSlash && !src.stat.isDirectory()) fail(ERRNO_NOTDIR);
      target.named(targetPath, false, (dst) => {
        if (dst.stat) fail(ERRNO_EXIST);
        // Linux: a new name with a trailing slash asks for a directory: ENOENT for a link.
        if (dst.trailingSlash) fail(ERRNO_NOENT);
        sys(() => linkSync(inDir(src.parent, src.name), inDir(dst.parent, dst.name)));
      });
    });
  }

  open(lookupflags: number, path: string, oflags: number, rightsBase: bigint, _rightsInheriting: bigint, fdflags: number): Descriptor {
    const write = (rightsBase & WRITE_RIGHTS) !== 0n || (oflags & OFLAGS_TRUNC) !== 0;
    const read = (rightsBase & (RIGHTS_FD_READ | RIGHTS_FD_READDIR)) !== 0n || !write;
    const follow = follows(lookupflags);
    const resolved = (r: Resolved, root: DirRef): Descriptor => this.openResolved(r, root, oflags, rightsBase, fdflags, read, write);
    if (oflags !== 0 || write) return this.at(path, follow, resolved);
    // Opening a name to read it (what a bundler does for every module it loads): the walk leaves
    // the last name unchecked and one open with O_NOFOLLOW answers for it, where the walk's lstat
    // and the open made two system calls. A symlink to follow, or a directory, is walked again
    // the general way (openResolved).
    const quick = this.openQuick(path, follow, fdflags, rightsBase);
    if (quick !== undefined) return quick ?? this.at(path, follow, resolved);
    const opened = this.at(path, follow, (r, root) => (r.unchecked ? this.openToRead(inDir(r.parent, r.name!), follow, false, fdflags, rightsBase) : resolved(r, root)), false);
    return opened ?? this.at(path, follow, resolved);
  }

  /**
   * path_open to read `path` the usual way, without a walk: in the host's root a path of plain
   * names, which the kernel resolves (host-path.ts's kernelPathInRoot); else the last name in a
   * cached directory (cachedDirOf). The descriptor; null when the name is a directory or a symlink
   * to follow (the general walk opens it); undefined when neither way applies.
   */
  private openQuick(path: string, follow: boolean, fdflags: number, rightsBase: bigint): Descriptor | null | undefined {
    if (this.cache === undefined && this.hostRoot === false) return undefined;
    const os = this.table.pinOs(this.fd, this.gen);
    if (os < 0) fail(ERRNO_BADF);
    try {
      const abs = this.hostRootAt(os) ? kernelPathInRoot(path) : undefined;
      if (abs !== undefined) return this.openToRead(abs, follow, follow, fdflags, rightsBase) ?? null;
      if (this.cache === undefined) return undefined;
      const hit = cachedDirOf(os, path, this.cache);
      if (typeof hit === 'number') return hit === WALK ? undefined : fail(hit);
      try {
        return this.openToRead(inDir(hit.dir, path.slice(path.lastIndexOf('/') + 1)), follow, false, fdflags, rightsBase) ?? null;
      } finally {
        release(hit);
      }
    } finally {
      this.table.unpinOs(os);
    }
  }

  /**
   * The general path_open once the walk has looked at the entry (`r.stat`): the checks in
   * wasmtime's order, then the open.
   */
  private openResolved(r: Resolved, root: DirRef, oflags: number, rightsBase: bigint, fdflags: number, read: boolean, write: boolean): Descriptor {
    if (r.stat?.isDirectory() || (r.name === null && !(oflags & OFLAGS_CREAT))) {
      if ((oflags & OFLAGS_CREAT) && (oflags & OFLAGS_EXCL)) fail(ERRNO_EXIST);
      // As wasmtime (and open(2) with O_WRONLY/O_RDWR): FD_WRITE on a directory is EISDIR, with
      // or without O_DIRECTORY. The other writing rights (wasi-libc asks for them with every
      // O_DIRECTORY open) only matter without O_DIRECTORY.
      if ((rightsBase & RIGHTS_FD_WRITE) !== 0n || (write && !(oflags & OFLAGS_DIRECTORY))) fail(ERRNO_ISDIR);
      return this.openDirectory(root, r);
    }
    if (oflags & OFLAGS_DIRECTORY) fail(r.stat ? ERRNO_NOTDIR : ERRNO_NOENT);
    // A trailing slash asks for a directory: a file is ENOTDIR, a missing name ENOENT, or
    // EISDIR when it would be created (Linux's answers).
    if (r.trailingSlash) fail(r.stat ? ERRNO_NOTDIR : oflags & OFLAGS_CREAT ? ERRNO_ISDIR : ERRNO_NOENT);
    if (r.stat?.isSymbolicLink()) fail(ERRNO_LOOP); // O_NOFOLLOW on a symlink, as Linux
    if (this.info.readOnly && (write || (oflags & OFLAGS_CREAT))) fail(ERRNO_PERM);
    const os = sys(() => openSync(inDir(r.parent, r.name!), openFlags(oflags, fdflags, read, write), 0o666));
    return this.hostFile(os, fdflags, rightsBase, read, write, false)!;
  }

  /**
   * path_open to read, with no oflags, the host path `host` that no walk looked at: a name in a
   * walked directory (`inDir`: the open, O_NOFOLLOW, answers as openResolved's checks would for a
   * missing name (ENOENT), a symlink not to follow (ELOOP) and a file), or kernelPathInRoot's
   * path, which the kernel resolves (`kernelFollows`: following the last name when the caller
   * does). The descriptor of a file; undefined for a directory (closed again) and for a symlink
   * the caller follows but the open did not: the caller walks those the general way.
   */
  private openToRead(host: string, follow: boolean, kernelFollows: boolean, fdflags: number, rightsBase: bigint): Descriptor | undefined {
    const flags = openFlags(0, fdflags, true, false) & (kernelFollows ? ~constants.O_NOFOLLOW : ~0);
    let os: number;
    try {
      os = quiet(() => openSync(host, flags, 0o666));
    } catch (e) {
      // With O_NOFOLLOW, ELOOP means the name is a symlink.
      if ((e as NodeJS.ErrnoException).code === 'ELOOP' && follow && !kernelFollows) return undefined;
      return fail(errnoOfNodeError(e));
    }
    return this.hostFile(os, fdflags, rightsBase, true, false, true);
  }

  /**
   * The descriptor of OS fd `os` just opened on a file; for a directory (opened between the
   * walk's look and the open, or unchecked), undefined with `os` closed.
   */
  private hostFile(os: number, fdflags: number, rightsBase: bigint, read: boolean, write: boolean, dirUndefined: boolean): Descriptor | undefined {
    let filetype;
    try {
      // Only the type is needed: Node's number Stats cost less than BigIntStats.
      filetype = filetypeOf(sys(() => fstatSync(os)));
    } catch (e) {
      closeQuietly(os);
      throw e;
    }
    if (filetype === FILETYPE_DIRECTORY && dirUndefined) {
      closeQuietly(os);
      return undefined;
    }
    return new PendingHost({
      kind: HOST_FILE, handle: os, mount: this.mount, fdflags, filetype,
      rightsBase: rightsBase & DIR_INHERITING, rightsInheriting: 0n,
      aux: (fdflags & FDFLAGS_APPEND ? AUX_OS_APPEND : 0) | (this.info.readOnly ? AUX_READ_ONLY : 0)
        | (read ? AUX_OS_READ : 0) | (write ? AUX_OS_WRITE : 0),
    });
  }

  /** A new directory fd for what `r` names: its own OS fd, opened without following it. */
  private openDirectory(root: DirRef, r: Resolved): Descriptor {
    const host = r.name === null ? dirItself(root) : inDir(r.parent, r.name);
    // The root itself is reopened through its fd (the magic link is meant to be followed there).
    const os = sys(() => openSync(host, r.name === null ? constants.O_RDONLY | constants.O_DIRECTORY : DIR_FLAGS));
    return new PendingHost(hostDirEntryFor(os, PROC_FD ? '' : host, this.mount));
  }

  readlink(path: string): Uint8Array {
    return this.named(path, false, (r) => {
      if (!r.stat) fail(ERRNO_NOENT);
      // "link/" follows the link (the walk did): a file then is ENOTDIR, a directory EINVAL.
      if (r.trailingSlash && !r.stat.isDirectory()) fail(ERRNO_NOTDIR);
      if (!r.stat.isSymbolicLink()) fail(ERRNO_INVAL);
      const target = sys(() => readlinkSync(inDir(r.parent, r.name), { encoding: 'buffer' }));
      // wasmtime does not even show an absolute target (it could only lead out of the directory);
      // in the host's root it leads nowhere outside, and the walk follows it (host-path.ts).
      if (target[0] === 0x2f && !this.isHostRoot()) fail(ERRNO_PERM);
      return target;
    });
  }

  removeDirectory(path: string): void {
    this.writable();
    this.at(path, false, (r) => {
      if (r.name === null) fail(ERRNO_INVAL);
      if (r.stat && !r.stat.isDirectory()) fail(ERRNO_NOTDIR);
      sys(() => rmdirSync(inDir(r.parent, r.name!)));
    });
  }

  rename(srcPath: string, target: Directory, dstPath: string): void {
    if (!(target instanceof HostDirectory)) fail(ERRNO_XDEV);
    this.writable();
    target.writable();
    this.at(srcPath, false, (src) => target.at(dstPath, false, (dst) => {
      if (src.name === null || dst.name === null) fail(src.stat ? ERRNO_INVAL : ERRNO_NOENT);
      if (!src.stat) fail(ERRNO_NOENT);
      // Linux: a trailing slash on either name asks for a directory; a file source is ENOTDIR.
      if ((src.trailingSlash || dst.trailingSlash) && !src.stat.isDirectory()) fail(ERRNO_NOTDIR);
      sys(() => renameSync(inDir(src.parent, src.name!), inDir(dst.parent, dst.name!)));
    }));
  }

  symlink(oldPath: string, newPath: string): void {
    this.writable();
    // wasmtime refuses to create a symlink that could only escape (an absolute target); in the
    // host's root nothing is outside, and the walk follows such a target (host-path.ts).
    if (oldPath.startsWith('/') && !this.isHostRoot()) fail(ERRNO_PERM);
    this.named(newPath, false, (r) => {
      // Linux: an existing name is EEXIST; a missing one with a trailing slash ENOENT (a symlink
      // is not the directory the slash asks for).
      if (r.stat) fail(ERRNO_EXIST);
      if (r.trailingSlash) fail(ERRNO_NOENT);
      sys(() => symlinkSync(oldPath, inDir(r.parent, r.name)));
    });
  }

  unlinkFile(path: string): void {
    this.writable();
    this.at(path, false, (r) => {
      if (r.name === null) fail(ERRNO_ISDIR);
      if (r.stat?.isDirectory()) fail(ERRNO_ISDIR);
      if (r.trailingSlash) fail(r.stat ? ERRNO_NOTDIR : ERRNO_NOENT);
      sys(() => unlinkSync(inDir(r.parent, r.name!)));
    });
  }
}

/** lstatSync's and statSync's options for kernelFilestat, made once. */
const STAT = { bigint: true, throwIfNoEntry: false } as const;

/** path_filestat_get of `abs`, a host path `kernelPathInRoot` gave: the kernel resolves it, following the last name when asked. */
function kernelFilestat(abs: string, follow: boolean): Filestat | number {
  try {
    const st = quiet(() => (follow ? statSync(abs, STAT) : lstatSync(abs, STAT)));
    return st === undefined ? ERRNO_NOENT : filestatOf(st);
  } catch (e) {
    return errnoOfNodeError(e);
  }
}

/** path_filestat_get's answer for what the walk found. */
function filestatAnswer(r: Resolved): Filestat | number {
  if (!r.stat) return ERRNO_NOENT;
  if (r.trailingSlash && !r.stat.isDirectory()) return ERRNO_NOTDIR;
  return filestatOf(r.stat);
}

function closeQuietly(os: number): void {
  try { closeSync(os); } catch { /* nothing more to release */ }
}

/** open(2) flags for path_open's arguments; always O_NOFOLLOW (the path is already resolved). */
function openFlags(oflags: number, fdflags: number, read: boolean, write: boolean): number {
  let f = read && write ? constants.O_RDWR : write ? constants.O_WRONLY : constants.O_RDONLY;
  if (oflags & OFLAGS_CREAT) f |= constants.O_CREAT;
  if (oflags & OFLAGS_EXCL) f |= constants.O_EXCL;
  if (oflags & OFLAGS_TRUNC) f |= constants.O_TRUNC;
  if (fdflags & FDFLAGS_APPEND) f |= constants.O_APPEND;
  if (fdflags & FDFLAGS_DSYNC) f |= constants.O_DSYNC;
  if (fdflags & (FDFLAGS_SYNC | FDFLAGS_RSYNC)) f |= constants.O_SYNC;
  return f | constants.O_NOFOLLOW;
}

/**
 * A host directory to mount, opened: its OS fd and, where names are reached through paths, its
 * real path; or what is wrong with it (for the user).
 */
export function hostRoot(host: string): OpenedRoot | { error: string } {
  // node:fs cannot open a directory on Windows, and a host directory is held open (host-path.ts).
  if (process.platform === 'win32') return { error: 'host directories need Linux or macOS (on Windows node:fs cannot hold a directory open); use a memory mount' };
  try {
    const real = realpathSync(host);
    const fd = openSync(real, constants.O_RDONLY | constants.O_DIRECTORY);
    return { fd, path: PROC_FD ? '' : real };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return {
      error: code === 'ENOENT' ? `${host} does not exist`
        : code === 'ENOTDIR' ? `${host} is not a directory` : `cannot open ${host} (${code ?? String(e)})`,
    };
  }
}
