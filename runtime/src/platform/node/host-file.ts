/**
 * Open host files and host directories as WASI descriptors (Node only: node:fs, synchronous, on
 * the calling thread; never a proxy). Each thread materializes its own descriptor objects from
 * the shared fd table entry; everything mutable lives in the entry:
 *
 *   HOST_FILE  HANDLE = the OS fd (OS fds are process-wide, so any worker can use it), OFFSET =
 *              the file offset (Node has no lseek: reads and writes pass explicit positions under
 *              the entry lock), AUX bit 0 = the OS fd was opened with O_APPEND (the kernel then
 *              appends atomically, whatever position is passed), AUX bit 1 = opened on a
 *              read-only mount, FDFLAGS, rights.
 *   HOST_DIR   HANDLE = an OS fd of the directory (O_DIRECTORY; names inside it are reached
 *              through it: host-path.ts), PATH = its host path only without /proc/self/fd,
 *              MOUNT = its mount (read-only?).
 *
 * Every call on the OS fd holds a pin on it (`pinned`: SharedFdTable.pinOs), taken only if the
 * entry still has the generation this descriptor was made from, so a call never reaches the OS
 * fd after a close by another thread (EBADF instead), and the OS fd is closed by the last user.
 *
 * Read-only mounts (wasmtime's FilePerms without WRITE, DirPerms without MUTATE): set-times,
 * set-size and allocate are EPERM on their files and directories, whatever the open mode.
 *
 * Answers follow wasmtime 46 (checked with tests/fs-guests/runtime/probe.c): a file fd reports
 * the rights it was opened with (base = requested & DIR_INHERITING, inheriting 0); a directory
 * fd reports DIR_BASE / DIR_INHERITING; fd_fdstat_set_rights is ENOTSUP; fd_allocate extends the
 * file (wasmtime: ENOTSUP, which makes posix_fallocate fail; on a read-only mount ENOTSUP too);
 * read/write/seek on a directory are EBADF; fd_fdstat_set_flags replaces the flags.
 */
import {
  closeSync, constants, openSync, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, futimesSync, lstatSync,
  readdirSync, readSync, writeSync, type BigIntStats,
} from 'node:fs';
import {
  ERRNO_BADF, ERRNO_FBIG, ERRNO_INVAL, ERRNO_NOTDIR, ERRNO_NOTSUP, ERRNO_PERM, FDFLAGS_APPEND, FILETYPE_BLOCK_DEVICE, FILETYPE_CHARACTER_DEVICE,
  FILETYPE_DIRECTORY, FILETYPE_REGULAR_FILE, FILETYPE_SOCKET_STREAM, FILETYPE_SYMBOLIC_LINK, FILETYPE_UNKNOWN,
  WHENCE_CUR, WHENCE_END, WHENCE_SET,
} from '../../wasi/constants.js';
import { fail, WasiErrno } from '../../wasi/errno.js';
import { DescriptorBase, type Directory, type Fdstat, type Filestat } from '../../wasi/fd-table.js';
import type { GuestMemory, IoVecs } from '../../wasi/guest-memory.js';
import { dirItself, inDir, PROC_FD, sys, type DirRef } from './host-path.js';
import { errnoOfNodeError } from './errno.js';
import { childPathOf, setTimes } from './host-times.js';
import { AUX, FDFLAGS, FILETYPE, holdsOsFd, MOUNT, PREOPEN, type EntryInit, type PendingEntry, type SharedFdTable } from '../../fs/shared-fd-table.js';

/** AUX bit: the OS fd has O_APPEND. */
export const AUX_OS_APPEND = 1;
/** AUX bit: the file was opened on a read-only mount (wasmtime: FilePerms without WRITE). */
export const AUX_READ_ONLY = 2;
/** AUX bits: the OS fd's access mode (for reopening it with other flags). */
export const AUX_OS_READ = 4;
export const AUX_OS_WRITE = 8;

/**
 * Runs `f` with the OS fd of entry `fd` pinned (see SharedFdTable.pinOs), if the entry still has
 * generation `gen`; EBADF if it was closed or renumbered since.
 */
