/**
 * The browser platform: module Web Workers, all created by the thread that runs the program,
 * and no host file descriptors.
 *
 * Workers: every worker of a program is a dedicated module worker created by the thread that
 * runs the program (the owner: the page's main thread, or a worker of the user's), never by
 * another pool worker. When a thread on a pool worker must grow the pool, it has already written
 * the command into a fresh slot of the control block (as in Node); it then posts `{ grow: slot }`
 * to its parent, which is always the owner, and returns the thread id at once. The owner, which
 * never blocks (it only awaits), creates the worker with the program's WorkerInit. Why not
 * start the worker right there: a spawning thread usually blocks next (Atomics.wait in
 * pthread_join), and Chromium's start-up of a nested dedicated worker needs its parent's event
 * loop, so it could hang; a message to the parent needs nothing from the sender once posted.
 * The parent port is per worker, so no channel name is needed to tell programs apart.
 *
 * Output and input: stdout/stderr always take the `ring` route (callbacks, on the owner) and
 * stdin is a pipe fed by the owner, so the fd calls here only answer errnos.
 *
 * Compiler tiers: Chrome compiles wasm with Liftoff first and tiers hot functions up to TurboFan
 * in the background (dynamic tiering); a page cannot pass V8 flags, so the optimizing-tier
 * switch is a no-op. (A long loop entered once may stay in baseline code: no OSR for wasm.)
 *
 * Thread rules: `browserPlatform` is used on the owner only and `poolWorkerPlatform` on pool
 * workers only; the per-program record below lives on the owner.
 */
import type { Platform, WorkerHandle } from '../types.js';
import type { GrowRequest, WorkerInit } from '../../protocol.js';
import { endOpfs, opfsDriver, withOpfs } from './opfs-owner.js';

const ERRNO_BADF = 8;
const ERRNO_NOTSUP = 58;

/** A worker's global scope, as far as this file uses it (the DOM lib has no worker types). */
interface WorkerScope {
  postMessage(message: unknown): void;
}

/**
 * The workers of one program, on its owner. Keyed by the program's control block, which
 * every WorkerInit of the program carries. Terminating any of the program's workers (the runtime
 * terminates them all at exit) ends all of them, including those grown on request.
 */
interface ProgramWorkers {
  workers: Worker[];
  onFailure: (message: string) => void;
  ended: boolean;
  /** Creates one pool worker (the runtime's script, or an embedder's: `browserPlatformWith`). */
  newWorker: NewWorker;
}

/**
 * Creates a module worker running a pool worker script, named `name`. The `new Worker(new
 * URL(..., import.meta.url))` expression must be written out where the script lives, so that
 * bundlers (Vite, webpack 5) recognise the worker and emit it.
 */
export type NewWorker = (name: string) => Worker;

const runtimeWorker: NewWorker = (name) => new Worker(new URL('../../worker.js', import.meta.url), { type: 'module', name });
const programs = new WeakMap<SharedArrayBuffer, ProgramWorkers>();

/** The owner's side (the thread that runs the program, normally the page): creates the worker. */
function startWorker(newWorker: NewWorker, init: WorkerInit, onFailure: (message: string) => void): WorkerHandle {
  init = withOpfs(init);
  let record = programs.get(init.control);
  if (!record) {
    record = { workers: [], onFailure, ended: false, newWorker };
    programs.set(init.control, record);
  }
  create(init, record);
  const owner = record;
  return { terminate: async () => { endProgram(owner); endOpfs(init.control); } };
}

function create(init: WorkerInit, record: ProgramWorkers): void {
  if (record.ended) return;
  let worker: Worker;
  try {
    worker = record.newWorker(`spindle slot ${init.slot}`);
  } catch (e) {
    record.onFailure(`cannot start a worker for slot ${init.slot}: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  record.workers.push(worker);
  worker.onerror = (e) => {
    e.preventDefault();
    record.onFailure(`worker for slot ${init.slot} failed: ${e.message || 'its script did not load (is the runtime\'s worker.js served beside browser.js?)'}`);
  };
  worker.onmessageerror = () => record.onFailure(`worker for slot ${init.slot} could not receive the program (is the page cross-origin isolated?)`);
  worker.onmessage = (e: MessageEvent<GrowRequest>) => {
    const slot = e.data?.grow;
    if (typeof slot === 'number') create({ ...init, slot }, record);
  };
  worker.postMessage(init);
}

function endProgram(record: ProgramWorkers): void {
  if (record.ended) return;
  record.ended = true;
  for (const w of record.workers) w.terminate();
  record.workers.length = 0;
}

/**
 * A pool worker's side: the owner created this worker and owns every worker of the program, so
 * ask it for one. The command is already in the slot; the thread starts when the worker boots.
 */
function askOwner(init: WorkerInit): WorkerHandle {
  (globalThis as unknown as WorkerScope).postMessage({ grow: init.slot } satisfies GrowRequest);
  return { terminate: async () => {} };
}

/**
 * The owner's platform whose pool workers run the script `newWorker` creates (an embedder's:
 * napi/), for every worker of the program, those grown on a pool worker's request included.
 */
export function browserPlatformWith(newWorker: NewWorker): Platform {
  return { ...browserPlatform, startWorker: (init, onFailure) => startWorker(newWorker, init, onFailure) };
}

/** For the thread that runs the program (browser.ts): the page, or a worker of the user's. */
export const browserPlatform: Platform = {
  cpuCount: () => Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1),
  startWorker: (init, onFailure) => startWorker(runtimeWorker, init, onFailure),
  readFile: async (url) => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`cannot fetch ${String(url)}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  },
  isatty: () => false,
  writeFd: () => ERRNO_NOTSUP,
  readFd: () => ERRNO_BADF,
  // No host stdin in a page: a program that reads the default stdin sees end of input.
  readStdin: (_onChunk, onEnd) => { onEnd(); return () => {}; },
  // OPFS mounts of the runtime's shared FS (`mounts: ['/data=opfs:DIR']`).
  opfs: opfsDriver,
};

/** For the runtime's own pool workers (worker.ts). */
export const poolWorkerPlatform: Platform = { ...browserPlatform, startWorker: askOwner };
