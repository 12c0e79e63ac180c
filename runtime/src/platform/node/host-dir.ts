/**
 * The path operations relative to a host directory fd (`Directory`), on node:fs, synchronously on
 * the calling thread. Every guest path is confined by `resolve` (host-path.ts) first; the host
 * call then gets a path whose every component was checked, and O_NOFOLLOW where it opens.
 *
 * Read-only mounts (`--dir-ro`, `{ readOnly: true }`): every call that would change the tree, and
 * opening a file for writing (TRUNC counts as writing: compute the access first, check once), is
 * EPERM, as wasmtime answers for a directory without mutate permission.
 *
 * Hard links and renames between a host directory and another backend are EXDEV.
 */
import {
  constants, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readlinkSync, renameSync, rmdirSync,
  realpathSync, symlinkSync, unlinkSync, utimesSync, lutimesSync,
} from 'node:fs';
import {
  ERRNO_EXIST, ERRNO_INVAL, ERRNO_ISDIR, ERRNO_LOOP, ERRNO_NOENT, ERRNO_NOTDIR, ERRNO_PERM, ERRNO_XDEV,
  FDFLAGS_APPEND, FDFLAGS_DSYNC, FDFLAGS_RSYNC, FDFLAGS_SYNC, LOOKUPFLAGS_SYMLINK_FOLLOW,
  OFLAGS_CREAT, OFLAGS_DIRECTORY, OFLAGS_EXCL, OFLAGS_TRUNC,
  RIGHTS_FD_ALLOCATE, RIGHTS_FD_DATASYNC, RIGHTS_FD_FILESTAT_SET_SIZE, RIGHTS_FD_READ,
  RIGHTS_FD_READDIR, RIGHTS_FD_WRITE,
} from '../../wasi/constants.js';
import { fail } from '../../wasi/errno.js';
import type { Descriptor, Directory, Filestat } from '../../wasi/fd-table.js';
import { AUX_OS_APPEND, filestatOf, filetypeOf, PendingHost, timesFor, type MountInfo } from './host-file.js';
import { DIR_INHERITING, hostDirEntryFor } from '../../fs/runtime-fs.js';
import { resolve, sys, type Resolved } from './host-path.js';
import { HOST_FILE } from '../../fs/shared-fd-table.js';

const WRITE_RIGHTS = RIGHTS_FD_WRITE | RIGHTS_FD_DATASYNC | RIGHTS_FD_ALLOCATE | RIGHTS_FD_FILESTAT_SET_SIZE;

export class HostDirectory implements Directory {
  constructor(readonly path: string, private readonly mount: number, private readonly info: MountInfo) {}

  private writable(): void {
    if (this.info.readOnly) fail(ERRNO_PERM);
  }
  /** The entry `path` names, as a name in a parent (mkdir, unlink, ... never act on "." or ".."). */
  private named(path: string, follow = false): Resolved & { name: string } {
    const r = resolve(this.path, path, follow);
    if (r.name === null) fail(r.stat ? ERRNO_EXIST : ERRNO_NOENT);
    return r as Resolved & { name: string };
  }

  createDirectory(path: string): void {
    this.writable();
    const r = resolve(this.path, path, false);
    if (r.name === null || r.stat) fail(ERRNO_EXIST);
    sys(() => mkdirSync(r.host, 0o777));
  }

  filestat(lookupflags: number, path: string): Filestat {
    const r = resolve(this.path, path, (lookupflags & LOOKUPFLAGS_SYMLINK_FOLLOW) !== 0);
    if (!r.stat) fail(ERRNO_NOENT);
    if (r.trailingSlash && !r.stat.isDirectory()) fail(ERRNO_NOTDIR);
    return filestatOf(r.stat);
  }

  setTimes(lookupflags: number, path: string, atim: bigint, mtim: bigint, fstflags: number): void {
    this.writable();
    const follow = (lookupflags & LOOKUPFLAGS_SYMLINK_FOLLOW) !== 0;
    const r = resolve(this.path, path, follow);
    if (!r.stat) fail(ERRNO_NOENT);
    const [a, m] = timesFor(r.stat, atim, mtim, fstflags);
    // The path is resolved: its last component is a symlink only when not following.
    sys(() => (r.stat!.isSymbolicLink() ? lutimesSync : utimesSync)(r.host, a, m));
  }

  link(srcLookupflags: number, srcPath: string, target: Directory, targetPath: string): void {
    if (!(target instanceof HostDirectory)) fail(ERRNO_XDEV);
    this.writable();
    target.writable();
    const src = this.named(srcPath, (srcLookupflags & LOOKUPFLAGS_SYMLINK_FOLLOW) !== 0);
    if (!src.stat) fail(ERRNO_NOENT);
    const dst = target.named(targetPath);
    if (dst.stat) fail(ERRNO_EXIST);
    sys(() => linkSync(src.host, dst.host));
  }