export function pinned<T>(table: SharedFdTable, fd: number, gen: number, f: (os: number) => T): T {
  const os = table.pinOs(fd, gen);
  if (os < 0) fail(ERRNO_BADF);
  try {
    return f(os);
  } finally {
    table.unpinOs(os);
  }
}

/** A mount of the program (a preopen): what the descriptors of a thread need to know of it. */
export interface MountInfo {
  readonly guest: string;
  readonly readOnly: boolean;
}

export function filetypeOf(st: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): number {
  if (st.isFile()) return FILETYPE_REGULAR_FILE;
  if (st.isDirectory()) return FILETYPE_DIRECTORY;
  if (st.isSymbolicLink()) return FILETYPE_SYMBOLIC_LINK;
  if (st.isCharacterDevice()) return FILETYPE_CHARACTER_DEVICE;
  if (st.isBlockDevice()) return FILETYPE_BLOCK_DEVICE;
  if (st.isSocket()) return FILETYPE_SOCKET_STREAM;
  return FILETYPE_UNKNOWN;
}

export function filestatOf(st: BigIntStats): Filestat {
  return {
    dev: st.dev, ino: st.ino, filetype: filetypeOf(st), nlink: st.nlink, size: st.size,
    atim: st.atimeNs, mtim: st.mtimeNs, ctim: st.ctimeNs,
  };
}

/** fstatSync's options for exact times, made once. */
const FSTAT_BIG = { bigint: true } as const;

/** fstat of OS fd `os` (BigIntStats: times to the ns); a Node error becomes its errno. */
function fstatBig(os: number): BigIntStats {
  try {
    return fstatSync(os, FSTAT_BIG);
  } catch (e) {
    return fail(errnoOfNodeError(e));
  }
}

/** The times of OS fd `os` set as `fstflags` asks (host-times.ts: to the nanosecond). */
export function setFdTimes(os: number, atim: bigint, mtim: bigint, fstflags: number): void {
  const stat = (): BigIntStats => sys(() => fstatSync(os, { bigint: true }));
  setTimes({ nodeSet: (a, m) => futimesSync(os, a, m), childPath: childPathOf(os), followChildPath: true, stat }, stat(), atim, mtim, fstflags);
}

/** A file size or offset as Node takes it (a double): beyond 2^53 bytes is EFBIG. */
function position(v: bigint): number {
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? fail(ERRNO_FBIG) : Number(v);
}

/** A host fd opened by path_open, before the table gives it a number. */
export class PendingHost extends DescriptorBase implements PendingEntry {
  constructor(readonly entry: EntryInit) { super(); }
  fdstat(): Fdstat { return fail(ERRNO_INVAL); }
  filestat(): Filestat { return fail(ERRNO_INVAL); }
  override close(): void {
    if (holdsOsFd(this.entry.kind) && this.entry.handle !== undefined) closeSync(this.entry.handle);
  }
}

/** An open host file (or device) as seen by one thread. */
export class HostFile extends DescriptorBase {
  private readonly seekable: boolean;

  constructor(private readonly table: SharedFdTable, private readonly fd: number, private readonly gen: number) {
    super();
    this.seekable = table.field(fd, FILETYPE) === FILETYPE_REGULAR_FILE;
  }

  /** `f` on the pinned OS fd (EBADF once the fd was closed). */
  private os<T>(f: (os: number) => T): T {
    return pinned(this.table, this.fd, this.gen, f);
  }
  /** `f` on the pinned OS fd under the entry lock, for the calls that use the shared offset. */
  private locked<T>(f: (os: number) => T): T {
    return this.os((os) => this.table.withEntryLock(this.fd, this.gen, () => f(os)));
  }
  private writable(): void {
    if (this.table.field(this.fd, AUX) & AUX_READ_ONLY) fail(ERRNO_PERM);
  }

