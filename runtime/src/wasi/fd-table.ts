/**
 * The descriptor model: what an open WASI fd can do (`Descriptor`), what a directory fd can do with
 * paths (`Directory`), and the table from fd numbers to descriptors (`FdTable`).
 *
 * The fd_* and path_* imports (fd.ts, fd-io.ts, path.ts, poll.ts, sock.ts) only move bytes between
 * guest memory and these interfaces; all semantics of an fd live in its `Descriptor`. Today the only
 * descriptors are stdio (stdio.ts). The filesystem plugs in by adding descriptor classes (files,
 * directories with a `Directory`, preopens with a `prestatName`) and/or by supplying its own
 * `FdTable` to `wasiPreview1`.
 *
 * Conventions: methods work in host terms (numbers, bigints, Uint8Array), return their result and
 * fail by calling `fail(errno)` (errno.ts). `DescriptorBase` answers every operation the way
 * wasmtime answers it for an fd that is neither a file nor a directory (mostly EBADF), so a new
 * kind of descriptor overrides only what it supports.
 *
 * Thread rules: `LocalFdTable` is per instance, hence per thread: closing or renumbering stdio on
 * one thread is not seen by the others. A table shared by all threads (as the design requires for
 * files) must live in shared memory; that is the filesystem's `FdTable`.
 */
import { ERRNO_BADF } from './constants.js';
import { fail } from './errno.js';
import type { GuestMemory, IoVecs } from './guest-memory.js';

/** fdstat in host terms. */
export interface Fdstat {
  readonly filetype: number;
  readonly flags: number;
  readonly rightsBase: bigint;
  readonly rightsInheriting: bigint;
}

/** filestat in host terms (timestamps in ns since the epoch). */
export interface Filestat {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly filetype: number;
  readonly nlink: bigint;
  readonly size: bigint;
  readonly atim: bigint;
  readonly mtim: bigint;
  readonly ctim: bigint;
}

/** One open fd. Every method may `fail(errno)`. */
export interface Descriptor {
  fdstat(): Fdstat;
  /**
   * Optional fast path of `fdstat` (as `filestatInto`): writes the 24-byte fdstat at guest `ptr`
   * as fd_fdstat_get would write `fdstat()`.
   */
  fdstatInto?(mem: GuestMemory, ptr: number): void;
  setFdflags(flags: number): void;
  setRights(base: bigint, inheriting: bigint): void;
  filestat(): Filestat;
  setSize(size: bigint): void;
  /** `fstflags` has already been checked: never both X and X_NOW. */
  setTimes(atim: bigint, mtim: bigint, fstflags: number): void;
  advise(offset: bigint, len: bigint, advice: number): void;
  allocate(offset: bigint, len: bigint): void;
  datasync(): void;
  sync(): void;
  /**
   * Up to `max` bytes, blocking until some are available; length 0 means end of file. `max` 0
   * returns an empty array at once (after the descriptor's own EBADF check).
   */
  read(max: number): Uint8Array;
  pread(max: number, offset: bigint): Uint8Array;
  /**
   * Optional fast path of `read` for descriptors whose bytes sit in a buffer of their own (the
   * memory FS) or that the OS can read into guest memory (a host file): reads up to `iovs.total`
   * bytes (the iovecs already validated) straight into the guest's buffers, in order; returns
   * how many. Same result and errors as `mem.scatter(iovs, read(iovs.total))`.
   */
  readInto?(mem: GuestMemory, iovs: IoVecs): number;
  /** Writes `bytes` (a private copy the descriptor may keep); returns how many were written. */
  write(bytes: Uint8Array): number;
  pwrite(bytes: Uint8Array, offset: bigint): number;
  /**
   * Optional fast path of `write` for descriptors that copy the bytes anyway (the memory FS):
   * writes the bytes named by `iovs` (already validated) straight from guest memory, with no
   * gathered copy. Same result and errors as `write(mem.gather(iovs))`.
   */
  writeFrom?(mem: GuestMemory, iovs: IoVecs): number;
  /**
   * Optional fast path of `filestat` for descriptors that hold the struct as witx bytes already
   * (the memory FS): writes the 64-byte filestat at guest `ptr` (EFAULT after the descriptor's
   * own checks, as `writeFilestat(mem, ptr, filestat())`), with no BigInt in between.
   */
  filestatInto?(mem: GuestMemory, ptr: number): void;
  /** New offset. `whence` is a valid WHENCE_*. */
  seek(delta: bigint, whence: number): bigint;
  tell(): bigint;
  /** Serialized dirents from `cookie`, at most `max` bytes (the last entry may be cut off). */
  readdir(cookie: bigint, max: number): Uint8Array;
  /** The guest-visible name if this fd is a preopened directory, else undefined. */
  prestatName(): Uint8Array | undefined;
  /** The path operations relative to this fd, or fail (EBADF when it is not a directory). */
  asDirectory(): Directory;
  /** poll_oneoff readiness: true when a read (write) would not block; fail if not pollable. */
  readReady(): boolean;
  writeReady(): boolean;
  /** Releases what the descriptor holds; the table has already forgotten the number. */
  close(): void;
}

