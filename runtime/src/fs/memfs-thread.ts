/**
 * One thread's instance of the memory-FS module (crates/spindle-fs-module) and its scratch area.
 *
 * Every thread that touches the memory FS instantiates the module on the ONE shared memory and
 * calls it directly (never through another thread). An instance needs a shadow stack and a TLS
 * block of its own in that memory: `ModuleThread` takes a region `[TLS | scratch | stack]` for it
 * (from a pool of regions released by ended threads, else by growing the memory), points the
 * instance's exported `__stack_pointer` at the region's end and calls `__wasm_init_tls` on its
 * start, as wasi-libc's `wasi_thread_start` does. Only the first instance ever runs the memory
 * initializer (the linker's start function guards it with an atomic flag).
 *
 * The scratch area is where arguments and results cross between the program's memory and the
 * module's: a fixed header (`OUT`: results up to 64 bytes; `IOV`: one iovec) and `cap` bytes of
 * data. Views over it are made once: a shared memory never detaches its buffer, so they stay
 * valid when the memory grows. Arguments larger than `cap` go through a block from the module's
 * allocator (`withBlock`).
 *
 * Invariants: an instance is used only on the thread that created it; after `dispose()` nothing
 * may call it. The region pool (`MemFsShared.regions`) is a lock word, a count and region
 * addresses, in a SharedArrayBuffer: the lock is held for a few word operations (never across a
 * module call), so it spins.
 */
import { ERRNO_NAMETOOLONG, ERRNO_NOMEM } from '../wasi/constants.js';
import { check, fail } from '../wasi/errno.js';
import { currentBuffer } from '../wasi/guest-memory.js';
import { opfsAbsent, opfsImports, type OpfsInit } from './opfs-imports.js';

/** What every instance needs: structured-cloneable. */
export interface MemFsShared {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  /** The region pool: Int32 [lock, count, base0, base1, ...]. */
  readonly regions: SharedArrayBuffer;
  /** The OPFS channel when the program has OPFS mounts (browser; platform/browser/opfs-owner.ts). */
  readonly opfs?: OpfsInit | null;
}

const PAGE = 65536;
/** One instance's region: TLS, then the scratch area, then the stack (~128 KiB). */
export const REGION_BYTES = 3 * PAGE;
const SCRATCH_BYTES = PAGE;
/** Scratch header: results at OUT (64 bytes), one iovec at IOV, data from DATA. */
export const OUT = 0;
export const IOV = 64;
export const DATA = 128;
/** Released regions kept for reuse; past this they are leaked (a thread's 192 KiB). */
export const MAX_FREE_REGIONS = 1022;

/** The module's exports, as this file uses them. */
interface Exports {
  readonly __stack_pointer: WebAssembly.Global;
  readonly __tls_size: WebAssembly.Global;
  readonly __tls_align: WebAssembly.Global;
  __wasm_init_tls(p: number): void;
  spindle_fs_thread_init(canWait: number): void;
  spindle_fs_thread_exit(): void;
  spindle_fs_mount(path: number, len: number, readonly: number, out: number): number;
  /** Only in a module built with the `opfs` feature (tools/build-fs-module.sh builds it so). */
  spindle_fs_mount_opfs?(path: number, len: number, mount: number, tar: number, tarLen: number, out: number): number;
  /** The same: queues a write-back of every file still open for writing on an OPFS mount. */
  spindle_fs_opfs_flush?(): void;
  /** The same: the idle write-back scan (opfs-idle-worker.ts) and its period in ms. */
  spindle_fs_opfs_flush_idle?(): void;
  spindle_fs_opfs_idle_tick_ms?(): number;
  spindle_fs_tar_import(dirfd: number, path: number, len: number, tar: number, tarLen: number, out: number): number;
  spindle_fs_tar_export(dirfd: number, path: number, len: number, out: number): number;
  spindle_fs_alloc(size: number): number;
  spindle_fs_free(p: number): void;
}