  fdstat(): Fdstat {
    const r = this.table.rights(this.fd);
    return { filetype: this.table.field(this.fd, FILETYPE), flags: this.table.field(this.fd, FDFLAGS), rightsBase: r.base, rightsInheriting: r.inheriting };
  }
  /** fd_fdstat_get's fast path: `fdstat`'s struct from the entry's words (SharedFdTable.fdstatInto). */
  fdstatInto(mem: GuestMemory, ptr: number): void {
    this.table.fdstatInto(this.fd, this.table.field(this.fd, FILETYPE), mem, ptr);
  }
  /**
   * fdflags APPEND goes to the OS fd itself (the kernel appends atomically, and a cleared APPEND
   * must really stop appending: Linux's pwrite appends on an O_APPEND fd whatever the position).
   * Node has no fcntl(F_SETFL): the file is reopened through /proc/self/fd/<os> with the new
   * flag, and the new OS fd replaces the old one in the entry. Without /proc/self/fd, a set APPEND
   * is done by spindle (the end looked up under the entry lock) and clearing one set at open is
   * ENOTSUP.
   */
  override setFdflags(flags: number): void {
    const append = (flags & FDFLAGS_APPEND) !== 0;
    const aux = this.table.field(this.fd, AUX);
    if (this.seekable && append !== ((aux & AUX_OS_APPEND) !== 0)) {
      if (PROC_FD) this.reopen(append);
      else if (!append) fail(ERRNO_NOTSUP);
    }
    this.table.setField(this.fd, FDFLAGS, flags);
  }
  private reopen(append: boolean): void {
    this.os((os) => {
      const aux = this.table.field(this.fd, AUX);
      const access = aux & AUX_OS_WRITE ? (aux & AUX_OS_READ ? constants.O_RDWR : constants.O_WRONLY) : constants.O_RDONLY;
      const next = sys(() => openSync(`/proc/self/fd/${os}`, access | (append ? constants.O_APPEND : 0)));
      const nextAux = append ? aux | AUX_OS_APPEND : aux & ~AUX_OS_APPEND;
      if (!this.table.replaceOs(this.fd, this.gen, next, nextAux)) {
        closeSync(next);
        fail(ERRNO_BADF);
      }
    });
  }
  override setRights(): void { fail(ERRNO_NOTSUP); }
  filestat(): Filestat { return this.os((os) => filestatOf(sys(() => fstatSync(os, { bigint: true })))); }
  /** fd_filestat_get's fast path: the fstat's fields straight into guest memory (no Filestat, no closure). */
  filestatInto(mem: GuestMemory, ptr: number): void {
    const os = this.table.pinOs(this.fd, this.gen);
    if (os < 0) fail(ERRNO_BADF);
    try {
      const st = fstatBig(os);
      mem.setFilestat(ptr, st.dev, st.ino, filetypeOf(st), st.nlink, st.size, st.atimeNs, st.mtimeNs, st.ctimeNs);
    } finally {
      this.table.unpinOs(os);
    }
  }
  override setSize(size: bigint): void {
    this.writable();
    this.os((os) => sys(() => ftruncateSync(os, position(size))));
  }
  override setTimes(atim: bigint, mtim: bigint, fstflags: number): void {
    this.writable();
    this.os((os) => setFdTimes(os, atim, mtim, fstflags));
  }
  override advise(): void { this.os(() => undefined); }
  /** posix_fallocate: the file is at least offset + len long (wasmtime 46 says ENOTSUP instead). */
  override allocate(offset: bigint, len: bigint): void {
    if (this.table.field(this.fd, AUX) & AUX_READ_ONLY) fail(ERRNO_NOTSUP);
    const end = offset + len;
    this.os((os) => {
      if (sys(() => fstatSync(os, { bigint: true })).size < end) sys(() => ftruncateSync(os, position(end)));
    });
  }
  override datasync(): void { this.os((os) => sys(() => fdatasyncSync(os))); }
  override sync(): void { this.os((os) => sys(() => fsyncSync(os))); }

