/**
 * The runtime's memory filesystem: spindle-fs built as its own Wasm module with its own shared
 * memory (crates/spindle-fs-module), instantiated on every thread of a program and called
 * directly on the calling thread: never a proxy to another thread. Its state (inodes, open file
 * descriptions, offsets) is in the shared memory, so every thread sees the same files and the
 * same open fds. It serves threaded and plain single-threaded wasm32-wasip1 programs alike.
 *
 * Use: `MemFs.create({ mounts })` on the thread that sets the program up (it compiles the module,
 * creates the memory and the mounts); send `memfs.init` to every worker and call
 * `memFsThread(init)` there; `thread.preopen(path)` / `thread.descriptor(memFd)` give
 * `Descriptor`s for the WASI layer (wasi/fd-table.ts). A thread that ends calls
 * `thread.dispose()` (its stack, TLS and allocator heap go back for reuse).
 *
 * The module file: runtime/dist/spindle-fs.wasm, built by `bash tools/build-fs-module.sh` and
 * copied by `npm run build`; or pass its bytes as `options.module`.
 *
 * Files: memfs-thread.ts (one thread's instance, its region and scratch area), memfs-descriptor.ts
 * (the Descriptor/Directory classes), memfs-tar.ts (tar validation before import).
 */
import { SpindleError } from '../errors.js';
import { readImports } from '../wasm-imports.js';
import { guardThreads } from '../thread-guards.js';
import { compileKeepingAlive } from '../compile-policy.js';
import { ModuleFd, type MemFsDescriptor } from './memfs-descriptor.js';
import { tarProblem } from './memfs-tar.js';
import { instantiate, instantiateSync, MAX_FREE_REGIONS, ModuleThread, type MemFsShared } from './memfs-thread.js';
import { newSharedBuffer } from '../shared-buffer.js';

export type { MemFsDescriptor } from './memfs-descriptor.js';

/** What a thread needs to join the memory FS: structured-cloneable (postMessage it). */
export interface MemFsInit extends MemFsShared {
  /** Every mount: its guest path and its preopen's module fd. */
  readonly mounts: readonly { readonly path: string; readonly fd: number }[];
}

/**
 * spindle-fs keeps its root for mount points, so a mount at '/' (what @napi-rs/wasm-runtime's
 * browser loaders preopen) is a mount at this path that the guest sees named '/': its preopen
 * answers '/' to fd_prestat_dir_name, and every path the guest gives is relative to it anyway.
 */
const ROOT_MOUNT = '/.spindle-root';

/**
 * OPFS mounts (browser): memory mounts filled from an OPFS directory that the owner loaded
 * (platform/browser/opfs-owner.ts) and mirrored back to it through the I/O worker's channel.
 */
export interface OpfsMounts {
  readonly channel: SharedArrayBuffer;
  readonly mounts: readonly { readonly path: string; readonly mount: number; readonly tar: Uint8Array }[];
}

/** The memory-FS module compiled, with its memory's limits (`MemFs.compile`). */
export interface MemFsModule {
  readonly module: WebAssembly.Module;
  readonly initial: number;
  readonly maximum: number;
}

/** A fresh memory and free-region list for one memory FS of `compiled`. */
function sharedOf(compiled: MemFsModule, opfs: OpfsMounts | undefined): MemFsShared {
  const memory = new WebAssembly.Memory({ initial: compiled.initial, maximum: compiled.maximum, shared: true } as WebAssembly.MemoryDescriptor);
  const regions = newSharedBuffer(4 * (2 + MAX_FREE_REGIONS));
  return { module: compiled.module, memory, regions, opfs: opfs ? { channel: opfs.channel } : null };
}

/** One thread's side of the memory FS. */
export interface MemFsThread {
  /** The mount root at `guestPath` as a preopen Descriptor (prestatName() = guest path). */
  preopen(guestPath: string): MemFsDescriptor;
  /** The descriptor for module fd `memFd` (possibly opened by another thread). */
  descriptor(memFd: number): MemFsDescriptor;
  /** Ends this thread's instance; call when the thread ends. Nothing may use it after. */
  dispose(): void;
  /** The OPFS exit flush on this thread (memfs-thread.ts `flushOpfs`); nothing without OPFS mounts. */
  flushOpfs(): void;
  /** The OPFS idle write-back scan and its period in ms (platform/browser/opfs-idle-worker.ts). */
  flushOpfsIdle(): void;
  opfsIdleTickMs(): number;
}