/** The WASI calls of the module (wasi-libc's names, spindle-fs's fds, this memory's pointers). */
export interface Calls {
  fd_advise(fd: number, off: bigint, len: bigint, advice: number): number;
  fd_allocate(fd: number, off: bigint, len: bigint): number;
  fd_close(fd: number): number;
  fd_datasync(fd: number): number;
  fd_fdstat_get(fd: number, out: number): number;
  fd_fdstat_set_flags(fd: number, flags: number): number;
  fd_fdstat_set_rights(fd: number, base: bigint, inheriting: bigint): number;
  fd_filestat_get(fd: number, out: number): number;
  fd_filestat_set_size(fd: number, size: bigint): number;
  fd_filestat_set_times(fd: number, atim: bigint, mtim: bigint, flags: number): number;
  fd_pread(fd: number, iovs: number, n: number, off: bigint, out: number): number;
  fd_prestat_get(fd: number, out: number): number;
  fd_prestat_dir_name(fd: number, buf: number, len: number): number;
  fd_pwrite(fd: number, iovs: number, n: number, off: bigint, out: number): number;
  fd_read(fd: number, iovs: number, n: number, out: number): number;
  fd_readdir(fd: number, buf: number, len: number, cookie: bigint, out: number): number;
  fd_seek(fd: number, off: bigint, whence: number, out: number): number;
  fd_sync(fd: number): number;
  fd_tell(fd: number, out: number): number;
  fd_write(fd: number, iovs: number, n: number, out: number): number;
  path_create_directory(fd: number, path: number, len: number): number;
  path_filestat_get(fd: number, flags: number, path: number, len: number, out: number): number;
  path_filestat_set_times(fd: number, flags: number, path: number, len: number, atim: bigint, mtim: bigint, fst: number): number;
  path_link(ofd: number, flags: number, op: number, ol: number, nfd: number, np: number, nl: number): number;
  path_open(fd: number, dirflags: number, path: number, len: number, oflags: number, base: bigint, inheriting: bigint, fdflags: number, out: number): number;
  path_readlink(fd: number, path: number, len: number, buf: number, bufLen: number, out: number): number;
  path_remove_directory(fd: number, path: number, len: number): number;
  path_rename(fd: number, op: number, ol: number, nfd: number, np: number, nl: number): number;
  path_symlink(op: number, ol: number, fd: number, np: number, nl: number): number;
  path_unlink_file(fd: number, path: number, len: number): number;
}

/**
 * The module's WASI calls under their short names (a missing one is a broken build). Built as ONE
 * object literal on purpose: an object filled by computed-name stores (`calls[name] = f`) past a
 * dozen properties is a dictionary in V8, and every `t.c.fd_read` would then be a generic LoadIC
 * and an unspecialized call (measured: a few percent of every memory-FS operation).
 */
function bindCalls(exports: WebAssembly.Exports): Calls {
  const f = (name: keyof Calls): any => {
    const fn = exports[`__imported_wasi_snapshot_preview1_${name}`];
    if (typeof fn !== 'function') throw new Error(`spindle memory FS: the module lacks ${name}; rebuild it (bash tools/build-fs-module.sh)`);
    return fn;
  };
  return {
    fd_advise: f('fd_advise'),
    fd_allocate: f('fd_allocate'),
    fd_close: f('fd_close'),
    fd_datasync: f('fd_datasync'),
    fd_fdstat_get: f('fd_fdstat_get'),
    fd_fdstat_set_flags: f('fd_fdstat_set_flags'),
    fd_fdstat_set_rights: f('fd_fdstat_set_rights'),
    fd_filestat_get: f('fd_filestat_get'),
    fd_filestat_set_size: f('fd_filestat_set_size'),
    fd_filestat_set_times: f('fd_filestat_set_times'),
    fd_pread: f('fd_pread'),
    fd_prestat_get: f('fd_prestat_get'),
    fd_prestat_dir_name: f('fd_prestat_dir_name'),
    fd_pwrite: f('fd_pwrite'),
    fd_read: f('fd_read'),
    fd_readdir: f('fd_readdir'),
    fd_seek: f('fd_seek'),
    fd_sync: f('fd_sync'),
    fd_tell: f('fd_tell'),
    fd_write: f('fd_write'),
    path_create_directory: f('path_create_directory'),
    path_filestat_get: f('path_filestat_get'),
    path_filestat_set_times: f('path_filestat_set_times'),
    path_link: f('path_link'),
    path_open: f('path_open'),
    path_readlink: f('path_readlink'),
    path_remove_directory: f('path_remove_directory'),
    path_rename: f('path_rename'),
    path_symlink: f('path_symlink'),
    path_unlink_file: f('path_unlink_file'),
  };
}

/** The module's imports for one instance. */
function imports(shared: MemFsShared): WebAssembly.Imports {
  // `performance` read once: a global lookup per call costs (in Node a lazy accessor on the global).
  const perf = performance;
  const origin = perf.timeOrigin;
  return {
    env: { memory: shared.memory },
    spindle_fs: {
      // Wall clock in ns as an integral double, the runtime's REALTIME clock (wasi/clock.ts);
      // timeOrigin read once (its getter costs more than performance.now() itself). The module
      // asks for it on every call that sets a timestamp (fd_close of a written file, O_TRUNC).
      now: (): number => Math.round((origin + perf.now()) * 1e6),
      warn: (p: number, n: number): void => {
        const bytes = new Uint8Array(currentBuffer(shared.memory, (p >>> 0) + (n >>> 0)), p, n).slice();
        console.error(`spindle memory FS: ${new TextDecoder().decode(bytes)}`);
      },
    },
    // OPFS mounts (opfs-imports.ts): the hooks of an fd on one call them on this thread.
    spindle_opfs: shared.opfs ? opfsImports(shared.opfs, () => shared.memory) : opfsAbsent(),
  };
}