  override read(max: number): Uint8Array {
    const buf = new Uint8Array(max);
    if (!this.seekable) return buf.subarray(0, this.os((os) => sys(() => readSync(os, buf, 0, max, null))));
    return this.locked((os) => {
      const off = this.table.offset(this.fd);
      const n = sys(() => readSync(os, buf, 0, max, off));
      this.table.setOffset(this.fd, off + BigInt(n));
      return buf.subarray(0, n);
    });
  }
  /**
   * fd_read's fast path: a regular file is read by the kernel straight into the guest's buffers
   * (one pread per iovec, at the shared offset, under the entry lock, stopping at a short read as
   * readv does), with no buffer of our own to allocate, zero and copy out. Anything else (pipes,
   * devices: a second read could block) goes through `read`.
   */
  readInto(mem: GuestMemory, iovs: IoVecs): number {
    if (!this.seekable) return mem.scatter(iovs, this.read(iovs.total));
    // `locked` without its closures over closures: one per call, under the pin.
    const os = this.table.pinOs(this.fd, this.gen);
    if (os < 0) fail(ERRNO_BADF);
    try {
      return this.table.withEntryLock(this.fd, this.gen, () => this.preadInto(os, mem, iovs));
    } finally {
      this.table.unpinOs(os);
    }
  }
  /**
   * readInto's reads at the shared offset (under the entry lock), which they advance. Each read
   * lands in memory by offset (`GuestMemory.whole`: no view per read); below 2^52 (every real file)
   * the offset and positions are numbers, with no BigInt; beyond, BigInts.
   */
  private preadInto(os: number, mem: GuestMemory, iovs: IoVecs): number {
    const small = this.table.offsetNumber(this.fd);
    const big = small < 0 ? this.table.offset(this.fd) : 0n;
    let got = 0;
    for (let i = 0; i < iovs.ptrs.length; i++) {
      const len = iovs.lens[i]!;
      if (len === 0) continue;
      const ptr = iovs.ptrs[i]!;
      let n: number;
      try {
        n = readSync(os, mem.whole(ptr, len), ptr >>> 0, len, small >= 0 ? small + got : big + BigInt(got));
      } catch (e) {
        if (got === 0) return fail(e instanceof WasiErrno ? e.errno : errnoOfNodeError(e));
        break; // as readv: the bytes already read are the answer
      }
      got += n;
      if (n < len) break;
    }
    if (small >= 0) this.table.setOffsetNumber(this.fd, small + got);
    else this.table.setOffset(this.fd, big + BigInt(got));
    return got;
  }
  override pread(max: number, offset: bigint): Uint8Array {
    const buf = new Uint8Array(max);
    return buf.subarray(0, this.os((os) => sys(() => readSync(os, buf, 0, max, offset))));
  }
  override write(bytes: Uint8Array): number {
    if (!this.seekable) return this.os((os) => sys(() => writeSync(os, bytes, 0, bytes.length, null)));
    return this.locked((os) => {
      const append = (this.table.field(this.fd, FDFLAGS) & FDFLAGS_APPEND) !== 0;
      const osAppend = (this.table.field(this.fd, AUX) & AUX_OS_APPEND) !== 0;
      // With O_APPEND the kernel writes at the end whatever the position (Linux pwrite); without
      // it (APPEND set later by fd_fdstat_set_flags) the end is looked up under the entry lock.
      const at = append && !osAppend ? sys(() => fstatSync(os, { bigint: true })).size : this.table.offset(this.fd);
      const n = sys(() => writeSync(os, bytes, 0, bytes.length, position(at)));
      const next = osAppend ? sys(() => fstatSync(os, { bigint: true })).size : at + BigInt(n);
      this.table.setOffset(this.fd, next);
      return n;
    });
  }
  override pwrite(bytes: Uint8Array, offset: bigint): number {
    return this.os((os) => sys(() => writeSync(os, bytes, 0, bytes.length, position(offset))));
  }
  override seek(delta: bigint, whence: number): bigint {
    return this.locked((os) => {
      const base = whence === WHENCE_SET ? 0n
        : whence === WHENCE_CUR ? this.table.offset(this.fd)
          : sys(() => fstatSync(os, { bigint: true })).size;
      const next = base + delta;
      if (next < 0n || whence > WHENCE_END) fail(ERRNO_INVAL);
      this.table.setOffset(this.fd, next);
      return next;
    });
  }
  override tell(): bigint {
    return this.locked(() => this.table.offset(this.fd));
  }
  override asDirectory(): Directory { return fail(ERRNO_NOTDIR); }
  override readReady(): boolean { return true; }
  override writeReady(): boolean { return true; }
}

const DIRENT_HEADER = 24;
const encoder = new TextEncoder();

/** Makes the path operations of a directory entry (host-dir.ts's HostDirectory). */
export type DirectoryFactory = (table: SharedFdTable, fd: number, gen: number, path: string, mount: number) => Directory;

/** An open host directory as seen by one thread. */
export class HostDir extends DescriptorBase {
  /** Its host path, kept only where names are not reached through the fd (host-path.ts). */
  readonly path: string;