/** Path operations relative to a directory fd (paths are decoded UTF-8, not yet resolved). */
export interface Directory {
  createDirectory(path: string): void;
  filestat(lookupflags: number, path: string): Filestat;
  /**
   * Optional: `filestat` with its answer for a missing entry (ENOENT, and ENOTDIR for a trailing
   * slash on a non-directory) returned as the errno instead of failing: programs that probe for
   * names (bundlers, resolvers) get most of their answers so, and a return costs less than an
   * exception unwinding through the walk. Other failures still fail.
   */
  filestatOrErrno?(lookupflags: number, path: string): Filestat | number;
  setTimes(lookupflags: number, path: string, atim: bigint, mtim: bigint, fstflags: number): void;
  link(srcLookupflags: number, srcPath: string, target: Directory, targetPath: string): void;
  open(
    lookupflags: number,
    path: string,
    oflags: number,
    rightsBase: bigint,
    rightsInheriting: bigint,
    fdflags: number,
  ): Descriptor;
  readlink(path: string): Uint8Array;
  removeDirectory(path: string): void;
  rename(srcPath: string, target: Directory, dstPath: string): void;
  symlink(oldPath: string, newPath: string): void;
  unlinkFile(path: string): void;
  /** Optional: the single-path operations on undecoded guest bytes (see `RawPathDirectory`). */
  readonly raw?: RawPathDirectory;
}

/**
 * The single-path operations of a `Directory` whose backend takes UTF-8 bytes (the memory FS),
 * with the path as guest bytes [ptr, ptr + len) that the caller has already checked as `string`
 * would (`GuestMemory.checkUtf8`: in memory, valid UTF-8): no decoding to a string and encoding
 * back on every call. Same results and errors as the string methods; `filestatInto` writes the
 * struct at guest `statPtr` as `writeFilestat` does.
 */
export interface RawPathDirectory {
  createDirectory(mem: GuestMemory, ptr: number, len: number): void;
  filestatInto(lookupflags: number, mem: GuestMemory, ptr: number, len: number, statPtr: number): void;
  setTimes(lookupflags: number, mem: GuestMemory, ptr: number, len: number, atim: bigint, mtim: bigint, fstflags: number): void;
  open(
    lookupflags: number,
    mem: GuestMemory,
    ptr: number,
    len: number,
    oflags: number,
    rightsBase: bigint,
    rightsInheriting: bigint,
    fdflags: number,
  ): Descriptor;
  readlink(mem: GuestMemory, ptr: number, len: number): Uint8Array;
  removeDirectory(mem: GuestMemory, ptr: number, len: number): void;
  unlinkFile(mem: GuestMemory, ptr: number, len: number): void;
}

/** The fd number space of one program (or one thread, for `LocalFdTable`). */
export interface FdTable {
  /** The descriptor open as `fd`; fails with EBADF if none. */
  get(fd: number): Descriptor;
  /** Opens `d` as the lowest free fd number; returns it. */
  insert(d: Descriptor): number;
  /** Closes `fd` (EBADF if not open). */
  close(fd: number): void;
  /** Moves `from` to `to`, closing whatever `to` was (EBADF if `from` is not open). */
  renumber(from: number, to: number): void;
}

/** wasmtime's answers for an fd that is neither a file nor a directory. */
export abstract class DescriptorBase implements Descriptor {
  abstract fdstat(): Fdstat;
  abstract filestat(): Filestat;
  setFdflags(_flags: number): void {
    fail(ERRNO_BADF);
  }
  setRights(_base: bigint, _inheriting: bigint): void {
    fail(ERRNO_BADF);
  }
  setSize(_size: bigint): void {
    fail(ERRNO_BADF);
  }
  setTimes(_atim: bigint, _mtim: bigint, _fstflags: number): void {
    fail(ERRNO_BADF);
  }
  advise(_offset: bigint, _len: bigint, _advice: number): void {
    fail(ERRNO_BADF);
  }
  allocate(_offset: bigint, _len: bigint): void {
    fail(ERRNO_BADF);
  }
  datasync(): void {
    fail(ERRNO_BADF);
  }
  sync(): void {
    fail(ERRNO_BADF);
  }
  read(_max: number): Uint8Array {
    return fail(ERRNO_BADF);
  }
  pread(_max: number, _offset: bigint): Uint8Array {
    return fail(ERRNO_BADF);
  }
  write(_bytes: Uint8Array): number {
    return fail(ERRNO_BADF);
  }
  pwrite(_bytes: Uint8Array, _offset: bigint): number {
    return fail(ERRNO_BADF);
  }
  seek(_delta: bigint, _whence: number): bigint {
    return fail(ERRNO_BADF);
  }
  tell(): bigint {
    return fail(ERRNO_BADF);
  }
  readdir(_cookie: bigint, _max: number): Uint8Array {
    return fail(ERRNO_BADF);
  }
  prestatName(): Uint8Array | undefined {
    return undefined;
  }
  asDirectory(): Directory {
    return fail(ERRNO_BADF);
  }
  readReady(): boolean {
    return fail(ERRNO_BADF);
  }
  writeReady(): boolean {
    return fail(ERRNO_BADF);
  }
  close(): void {}
}

/** An `FdTable` in a JS Map: per instance, so per thread (see the module note). */
export class LocalFdTable implements FdTable {
  private readonly open = new Map<number, Descriptor>();

  constructor(initial: readonly Descriptor[] = []) {
    initial.forEach((d, fd) => this.open.set(fd, d));
  }

  get(fd: number): Descriptor {
    return this.open.get(fd >>> 0) ?? fail(ERRNO_BADF);
  }

  insert(d: Descriptor): number {
    let fd = 0;
    while (this.open.has(fd)) fd++;
    this.open.set(fd, d);
    return fd;
  }

  close(fd: number): void {
    const d = this.get(fd);
    this.open.delete(fd >>> 0);
    d.close();
  }

  renumber(from: number, to: number): void {
    const d = this.get(from);
    if (from >>> 0 === to >>> 0) return;
    const replaced = this.open.get(to >>> 0);
    this.open.delete(from >>> 0);
    this.open.set(to >>> 0, d);
    replaced?.close();
  }
}