declare const __SPINDLE_FS_WASM__: string | undefined;
/** Where the module is: next to the bundles (dist/cli.js) or one level up from dist/fs/memfs.js. */
const wasmUrl = new URL(typeof __SPINDLE_FS_WASM__ === 'string' ? __SPINDLE_FS_WASM__ : '../spindle-fs.wasm', import.meta.url);

const BUILD_HINT = 'build it with `bash tools/build-fs-module.sh` (then `npm run build` in runtime/)';

export class MemFs {
  private constructor(readonly init: MemFsInit, private readonly first: ThreadView) {}

  /**
   * Compiles the module, creates its shared memory and a memory mount at each guest path
   * (absolute, e.g. "/tmp"). `module`: the module's bytes; without it they are read from their
   * usual place (dist/spindle-fs.wasm) with `readFile` (the platform's).
   */
  static async create(options: {
    mounts: readonly string[];
    module?: Uint8Array;
    readFile?: (url: URL) => Promise<Uint8Array>;
    opfs?: OpfsMounts;
  }): Promise<MemFs> {
    const compiled = await MemFs.compile(options.module ?? (await loadModuleBytes(options.readFile)));
    const shared = sharedOf(compiled, options.opfs);
    return MemFs.mount(shared, await instantiate(shared), options.mounts, options.opfs);
  }

  /** Compiles the module (its bytes, or read from dist/spindle-fs.wasm with `readFile`), for `createSync`. */
  static async compile(source: Uint8Array | ((url: URL) => Promise<Uint8Array>)): Promise<MemFsModule> {
    const bytes = typeof source === 'function' ? await loadModuleBytes(source) : source;
    const limits = readImports(bytes).memory;
    if (!limits?.shared || limits.maximum === undefined) {
      throw new SpindleError('BAD_MODULE', `${wasmUrl.pathname} is not spindle's memory FS module (no shared memory import); ${BUILD_HINT}`);
    }
    try {
      // Every thread calls the module and any of them grows its memory: guard its bulk memory
      // operations against V8's lazy size refresh, and its waits (thread-guards.ts).
      return { module: await compileKeepingAlive(guardThreads(bytes).bytes), initial: limits.initial, maximum: limits.maximum };
    } catch (e) {
      throw new SpindleError('BAD_MODULE', `the memory FS module does not compile (${(e as Error).message}); ${BUILD_HINT}`);
    }
  }

  /**
   * The same as `create`, synchronously, from a compiled module (`compile`): for an embedder
   * whose API is synchronous (napi/: `memfs()` of @napi-rs/wasm-runtime). No OPFS mounts.
   */
  static createSync(options: { mounts: readonly string[]; compiled: MemFsModule }): MemFs {
    const shared = sharedOf(options.compiled, undefined);
    return MemFs.mount(shared, instantiateSync(shared), options.mounts, undefined);
  }

  private static mount(shared: MemFsShared, t: ModuleThread, paths: readonly string[], opfs: OpfsMounts | undefined): MemFs {
    const mounts = paths.map((path) => {
      const guest = normalize(path);
      if (guest === undefined) throw new SpindleError('BAD_OPTION', `memory mount '${path}': give an absolute guest path without '.' or '..' (e.g. /tmp)`);
      try {
        return { path: guest, fd: t.mount(guest === '/' ? ROOT_MOUNT : guest, false) };
      } catch {
        throw new SpindleError('BAD_OPTION', `memory mount '${path}': cannot mount there (mounted twice, or inside another mount?)`);
      }
    });
    for (const o of opfs?.mounts ?? []) {
      const guest = normalize(o.path);
      if (guest === undefined) throw new SpindleError('BAD_OPTION', `OPFS mount '${o.path}': give an absolute guest path without '.' or '..' (e.g. /data)`);
      try {
        mounts.push({ path: guest, fd: t.mountOpfs(guest, o.mount, o.tar) });
      } catch {
        throw new SpindleError('BAD_OPTION', `OPFS mount '${o.path}': cannot mount there (mounted twice, or inside another mount?)`);
      }
    }
    const init: MemFsInit = { ...shared, mounts };
    const view = new ThreadView(init, t);
    views.set(shared.memory, view);
    return new MemFs(init, view);
  }

  /** This thread's instance (the creating thread's). */
  thread(): MemFsThread {
    return this.first;
  }

  /**
   * Imports a tar stream (ustar/pax) into guest directory `guestDir` (on a memory mount; created
   * if missing). A corrupt tar throws a SpindleError saying what is wrong and where, and nothing
   * changes.
   */
  importTar(guestDir: string, tar: Uint8Array): void {
    const problem = tarProblem(tar);
    if (problem !== undefined) throw new SpindleError('BAD_OPTION', `cannot import the tar into ${guestDir}: ${problem}`);
    const { fd, rel } = this.placeOf(guestDir);
    const e = this.first.t.importTar(fd, rel, tar);
    if (e !== 0) throw new SpindleError('BAD_OPTION', `importing the tar into ${guestDir} failed: ${errnoText(e)} (entries before the failing one were imported)`);
  }

