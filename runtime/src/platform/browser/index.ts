/**
 * The browser platform: module Web Workers, all created by the thread that runs the program,
 * and no host file descriptors.
 *
 * Workers: every worker of a program is a dedicated module worker created by the thread that
 * runs the program (the owner: the page's main thread, or a worker of the user's) or by its
 * creator (below), never by another pool worker. When a thread on a pool worker must grow the
 * pool, it has already written the command into a fresh slot of the control block (as in Node);
 * it then posts `{ grow: slot }` to its parent, the owner or the creator, and returns the thread
 * id at once. The parent, which never blocks (it only awaits), creates the worker with the
 * program's WorkerInit. Why not
 * start the worker right there: a spawning thread usually blocks next (Atomics.wait in
 * pthread_join), and Chromium's start-up of a nested dedicated worker needs its parent's event
 * loop, so it could hang; a message to the parent needs nothing from the sender once posted.
 * The parent port is per worker, so no channel name is needed to tell programs apart.
 *
 * An owner that is a worker (run() from a worker of the page) creates none of the pool workers
 * itself: it creates one creator (creator-worker.ts), which creates them all and serves their
 * growth requests. Firefox can block `new Worker()` inside a worker forever while WebDriver or
 * DevTools is attached (docs/known-issues/firefox-nested-worker.md); the creator is then the
 * thread that is stuck, and the owner, still free, ends the program with a one-line error when a
 * creation has not finished within CREATE_BOUND_MS. (The owner's own `new Worker()` of the
 * creator can still block: one creation per program instead of one per worker.) An embedder's
 * worker script (`browserPlatformWith`) is created by the owner itself, as from the page.
 *
 * The calls that do not create workers, and the pool workers' own platform, are in
 * pool-worker-platform.ts.
 *
 * Compiler tiers: Chrome compiles wasm with Liftoff first and tiers hot functions up to TurboFan
 * in the background (dynamic tiering); a page cannot pass V8 flags, so the optimizing-tier
 * switch is a no-op. (A long loop entered once may stay in baseline code: no OSR for wasm.)
 *
 * Thread rules: `browserPlatform` is used on the owner only (`poolWorkerPlatform`, on pool
 * workers only, is in pool-worker-platform.ts); the per-program record below lives on the owner.
 */
import type { Platform, WorkerHandle } from '../types.js';
import type { GrowRequest, WorkerInit } from '../../protocol.js';
import { endOpfs, withOpfs } from './opfs-owner.js';
import { browserHost } from './pool-worker-platform.js';
import type { CreatorReport } from './creator-worker.js';

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
  /** An embedder's: what its pool workers post to the owner besides grow requests. */
  onMessage?: (message: unknown) => void;
  /** The creator, when the owner is a worker (then `workers` holds only it). */
  creator?: Worker;
  /** Creations asked of the creator and not yet finished: slot -> the timer of its bound. */
  pending: Map<number, ReturnType<typeof setTimeout>>;
}

/** How long a creation asked of the creator may take before the program ends with an error. */
const CREATE_BOUND_MS = 20_000;

/**
 * Creates a module worker running a pool worker script, named `name`. The `new Worker(new
 * URL(..., import.meta.url))` expression must be written out where the script lives, so that
 * bundlers (Vite, webpack 5) recognise the worker and emit it.
 */
export type NewWorker = (name: string) => Worker;

const runtimeWorker: NewWorker = (name) => new Worker(new URL('../../worker.js', import.meta.url), { type: 'module', name });
const programs = new WeakMap<SharedArrayBuffer, ProgramWorkers>();

/** The owner's side (the thread that runs the program, normally the page): creates the worker. */
function startWorker(newWorker: NewWorker, init: WorkerInit, onFailure: (message: string) => void, onMessage?: (message: unknown) => void): WorkerHandle {
  init = withOpfs(init);
  let record = programs.get(init.control);
  if (!record) {
    record = { workers: [], onFailure, ended: false, newWorker, onMessage, pending: new Map() };
    programs.set(init.control, record);
    if (newWorker === runtimeWorker && isWorkerScope()) startCreator(record);
  }
  if (record.creator) askCreator(init, record);
  else create(init, record);
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
    else record.onMessage?.(e.data);
  };
  worker.postMessage(init);
}

/** True on a worker's thread (a dedicated worker of the page, say), false on the page's. */
function isWorkerScope(): boolean {
  const scope = (globalThis as { WorkerGlobalScope?: abstract new () => unknown }).WorkerGlobalScope;
  return scope !== undefined && globalThis instanceof scope;
}

function startCreator(record: ProgramWorkers): void {
  let creator: Worker;
  try {
    creator = new Worker(new URL('./creator-worker.js', import.meta.url), { type: 'module', name: 'spindle creator' });
  } catch (e) {
    record.onFailure(`cannot start the worker that creates the pool's workers: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  record.creator = creator;
  record.workers.push(creator); // terminating it ends every worker it created
  creator.onerror = (e) => {
    e.preventDefault();
    record.onFailure(`the worker that creates the pool's workers failed: ${e.message || 'its script did not load (is the runtime\'s dist/ served whole?)'}`);
  };
  creator.onmessage = (e: MessageEvent<CreatorReport>) => {
    const r = e.data;
    if ('begin' in r) expectCreation(r.begin, record);
    else if ('created' in r) settleCreation(r.created, record);
    else {
      settleCreation(r.failed, record);
      record.onFailure(r.message);
    }
  };
}

/** Asks the creator for `init.slot`'s worker, with the creation's bound running from now. */
function askCreator(init: WorkerInit, record: ProgramWorkers): void {
  if (record.ended) return;
  expectCreation(init.slot, record);
  record.creator!.postMessage({ init });
}

/** Starts the bound of `slot`'s creation (once: the owner's request or the creator's `begin`). */
function expectCreation(slot: number, record: ProgramWorkers): void {
  if (record.ended || record.pending.has(slot)) return;
  record.pending.set(slot, setTimeout(() => {
    record.pending.delete(slot);
    if (!record.ended) record.onFailure(stuckCreation(slot));
  }, CREATE_BOUND_MS));
}

function settleCreation(slot: number, record: ProgramWorkers): void {
  clearTimeout(record.pending.get(slot));
  record.pending.delete(slot);
}

function stuckCreation(slot: number): string {
  return `the worker for slot ${slot} was not created within ${CREATE_BOUND_MS / 1000} s; Firefox can block new Worker() `
    + 'inside a worker forever while WebDriver or DevTools is attached (docs/known-issues/firefox-nested-worker.md): '
    + 'call run() from the page instead of a worker';
}

function endProgram(record: ProgramWorkers): void {
  if (record.ended) return;
  record.ended = true;
  for (const timer of record.pending.values()) clearTimeout(timer);
  record.pending.clear();
  for (const w of record.workers) w.terminate();
  record.workers.length = 0;
}

/**
 * The owner's platform whose pool workers run the script `newWorker` creates (an embedder's:
 * napi/), for every worker of the program, those grown on a pool worker's request included. The
 * owner creates each of them itself, so each posts to the owner on a port of its own (its
 * parent's): what one posts besides grow requests goes to `onMessage`, in the order posted.
 */
export function browserPlatformWith(newWorker: NewWorker, onMessage?: (message: unknown) => void): Platform {
  return { ...browserPlatform, startWorker: (init, onFailure) => startWorker(newWorker, init, onFailure, onMessage) };
}

/** For the thread that runs the program (browser.ts): the page, or a worker of the user's. */
export const browserPlatform: Platform = {
  ...browserHost,
  startWorker: (init, onFailure) => startWorker(runtimeWorker, init, onFailure),
};
