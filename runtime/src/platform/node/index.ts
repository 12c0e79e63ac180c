/**
 * The Node.js platform: worker_threads workers (startable from any thread, including a worker
 * that then blocks: Node starts nested workers without the parent's event loop), synchronous
 * fd I/O with node:fs, and host directories for the runtime filesystem (`hostFs`). It changes
 * V8's flags only through `setV8Flags`, which the runtime calls for one flag on one Node line
 * (jspi.ts `workerJspiFlag`: Node 22's JSPI for host workers); compile-policy.ts says why the
 * tiering flags are never changed at run time.
 */
import type * as WorkerThreads from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { existsSync, fstatSync, readSync, writeSync } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Platform, WorkerHandle } from '../types.js';
import type { WorkerInit } from '../../protocol.js';
import { errnoOfNodeError, sleepMs } from './errno.js';
import { codeCache, diskEntry, type LoaderData } from './worker-code.js';
import { nodeHostFs } from './host-fs.js';

// The worker script: the one-file CommonJS bundle when there is one (scripts/bundle.mjs; inside
// a bundle its path is compiled in), else the plain ES modules (a build with tsc only). A worker
// boots ~8 ms of CPU sooner from one CommonJS file than from ES modules (no ES module loader).
declare const __SPINDLE_NODE_WORKER__: string | undefined;
const workerUrl = typeof __SPINDLE_NODE_WORKER__ === 'string'
  ? new URL(__SPINDLE_NODE_WORKER__, import.meta.url)
  : [new URL('../../node-worker.cjs', import.meta.url), new URL('../../node-worker.js', import.meta.url)].find((u) => existsSync(u))!;

/**
 * The loader (scripts/bundle.mjs writes it from worker-code.ts's LOADER) that starts the worker
 * bundle `script` with the shared code cache: a CommonJS bundle, an iife (the runtime's
 * dist/node-worker.cjs, the napi host's dist/napi-worker.cjs), beside dist/node-worker-loader.cjs;
 * undefined for any other script (an ES module, an embedder's), which Node starts itself.
 */
function loaderFor(script: URL): URL | undefined {
  if (script.protocol !== 'file:' || !script.pathname.endsWith('.cjs')) return undefined;
  if (!loaders.has(script.href)) {
    const loader = new URL('./node-worker-loader.cjs', script);
    loaders.set(script.href, existsSync(loader) ? loader : undefined);
  }
  return loaders.get(script.href);
}
const loaders = new Map<string, URL | undefined>();

// Loaded on first use: only the owner asks whether an fd is a terminal, and node:tty costs a
// worker 3-5 ms of CPU to load (node:v8, 0.4-1.1 ms, only a worker that starts workers needs);
// node:worker_threads (with the streams it loads, ~4 ms of CPU) only when a program starts a
// worker: a single-threaded program on the calling thread never does; node:fs/promises (its
// streams: ~2 ms) only for a file the CLI did not read itself.
const lazyRequire = createRequire(import.meta.url);

/**
 * V8 gives an isolate whose old generation may grow to 2 GiB or more "short builtin calls": a
 * private mapping of the 2 MB of builtins inside its own code range. Those pages are the Node
 * binary's, shared in memory by every isolate, but counted again in the resident set of every
 * worker: 1.7 MiB per worker on Node 26, 0.7 MiB on Node 20 (bench/runtime/experiments/
 * thread-cost.mjs). A worker inherits the main thread's limit (4 GiB on a 24 GiB machine), so
 * pool workers get an old generation of at most WORKER_HEAP_CAP_MIB: plenty for a thread whose
 * JS heap holds a few WASI objects (the wasm memory is not in it), and never more than the main
 * thread's own limit, which a smaller one keeps as it is (a worker inherits that too).
 *
 * Except for a worker whose shared memory is already near half the cap when it starts. Node 26's
 * V8 counts a SharedArrayBuffer an isolate receives as its external memory, and one above half
 * the old generation's limit makes it run a full, memory-reducing collection ("Mark-Compact
 * (reduce) ... external memory pressure", `node --trace-gc`) as the worker boots, with more full
 * collections after it: 5-35 ms of CPU per worker for a napi-rs addon's 1 GiB memory (V8
 * 11.3-13.6, Node 20-24, do not count it there: `countsReceivedMemory`). Only the receipt counts:
 * the same memory growing past that size later, on any thread, triggered nothing (checked on Node
 * 26), so a worker started while the memory is small keeps the cap. One started while it is within MEMORY_MARGIN of half the cap keeps the main
 * thread's limit instead, as any Node worker does; its memory already costs far more than the
 * builtins' copy. A spare (its program not known yet: napi/node.ts starts one before the addon is
 * compiled) is such a worker: napi-rs loaders make a 1 GiB memory.
 */