  /** The subtree at `guestDir` (on a memory mount) as a tar stream. */
  exportTar(guestDir: string): Uint8Array {
    const { fd, rel } = this.placeOf(guestDir);
    const r = this.first.t.exportTar(fd, rel);
    if (typeof r === 'number') throw new SpindleError('BAD_OPTION', `cannot save ${guestDir}: ${errnoText(r)}`);
    return r;
  }

  /** The mount holding `guestDir` and the path below its root. */
  private placeOf(guestDir: string): { fd: number; rel: string } {
    const p = normalize(guestDir);
    let best: { path: string; fd: number } | undefined;
    for (const m of this.init.mounts) {
      const inside = p !== undefined && (p === m.path || m.path === '/' || p.startsWith(m.path + '/'));
      if (inside && (!best || m.path.length > best.path.length)) best = m;
    }
    if (!best || p === undefined) {
      const list = this.init.mounts.map((m) => m.path).join(', ') || 'none';
      throw new SpindleError('BAD_OPTION', `${guestDir} is not on a memory mount (memory mounts: ${list})`);
    }
    const rel = p.slice(best.path === '/' ? 1 : best.path.length).replace(/^\//, '');
    return { fd: best.fd, rel: rel === '' ? '.' : rel };
  }
}

/** In a worker (or any thread): this thread's instance, created synchronously on first use. */
export function memFsThread(init: MemFsInit): MemFsThread {
  let v = views.get(init.memory);
  if (!v || v.t.disposed) {
    v = new ThreadView(init, instantiateSync(init));
    views.set(init.memory, v);
  }
  return v;
}

/** This realm's (thread's) instance per memory FS, so a thread never instantiates one twice. */
const views = new WeakMap<WebAssembly.Memory, ThreadView>();

class ThreadView implements MemFsThread {
  constructor(private readonly init: MemFsInit, readonly t: ModuleThread) {}

  preopen(guestPath: string): MemFsDescriptor {
    const m = this.init.mounts.find((x) => x.path === normalize(guestPath));
    if (!m) throw new Error(`spindle memory FS: no memory mount at ${guestPath}`);
    return this.descriptor(m.fd);
  }

  descriptor(memFd: number): MemFsDescriptor {
    const root = this.init.mounts.find((m) => m.path === '/');
    return new ModuleFd(this.t, memFd, root?.fd === memFd ? '/' : undefined);
  }

  flushOpfs(): void {
    this.t.flushOpfs();
  }

  flushOpfsIdle(): void {
    this.t.flushOpfsIdle();
  }

  opfsIdleTickMs(): number {
    return this.t.opfsIdleTickMs();
  }

  dispose(): void {
    if (views.get(this.init.memory) === this) views.delete(this.init.memory);
    this.t.dispose();
  }
}

/** An absolute guest path without '.', '..' or repeated '/', or undefined if it is not one. */
function normalize(path: string): string | undefined {
  if (!path.startsWith('/')) return undefined;
  const parts = path.split('/').filter((c) => c !== '');
  if (parts.some((c) => c === '.' || c === '..')) return undefined;
  return '/' + parts.join('/');
}

const ERRNO_TEXT: Record<number, string> = {
  20: 'a file exists where a directory is needed (EEXIST)',
  28: 'invalid argument (EINVAL)',
  31: 'a directory is in the way (EISDIR)',
  44: 'no such file or directory (ENOENT)',
  48: 'out of memory (ENOMEM)',
  51: 'the memory filesystem is full (ENOSPC)',
  54: 'not a directory (ENOTDIR)',
  69: 'the mount is read-only (EROFS)',
  76: 'a path leads outside the directory (ENOTCAPABLE)',
};

function errnoText(e: number): string {
  return ERRNO_TEXT[e] ?? `WASI errno ${e}`;
}

/** The module's bytes from their usual place, or a SpindleError that says how to build them. */
async function loadModuleBytes(readFile: ((url: URL) => Promise<Uint8Array>) | undefined): Promise<Uint8Array> {
  if (!readFile) throw new Error('MemFs.create needs the module\'s bytes or a readFile function');
  try {
    return await readFile(wasmUrl);
  } catch (e) {
    throw new SpindleError('BAD_MODULE', `the memory FS module is missing (${wasmUrl.href}: ${(e as Error).message}); ${BUILD_HINT}`);
  }
}