  constructor(
    private readonly table: SharedFdTable,
    private readonly fd: number,
    private readonly gen: number,
    private readonly mounts: readonly MountInfo[],
    private readonly directory: DirectoryFactory,
  ) {
    super();
    this.path = table.path(fd);
  }

  /** `f` on this directory, its OS fd pinned (EBADF once the fd was closed). */
  private dir<T>(f: (dir: DirRef) => T): T {
    return pinned(this.table, this.fd, this.gen, (os) => f({ fd: os, path: this.path }));
  }
  private writable(): void {
    if (this.mounts[this.table.field(this.fd, MOUNT)]?.readOnly) fail(ERRNO_PERM);
  }

  fdstat(): Fdstat {
    const r = this.table.rights(this.fd);
    return { filetype: FILETYPE_DIRECTORY, flags: this.table.field(this.fd, FDFLAGS), rightsBase: r.base, rightsInheriting: r.inheriting };
  }
  /** fd_fdstat_get's fast path (a bundler asks it before every open): as HostFile's. */
  fdstatInto(mem: GuestMemory, ptr: number): void {
    this.table.fdstatInto(this.fd, FILETYPE_DIRECTORY, mem, ptr);
  }
  override setFdflags(flags: number): void { this.table.setField(this.fd, FDFLAGS, flags); }
  override setRights(): void { fail(ERRNO_NOTSUP); }
  filestat(): Filestat { return this.dir((d) => filestatOf(sys(() => fstatSync(d.fd, { bigint: true })))); }
  override setTimes(atim: bigint, mtim: bigint, fstflags: number): void {
    this.writable();
    this.dir((d) => setFdTimes(d.fd, atim, mtim, fstflags));
  }
  override advise(): void {}
  override datasync(): void { this.sync(); }
  override sync(): void { this.dir((d) => sys(() => fsyncSync(d.fd))); }
  override readdir(cookie: bigint, max: number): Uint8Array {
    // Cookies are positions in [".", "..", ...the OS's listing]: stable while the directory is
    // unchanged, as wasmtime's. Only the entries returned are lstat'ed (for d_ino).
    return this.dir((dir) => listing(dir, cookie, max));
  }
  override prestatName(): Uint8Array | undefined {
    const p = this.table.field(this.fd, PREOPEN);
    // wasmtime: ENOTSUP for a directory that is not a preopen (EBADF for other fds).
    return p > 0 ? encoder.encode(this.mounts[p - 1]!.guest) : fail(ERRNO_NOTSUP);
  }
  /** Made once per descriptor: it holds this thread's directory cache of the fd (host-dir-cache.ts). */
  private directoryOps: Directory | undefined;
  override asDirectory(): Directory {
    return this.directoryOps ??= this.directory(this.table, this.fd, this.gen, this.path, this.table.field(this.fd, MOUNT));
  }
  override readReady(): boolean { return true; }
  override writeReady(): boolean { return true; }
}

/** fd_readdir's bytes for directory `dir` from `cookie`, at most about `max` bytes. */
function listing(dir: DirRef, cookie: bigint, max: number): Uint8Array {
  const names = ['.', '..', ...sys(() => readdirSync(dirItself(dir)))];
  const out: Uint8Array[] = [];
  let used = 0;
  for (let i = Number(cookie); i < names.length && used < max; i++) {
    const name = names[i]!;
    const st = sys(() => name === '.' ? fstatSync(dir.fd, { bigint: true }) : lstatSync(inDir(dir, name), { bigint: true, throwIfNoEntry: false }));
    if (!st) continue; // removed since the listing
    const bytes = encoder.encode(name);
    const d = new Uint8Array(DIRENT_HEADER + bytes.length);
    const v = new DataView(d.buffer);
    v.setBigUint64(0, BigInt(i + 1), true);
    v.setBigUint64(8, st.ino, true);
    v.setUint32(16, bytes.length, true);
    d[20] = filetypeOf(st);
    d.set(bytes, DIRENT_HEADER);
    out.push(d);
    used += d.length;
  }
  const all = new Uint8Array(used);
  let at = 0;
  for (const d of out) { all.set(d, at); at += d.length; }
  return all;
}