export const WORKER_HEAP_CAP_MIB = 2047;
const MIB = 2 ** 20;
/** Growth a memory may still make between a worker's start and its receipt of the memory. */
const MEMORY_MARGIN = 64 * MIB;

/**
 * The old generation limit (MiB) to give a pool worker, or undefined to leave it the main
 * thread's: `mainLimitMib` is the main thread's heap limit, `memoryBytes` the size of the
 * worker's shared memory as it starts (0: none; Infinity: not known).
 */
export function workerHeapLimitMib(mainLimitMib: number, memoryBytes: number): number | undefined {
  if (mainLimitMib <= WORKER_HEAP_CAP_MIB) return undefined;
  return memoryBytes + MEMORY_MARGIN <= (WORKER_HEAP_CAP_MIB / 2) * MIB ? WORKER_HEAP_CAP_MIB : undefined;
}

/**
 * Whether V8 `version` counts a SharedArrayBuffer an isolate receives as its external memory:
 * 14 (Node 26) does; 11.3, 12.4 and 13.6 (Node 20, 22, 24) never ran the collection at any size
 * (bench/results/napi-2026-11-28-heap/rule.txt), so their workers keep the cap whatever the memory.
 */
export function countsReceivedMemory(version: string): boolean {
  return Number(version.split('.')[0]) >= 14;
}
const COUNTS_RECEIVED_MEMORY = countsReceivedMemory(process.versions.v8);

let mainLimitMib: number | undefined;
function resourceLimits(init: WorkerInit | undefined): { maxOldGenerationSizeMb?: number } {
  if (mainLimitMib === undefined) {
    const { getHeapStatistics } = lazyRequire('node:v8') as typeof import('node:v8');
    mainLimitMib = getHeapStatistics().heap_size_limit / MIB;
  }
  const limit = workerHeapLimitMib(mainLimitMib, receivedMemoryBytes(init));
  return limit === undefined ? {} : { maxOldGenerationSizeMb: limit };
}

/**
 * workerHeapLimitMib's `memoryBytes` for a worker started with `init`: 0 where V8 does not count
 * a received memory or there is no shared memory, Infinity for a spare (no WorkerInit yet).
 */
function receivedMemoryBytes(init: WorkerInit | undefined): number {
  if (!COUNTS_RECEIVED_MEMORY) return 0;
  if (!init) return Infinity;
  return init.memory ? init.memory.buffer.byteLength : 0;
}

/**
 * A pool worker never reads process.env (WASI's environment comes in its WorkerInit), so it
 * shares the owner's instead of getting a copy.
 *
 * A pool worker never ends while its program runs (pool-worker.ts serves until the exit is
 * recorded), so any end of a worker is reported: `onFailure` records exit 1 with the message
 * unless the program already has its status (then it changes nothing). Without the 'exit' report,
 * a worker that died without an 'error' event (process.exit in it, killed) left the program
 * waiting, and the CLI's event loop empty: Node exited 0 with the program's output missing.
 */
function startWorker(init: WorkerInit, onFailure: (message: string) => void): WorkerHandle {
  const w = newPoolWorker(init.workerScript ? new URL(init.workerScript) : workerUrl, init);
  if (init.detached) w.unref();
  return handleOf(w, init, onFailure);
}

/**
 * A new pool worker running `script` (through the loader when it has one), with `init` as its
 * WorkerInit, or none yet (a spare: startSpareWorker).
 */
function newPoolWorker(script: URL, init: WorkerInit | undefined): WorkerThreads.Worker {
  // trackUnmanagedFds: false. By default Node closes, when a worker ends, every fd that worker
  // opened with fs.openSync and did not close itself. The program's OS fds belong to the shared fd
  // table (fs/shared-fd-table.ts), not to the worker that opened them: one opened on worker A and
  // closed on worker B was closed AGAIN by A's exit, by then another thread's file or libuv's own
  // epoll/eventfd (libuv aborts: the silent SIGABRT of issue 14), and a file still in use by
  // other threads was closed under them.
  const threads = lazyRequire('node:worker_threads') as typeof WorkerThreads;
  const options = { env: threads.SHARE_ENV, stdout: false, stderr: false, trackUnmanagedFds: false, resourceLimits: resourceLimits(init) } as const;
  const loader = loaderFor(script);
  if (!loader) return new threads.Worker(script, { ...options, workerData: init });
  // A worker bundle through the loader, with the compiled code of the process's first idle
  // worker of that bundle, or of an earlier run (worker-code.ts). A file, not eval'd code: Node
  // runs its --import and --require preloads only in workers started from a file.
  const file = fileURLToPath(script);
  const entry = diskEntry(file);
  // A spare's loader hands its bundle no WorkerInit (napi/node-worker.ts then waits for it).
  const workerData = { file, init, code: codeCache(file, entry), entry } as LoaderData;
  return new threads.Worker(loader, { ...options, workerData });
}

