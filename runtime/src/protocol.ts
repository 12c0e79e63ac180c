/**
 * The wire format between the thread that runs a program (its owner) and the program's pool
 * workers: what a worker is given when it starts (`WorkerInit`) and what a browser pool worker
 * posts to its owner (`GrowRequest`). A leaf of the runtime: it holds only types, so the core,
 * the platforms and the worker script can all depend on it without depending on each other.
 */
import type { StreamRoute } from './output.js';
import type { FsInit } from './fs/runtime-fs.js';
import type { OpfsInit } from './fs/opfs-imports.js';

/** Everything a worker needs to run threads of a program. Structured-cloneable. */
export interface WorkerInit {
  module: WebAssembly.Module;
  /** The shared memory, or null when the module defines its own (a single-threaded program). */
  memory: WebAssembly.Memory | null;
  /**
   * Limits of a NON-shared imported memory (a single-threaded program): such a memory cannot be
   * posted to a worker, so the one thread that uses it creates it.
   */
  privateMemory: { initial: number; maximum?: number } | null;
  memoryImport: { module: string; name: string } | null;
  hasThreadStart: boolean;
  control: SharedArrayBuffer;
  rings: SharedArrayBuffer;
  stdout: StreamRoute;
  stderr: StreamRoute;
  /** A StdinPipe's buffer; 'fd' (calling-thread mode only): read the host's fd 0 directly. */
  stdin: 'fd' | SharedArrayBuffer;
  /**
   * Which of fds 0-2 are the host's terminal (they then report CHARACTER_DEVICE, like wasmtime).
   * Filled in by the owner for each worker it starts; the owner's own thread asks when needed.
   */
  stdioTty: boolean[];
  args: string[];
  env: string[];
  /** The runtime filesystem (shared fd table, mounts), or null: stdio only, per thread. */
  fs: FsInit | null;
  /** OPFS mounts of the in-program FS (browser; platform/browser/opfs-owner.ts adds it when the module imports spindle_opfs). */
  opfs?: OpfsInit;
  /** This worker's slot in the control block (-1: the host worker, which has none). */
  slot: number;
  /**
   * Threads beyond the pool run on a host worker (docs/threads-beyond-the-pool.md; set by the
   * owner only where JSPI exists and the option allows it): a spawn that finds no idle worker
   * once `after` slots are used queues its thread in `queue` (host-queue.ts), for `hosts` host
   * workers, while fewer than `max` threads (maxThreads) are alive: hosted ones and those of the
   * slots but the main thread's (`mainSlots`: 1, or 0 in calling-thread mode). `bytes`: the thread-guarded module's
   * bytes, which each host worker compiles preemptible (preempt.ts).
   */
  hosting?: { queue: SharedArrayBuffer; after: number; max: number; mainSlots: number; hosts: number; bytes: SharedArrayBuffer };
  /** This worker is the program's host worker (host-worker.ts), not a pool worker. */
  hostWorker?: boolean;
  /**
   * Node: the script of this program's workers (a file: URL), when an embedder has its own
   * (napi/worker.ts); default the runtime's pool worker. (Browsers: the owner's platform decides,
   * platform/browser `browserPlatformWith`.)
   */
  workerScript?: string;
  /** Node: the program's workers do not keep the process alive (a library's threads, napi/). */
  detached?: boolean;
  /** The embedder's own data for its worker script's instance hooks (napi/). Structured-cloneable. */
  embed?: unknown;
}

/**
 * What a browser pool worker posts to its owner to grow the pool: the command is already in the
 * control block's slot `grow`; the owner only creates the worker for it (platform/browser).
 */
export interface GrowRequest { grow: number }