/** Whether this thread may block in Atomics.wait: everywhere but a browser window's main thread. */
function threadCanWait(): boolean {
  const g = globalThis as { process?: { versions?: { node?: string } }; WorkerGlobalScope?: unknown; document?: unknown };
  if (g.process?.versions?.node) return true;
  return g.WorkerGlobalScope !== undefined || g.document === undefined;
}

/** Takes a region for a new instance: a released one, else fresh pages. */
function takeRegion(shared: MemFsShared): number {
  const pool = new Int32Array(shared.regions);
  lock(pool);
  const n = pool[1]!;
  const reused = n > 0 ? pool[1 + n]! : 0;
  if (n > 0) pool[1] = n - 1;
  unlock(pool);
  if (n > 0) return reused >>> 0;
  try {
    return shared.memory.grow(REGION_BYTES / PAGE) * PAGE;
  } catch {
    return fail(ERRNO_NOMEM);
  }
}

function releaseRegion(shared: MemFsShared, base: number): void {
  const pool = new Int32Array(shared.regions);
  lock(pool);
  const n = pool[1]!;
  if (n < MAX_FREE_REGIONS) {
    pool[2 + n] = base | 0;
    pool[1] = n + 1;
  }
  unlock(pool);
}

function lock(pool: Int32Array): void {
  while (Atomics.compareExchange(pool, 0, 0, 1) !== 0) { /* a few word copies: spin */ }
}

function unlock(pool: Int32Array): void {
  Atomics.store(pool, 0, 0);
}

/** Instantiates the module on this thread, on its own region. */
export function instantiateSync(shared: MemFsShared): ModuleThread {
  return new ModuleThread(shared, new WebAssembly.Instance(shared.module, imports(shared)));
}

/** The same, without a synchronous compile step (a browser window's main thread). */
export async function instantiate(shared: MemFsShared): Promise<ModuleThread> {
  return new ModuleThread(shared, await WebAssembly.instantiate(shared.module, imports(shared)));
}

/** One thread's instance: its region, scratch views and the raw calls. */
export class ModuleThread {
  readonly x: Exports;
  readonly c: Calls;
  /** Scratch start (absolute address) and data capacity. */
  readonly scratch: number;
  readonly cap = SCRATCH_BYTES - DATA;
  /** Views over the scratch area: bytes, u32 and u64 words (from `scratch`). */
  readonly u8: Uint8Array;
  readonly u32: Uint32Array;
  readonly u64: BigUint64Array;
  private region: number;
  private readonly enc = new TextEncoder();
  /** `view`'s last result and its offset. */
  private lastView: Uint8Array = new Uint8Array(0);
  private lastOff = -1;

  constructor(readonly shared: MemFsShared, instance: WebAssembly.Instance) {
    this.x = instance.exports as unknown as Exports;
    const x = this.x;
    this.c = bindCalls(instance.exports);
    this.region = takeRegion(shared);
    const align = Math.max(16, x.__tls_align.value as number);
    const tlsBytes = Math.ceil((x.__tls_size.value as number) / align) * align;
    if (align > PAGE || tlsBytes + SCRATCH_BYTES + 16384 > REGION_BYTES) {
      throw new Error(`spindle memory FS: the module's TLS (${tlsBytes} bytes, align ${align}) does not fit its region`);
    }
    x.__stack_pointer.value = this.region + REGION_BYTES;
    x.__wasm_init_tls(this.region);
    this.scratch = this.region + tlsBytes;
    const buf = currentBuffer(shared.memory, this.scratch + SCRATCH_BYTES);
    this.u8 = new Uint8Array(buf, this.scratch, SCRATCH_BYTES);
    this.u32 = new Uint32Array(buf, this.scratch, DATA / 4);
    this.u64 = new BigUint64Array(buf, this.scratch, DATA / 8);
    x.spindle_fs_thread_init(threadCanWait() ? 1 : 0);
  }

  /** Absolute address of scratch offset `off`. */
  at(off: number): number {
    return this.scratch + off;
  }

  /**
   * A view of scratch bytes [off, off + len), valid until this thread's next memory-FS call. The
   * last view is returned again for the same range (reads into one buffer in a loop: no view
   * allocated per read).
   */
  view(off: number, len: number): Uint8Array {
    const last = this.lastView;
    if (off === this.lastOff && last.length === len) return last;
    const v = this.u8.subarray(off, off + len);
    this.lastView = v;
    this.lastOff = off;
    return v;
  }