function handleOf(w: WorkerThreads.Worker, init: WorkerInit, onFailure: (message: string) => void): WorkerHandle {
  w.on('error', (e) => onFailure(`worker for slot ${init.slot} failed: ${e instanceof Error ? e.message : String(e)}`));
  w.on('exit', (code) => onFailure(`worker for slot ${init.slot} stopped (exit code ${code}) while the program was running; `
    + 'its thread cannot finish (was the worker killed, or out of memory?)'));
  return {
    terminate: async () => { await w.terminate(); },
    onMessage: (listener) => {
      w.on('message', listener);
      // A 'message' listener refs the worker's port (Node's setupPortReferencing): unref it again.
      if (init.detached) w.unref();
    },
  };
}

/** A pool worker started before its program (startSpareWorker). */
export interface SpareWorker {
  /**
   * Makes the spare the worker of `init` (as startWorker would start one): posts it its
   * WorkerInit. Undefined when the spare failed to start (start another worker instead).
   */
  adopt(init: WorkerInit, onFailure: (message: string) => void): WorkerHandle | undefined;
  /** Ends a spare that no program took (a no-op once adopted). */
  release(): void;
}

/**
 * Starts a pool worker of `script` (a worker script that takes its WorkerInit from a message when
 * started without one: napi/node-worker.ts) before its program exists, so that it boots (Node's
 * bootstrap, its bundle) while the owner still reads and compiles the module. It never keeps the
 * process alive; an 'error' or 'exit' before `adopt` only marks it failed (nothing to report: no
 * program had it).
 */
export function startSpareWorker(script: string): SpareWorker {
  const w = newPoolWorker(new URL(script), undefined);
  w.unref();
  let state: 'waiting' | 'failed' | 'adopted' | 'released' = 'waiting';
  const failed = (): void => { if (state === 'waiting') state = 'failed'; };
  w.on('error', failed);
  w.on('exit', failed);
  return {
    adopt(init, onFailure) {
      if (state !== 'waiting') return undefined;
      state = 'adopted';
      w.off('error', failed);
      w.off('exit', failed);
      w.postMessage(init);
      // A detached program's workers are unref'd (the spare already is); otherwise it keeps the
      // process alive as startWorker's do.
      if (!init.detached) w.ref();
      return handleOf(w, init, onFailure);
    },
    release() {
      if (state === 'adopted' || state === 'released') return;
      state = 'released';
      void w.terminate();
    },
  };
}

function writeFd(fd: number, bytes: Uint8Array): number {
  let off = 0;
  while (off < bytes.length) {
    try {
      off += writeSync(fd, bytes, off, bytes.length - off);
    } catch (e) {
      // A non-blocking pipe or tty that is full: wait for the reader instead of dropping bytes.
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') { sleepMs(1); continue; }
      return errnoOfNodeError(e);
    }
  }
  return 0;
}

function readFd(fd: number, max: number): Uint8Array | number {
  const buf = new Uint8Array(max);
  for (;;) {
    try {
      const n = readSync(fd, buf, 0, max, null);
      return buf.subarray(0, n);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') { sleepMs(5); continue; }
      if (code === 'EOF') return buf.subarray(0, 0);
      return errnoOfNodeError(e);
    }
  }
}

function readStdin(onChunk: (bytes: Uint8Array) => number, onEnd: () => void): () => void {
  const stdin = process.stdin;
  let pending: Uint8Array | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const offer = (): void => {
    timer = undefined;
    if (!pending) return;
    const taken = onChunk(pending);
    pending = taken < pending.length ? pending.subarray(taken) : null;
    if (pending) { timer = setTimeout(offer, 2); return; } // the pipe is full: readers drain it
    stdin.resume();
  };
  stdin.on('data', (chunk: Buffer) => { pending = new Uint8Array(chunk); stdin.pause(); offer(); });
  stdin.on('end', () => { const finish = () => (pending ? setTimeout(finish, 2) : onEnd()); finish(); });
  stdin.on('error', () => onEnd());
  return () => { if (timer) clearTimeout(timer); stdin.pause(); stdin.removeAllListeners(); stdin.unref?.(); };
}

/**
 * Whether `fd` is a terminal. A terminal is a character device: anything else (a pipe, a file, a
 * socket, a closed fd) is answered from one fstat, without loading node:tty (~2 ms of CPU, as it
 * brings node:net and the streams).
 */
function isatty(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return (lazyRequire('node:tty') as typeof import('node:tty')).isatty(fd);
}

export const nodePlatform: Platform = {
  hostFs: nodeHostFs,
  cpuCount: () => availableParallelism(),
  startWorker,
  setV8Flags: (flags) => { (lazyRequire('node:v8') as typeof import('node:v8')).setFlagsFromString(flags); },
  readFile: async (path) => new Uint8Array(await (lazyRequire('node:fs/promises') as typeof FsPromises).readFile(path)),
  isatty,
  writeFd,
  readFd,
  readStdin,
};