  open(lookupflags: number, path: string, oflags: number, rightsBase: bigint, _rightsInheriting: bigint, fdflags: number): Descriptor {
    const r = resolve(this.path, path, (lookupflags & LOOKUPFLAGS_SYMLINK_FOLLOW) !== 0);
    const write = (rightsBase & WRITE_RIGHTS) !== 0n || (oflags & OFLAGS_TRUNC) !== 0;
    const read = (rightsBase & (RIGHTS_FD_READ | RIGHTS_FD_READDIR)) !== 0n || !write;
    if (r.stat?.isDirectory() || (r.name === null && !(oflags & OFLAGS_CREAT))) {
      if ((oflags & OFLAGS_CREAT) && (oflags & OFLAGS_EXCL)) fail(ERRNO_EXIST);
      // As wasmtime: with O_DIRECTORY the rights asked for do not matter (wasi-libc asks for
      // every right when it opens a directory); without it, asking to write a directory is EISDIR.
      if (write && !(oflags & OFLAGS_DIRECTORY)) fail(ERRNO_ISDIR);
      return new PendingHost(hostDirEntryFor(r.host, this.mount));
    }
    if (oflags & OFLAGS_DIRECTORY) fail(r.stat ? ERRNO_NOTDIR : ERRNO_NOENT);
    if (r.trailingSlash) fail(r.stat ? ERRNO_NOTDIR : ERRNO_ISDIR);
    if (r.stat?.isSymbolicLink()) fail(ERRNO_LOOP) // O_NOFOLLOW on a symlink, as Linux;
    if (this.info.readOnly && (write || (oflags & OFLAGS_CREAT))) fail(ERRNO_PERM);
    const flags = openFlags(oflags, fdflags, read, write);
    const os = sys(() => openSync(r.host, flags, 0o666));
    const st = sys(() => fstatSync(os, { bigint: true }));
    return new PendingHost({
      kind: HOST_FILE, handle: os, mount: this.mount, fdflags, filetype: filetypeOf(st),
      rightsBase: rightsBase & DIR_INHERITING, rightsInheriting: 0n,
      aux: fdflags & FDFLAGS_APPEND ? AUX_OS_APPEND : 0,
    });
  }

  readlink(path: string): Uint8Array {
    const r = this.named(path);
    if (!r.stat) fail(ERRNO_NOENT);
    if (!r.stat.isSymbolicLink()) fail(ERRNO_INVAL);
    const target = sys(() => readlinkSync(r.host, { encoding: 'buffer' }));
    // wasmtime does not even show an absolute target (it could only lead out of the directory).
    if (target[0] === 0x2f) fail(ERRNO_PERM);
    return target;
  }

  removeDirectory(path: string): void {
    this.writable();
    const r = resolve(this.path, path, false);
    if (r.name === null) fail(ERRNO_INVAL);
    if (r.stat && !r.stat.isDirectory()) fail(ERRNO_NOTDIR);
    sys(() => rmdirSync(r.host));
  }

  rename(srcPath: string, target: Directory, dstPath: string): void {
    if (!(target instanceof HostDirectory)) fail(ERRNO_XDEV);
    this.writable();
    target.writable();
    const src = resolve(this.path, srcPath, false);
    const dst = resolve(target.path, dstPath, false);
    if (src.name === null || dst.name === null) fail(src.stat ? ERRNO_INVAL : ERRNO_NOENT);
    if (!src.stat) fail(ERRNO_NOENT);
    sys(() => renameSync(src.host, dst.host));
  }

  symlink(oldPath: string, newPath: string): void {
    this.writable();
    // wasmtime refuses to create a symlink that could only escape (an absolute target).
    if (oldPath.startsWith('/')) fail(ERRNO_PERM);
    const r = this.named(newPath);
    if (r.stat || r.trailingSlash) fail(ERRNO_EXIST);
    sys(() => symlinkSync(oldPath, r.host));
  }

  unlinkFile(path: string): void {
    this.writable();
    const r = resolve(this.path, path, false);
    if (r.name === null) fail(ERRNO_ISDIR);
    if (r.stat?.isDirectory()) fail(ERRNO_ISDIR);
    if (r.trailingSlash) fail(r.stat ? ERRNO_NOTDIR : ERRNO_NOENT);
    sys(() => unlinkSync(r.host));
  }
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

/** A host directory to mount: its real path, or what is wrong with it (for the user). */
export function hostRoot(host: string): string | { error: string } {
  try {
    const real = realpathSync(host);
    if (!lstatSync(real).isDirectory()) return { error: `${host} is not a directory` };
    return real;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { error: code === 'ENOENT' ? `${host} does not exist` : `cannot open ${host} (${code ?? String(e)})` };
  }
}