  /**
   * Writes `s` as UTF-8 at scratch offset `off` (at most `limit` bytes); returns its length.
   * ENAMETOOLONG when it does not fit.
   */
  putString(s: string, off: number, limit = SCRATCH_BYTES - off): number {
    const n = s.length;
    const u8 = this.u8;
    if (n <= limit) {
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        u8[off + i] = c;
      }
      if (i === n) return n;
    }
    const r = this.enc.encodeInto(s, u8.subarray(off, off + limit));
    if (r.read < n) fail(ERRNO_NAMETOOLONG);
    return r.written;
  }

  /**
   * Runs `f` with a module block of `size` bytes and a fresh view of it; frees it after.
   * For arguments and results that do not fit the scratch area.
   */
  withBlock<R>(size: number, f: (ptr: number, view: Uint8Array) => R): R {
    const p = this.x.spindle_fs_alloc(Math.max(size, 1));
    if (p === 0) fail(ERRNO_NOMEM);
    try {
      return f(p, new Uint8Array(currentBuffer(this.shared.memory, (p >>> 0) + size), p >>> 0, size));
    } finally {
      this.x.spindle_fs_free(p);
    }
  }

  /** Mounts a memory directory at `guestPath` and returns its preopen's module fd. */
  mount(guestPath: string, readonly: boolean): number {
    const n = this.putString(guestPath, DATA);
    check(this.x.spindle_fs_mount(this.at(DATA), n, readonly ? 1 : 0, this.at(OUT)));
    return this.u32[OUT / 4]!;
  }

  /**
   * Mounts an OPFS directory at `guestPath` (a memory mount filled from `tar`, its contents,
   * mirrored to the I/O worker's mount `mount` from now on); returns its preopen's module fd.
   */
  mountOpfs(guestPath: string, mount: number, tar: Uint8Array): number {
    const f = this.x.spindle_fs_mount_opfs;
    if (!f) throw new Error('spindle memory FS: the module has no OPFS mounts; rebuild it (bash tools/build-fs-module.sh)');
    const n = this.putString(guestPath, DATA);
    return this.withBlock(tar.length, (p, view) => {
      view.set(tar);
      check(f(this.at(DATA), n, mount, p, tar.length, this.at(OUT)));
      return this.u32[OUT / 4]!;
    });
  }

  /**
   * The OPFS exit flush (before the program's exit is published, on the exiting thread): queues
   * a write-back of every file still open for writing on an OPFS mount; does not wait for the
   * I/O worker. Nothing without OPFS mounts.
   */
  flushOpfs(): void {
    if (this.shared.opfs) this.x.spindle_fs_opfs_flush?.();
  }

  /** The idle write-back scan (opfs-idle-worker.ts, every `opfsIdleTickMs()` ms). */
  flushOpfsIdle(): void {
    this.x.spindle_fs_opfs_flush_idle?.();
  }

  /** The period of `flushOpfsIdle`, in milliseconds. */
  opfsIdleTickMs(): number {
    return this.x.spindle_fs_opfs_idle_tick_ms?.() ?? 100;
  }

  /** Imports `tar` under `rel` (relative to module fd `dirfd`); the errno, 0 on success. */
  importTar(dirfd: number, rel: string, tar: Uint8Array): number {
    const n = this.putString(rel, DATA);
    return this.withBlock(tar.length, (p, view) => {
      view.set(tar);
      return this.x.spindle_fs_tar_import(dirfd, this.at(DATA), n, p, tar.length, this.at(OUT));
    });
  }

  /** The subtree at `rel` (relative to module fd `dirfd`) as a tar stream, or the errno. */
  exportTar(dirfd: number, rel: string): Uint8Array | number {
    const n = this.putString(rel, DATA);
    const e = this.x.spindle_fs_tar_export(dirfd, this.at(DATA), n, this.at(OUT));
    if (e !== 0) return e;
    const p = this.u32[OUT / 4]!;
    const len = this.u32[OUT / 4 + 1]!;
    try {
      return new Uint8Array(currentBuffer(this.shared.memory, p + len), p, len).slice();
    } finally {
      this.x.spindle_fs_free(p);
    }
  }

  /** Ends this instance: the allocator's thread-exit hook, then the region goes back to the pool. */
  dispose(): void {
    if (this.region === 0) return;
    this.x.spindle_fs_thread_exit();
    releaseRegion(this.shared, this.region);
    this.region = 0;
  }

  get disposed(): boolean {
    return this.region === 0;
  }
}
