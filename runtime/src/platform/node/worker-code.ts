/**
 * The pool worker's compiled JavaScript, shared by the workers of one Node process and kept
 * across runs.
 *
 * Every Node worker compiles its worker bundle again (dist/node-worker.cjs, ~230 KB; the napi
 * host's dist/napi-worker.cjs, ~680 KB): its own isolate, its own parse and lazy compile of each
 * function it runs. So pool workers are started from LOADER (written to
 * dist/node-worker-loader.cjs by scripts/bundle.mjs: a file, so that Node runs its --import and
 * --require preloads in the worker), a few lines that compile the bundle as a `vm.Script` with
 * V8's code cache when one exists, and the first worker that gets its instance without a command
 * waiting writes that cache (every function its start-up compiled) into a SharedArrayBuffer that
 * the owner passes to every worker it starts, and each worker to the workers it starts. A worker
 * then starts with 3-5 ms less CPU on Node 20 (per thread beyond the pool: 31 vs 35-41 ms in a
 * chain of 100, 30-37 vs 33-37 with 64 blocked; 1-4 ms on Node 26; 2 cores, load 17-40) and no
 * more memory. A cache V8 rejects only costs the compile it would have saved.
 *
 * Across runs: the workers a program prewarms all start at once, before any has a cache to
 * share, so the first worker that writes the buffer also writes it to the cache directory
 * (cache-dir.ts, `worker-code/`), and the owner of a later run fills the buffer from there before
 * it starts its first worker. Compiling dist/napi-worker.cjs cost a worker 8-11 ms of CPU (Node 20
 * and 26), 1-4 ms with the cache of it. Entry: `<dir>/worker-code/<key>.bin`, key = a hash of the
 * bundle's path, size and time (a rebuilt bundle is another key: V8 checks of the source only its
 * length), Node's version and arch and this process's V8 options (execArgv, NODE_OPTIONS), as
 * cli-start.ts keys the CLI's; `worker-code/` keeps the ENTRIES newest.
 *
 * Buffer layout (Int32 words, then bytes): [0] STATE, [1] LENGTH, bytes from offset 8.
 * STATE goes EMPTY -> WRITING -> READY (or FULL when the cache does not fit) exactly once: the
 * worker that wins the EMPTY -> WRITING exchange writes the bytes and LENGTH, then publishes
 * READY; a reader copies nothing and reads the bytes only after seeing READY. The owner fills a
 * buffer from the disk before any worker has it (READY at once, or left EMPTY).
 *
 * The loader runs the bundle as a script of the worker's own global scope (no function wrapper
 * around its source: that meant a second copy of the source per worker, 0.17 MiB; the bundles are
 * iifes, so their own names stay their own), so it defines the two CommonJS names the bundle uses,
 * `require` and `__filename`, as globals of that worker, and hands the bundle its start
 * (`globalThis.__spindle_worker`: WorkerInit, the buffer, the script, the disk entry).
 *
 * Modules a worker loads from elsewhere (a napi loader's own emnapi pair: napi/node-worker.ts)
 * are ES modules that no `vm.Script` can compile; `loadWithCompileCache` has Node keep V8's code
 * cache of them in `<cache dir>/node-compile/` (module.enableCompileCache, Node 22.1+: entries
 * keyed and checked by Node against the source and V8, a stale or unreadable one is compiled again
 * and replaced). Node 20 compiles them in every worker. Node prunes nothing there: a process whose
 * workers load such a pair bounds the folder at its exit (`boundCompileCacheAtExit`).
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import type { Script } from 'node:vm';
import type { WorkerInit } from '../../protocol.js';
import { cacheDir, fnv1a, keepNewest, newestFirst, v8Options, writeEntryAtomic } from './cache-dir.js';

const STATE = 0, LENGTH = 1, DATA = 8;
const EMPTY = 0, WRITING = 1, READY = 2, FULL = 3;
/** Room for the cache: ~100 KB after a default worker's start-up on Node 20 and 26. */
const CODE_CACHE_BYTES = 1 << 20;
/** Entries kept in `worker-code/` (two bundles; a rebuild, another Node line each make one). */
const ENTRIES = 16;

/** What LOADER hands to the bundle (node-worker.ts). */
export interface LoadedWorker {
  init: WorkerInit;
  code: SharedArrayBuffer;
  script: Script;
  /** The bundle's path. */
  file?: string;
  /** The disk entry of this bundle's cache (absent: no cache directory). */
  entry?: string;
}

/** workerData of a worker started from LOADER. */
export interface LoaderData {
  /** The bundle's path. */
  file: string;
  init: WorkerInit;
  code: SharedArrayBuffer;
  /** The disk entry of the bundle's cache (absent: no cache directory). */
  entry?: string;
}

/** The eval'd start of a default pool worker (see the module note). */
export const LOADER = `'use strict';
const { workerData: d } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { Script } = require('node:vm');
const words = new Int32Array(d.code, 0, 2);
const cachedData = Atomics.load(words, ${STATE}) === ${READY} ? Buffer.from(d.code, ${DATA}, words[${LENGTH}]) : undefined;
const script = new Script(readFileSync(d.file, 'utf8'), { filename: d.file, cachedData });
globalThis.require = require;
globalThis.__filename = d.file;
globalThis.__spindle_worker = { init: d.init, code: d.code, script, file: d.file, entry: d.entry };
script.runInThisContext();
`;

/** This thread's buffers, by bundle path. */
const buffers = new Map<string, SharedArrayBuffer>();

/**
 * This thread's code cache buffer for the bundle `file`: the one it was started with (a worker of
 * that bundle), or a new one, filled from the disk `entry` when there is one (the owner).
 */
export function codeCache(file: string, entry?: string): SharedArrayBuffer {
  let shared = buffers.get(file);
  if (!shared) {
    shared = new SharedArrayBuffer(CODE_CACHE_BYTES);
    if (entry) fill(shared, entry);
    buffers.set(file, shared);
  }
  return shared;
}

/** The disk entry for `file`'s cache in this process (see the module note), or undefined. */
export function diskEntry(file: string): string | undefined {
  if (!entries.has(file)) entries.set(file, entryOf(file));
  return entries.get(file);
}

const entries = new Map<string, string | undefined>();

function entryOf(file: string): string | undefined {
  const dir = cacheDir();
  if (!dir) return undefined;
  try {
    const st = statSync(file);
    return join(dir, 'worker-code', `${process.version}-${process.arch}-${fnv1a(`${file}\0${st.size}\0${st.mtimeMs}\0${v8Options()}`)}.bin`);
  } catch {
    return undefined;
  }
}

function fill(shared: SharedArrayBuffer, entry: string): void {
  let data: Buffer;
  try {
    data = readFileSync(entry);
  } catch {
    return; // none yet: the first worker writes it
  }
  if (data.length === 0 || data.length > shared.byteLength - DATA) return;
  new Uint8Array(shared, DATA, data.length).set(data);
  const words = new Int32Array(shared, 0, 2);
  words[LENGTH] = data.length;
  Atomics.store(words, STATE, READY);
}

/**
 * The start LOADER handed to this worker, or undefined when the bundle was started by Node
 * itself (an embedder's script, or a build without the loader). Adopts its buffer, so that the
 * workers this worker starts share it.
 */
export function loadedWorker(): LoadedWorker | undefined {
  const w = (globalThis as { __spindle_worker?: LoadedWorker }).__spindle_worker;
  if (w?.file) buffers.set(w.file, w.code);
  return w;
}

/**
 * Writes `script`'s code cache into the shared buffer if no worker has, and then to the disk
 * entry (see the module note); a worker whose disk cache V8 rejected writes the disk entry again.
 * Called by the worker each time it has its instance (pool-worker.ts `serve`) until it returns
 * true. When a thread is already waiting for this worker, only a cache that goes to the disk is
 * written (once per cache directory, bundle and Node: it delays that thread by the time
 * createCachedData takes, a few ms): a program whose prewarmed workers all get a long-lived
 * thread at once (oxc-parser's four) never has an idle one.
 */
export function publishCodeCache(w: LoadedWorker, commandWaiting = false): boolean {
  const words = new Int32Array(w.code, 0, 2);
  if (w.entry && w.script.cachedDataRejected === true) {
    save(w.entry, w.script.createCachedData());
    return true;
  }
  if (Atomics.load(words, STATE) !== EMPTY) return true;
  if (commandWaiting && !w.entry) return false;
  if (Atomics.compareExchange(words, STATE, EMPTY, WRITING) !== EMPTY) return true;
  const data = w.script.createCachedData();
  if (data.length > w.code.byteLength - DATA) {
    Atomics.store(words, STATE, FULL);
    return true;
  }
  new Uint8Array(w.code, DATA, data.length).set(data);
  Atomics.store(words, LENGTH, data.length);
  Atomics.store(words, STATE, READY);
  if (w.entry) save(w.entry, data);
  return true;
}

/** module's compile cache functions, where Node has them (22.1+; flushCompileCache 22.10+). */
interface CompileCacheApi {
  enableCompileCache?: (dir?: string) => { status: number };
  flushCompileCache?: () => void;
}

/**
 * `load()` with Node's compile cache on for the modules it loads (see the module note), in the
 * cache directory's `node-compile/`; as it is where Node has no compile cache or the cache
 * directory is off. Also on for anything this thread loads later (a pool worker loads nothing
 * else). NODE_COMPILE_CACHE in the environment wins (Node enabled it already); with
 * NODE_DISABLE_COMPILE_CACHE Node keeps it off. What was compiled is written at once: a pool
 * worker is terminated, never exits by itself.
 */
export function loadWithCompileCache<T>(load: () => T, dir = cacheDir()): T {
  const api = nodeModule as CompileCacheApi;
  if (dir && api.enableCompileCache) {
    try { api.enableCompileCache(join(dir, 'node-compile')); } catch { /* do without */ }
  }
  const loaded = load();
  try { api.flushCompileCache?.(); } catch { /* do without */ }
  return loaded;
}

/**
 * Bounds of `node-compile/`: the folders Node makes (one per Node version, arch and V8 flags) kept,
 * the most recently written first, and the entries kept in each (one per source file loaded
 * through it: each emnapi copy at its own path adds ~10).
 */
export const COMPILE_FOLDERS = 4;
export const COMPILE_ENTRIES = 256;

let boundingAtExit = false;

/**
 * Bounds `node-compile/` (`boundCompileCache`) when this process exits, once however often it is
 * called: the main thread calls it when its pool workers will load a loader's own emnapi pair
 * with the compile cache (napi/node.ts). At exit, not at load: listing the folder costs the main
 * thread ~1 ms with 256 entries.
 */
export function boundCompileCacheAtExit(dir = cacheDir()): void {
  if (!dir || boundingAtExit) return;
  boundingAtExit = true;
  process.once('exit', () => boundCompileCache(join(dir, 'node-compile')));
}

/** Keeps the COMPILE_FOLDERS most recently written folders of `folder`, each pruned to COMPILE_ENTRIES entries. */
export function boundCompileCache(folder: string): void {
  for (const [i, f] of newestFirst(folder).filter((e) => e.isDirectory).entries()) {
    if (i < COMPILE_FOLDERS) keepNewest(f.path, COMPILE_ENTRIES);
    else try { rmSync(f.path, { recursive: true, force: true }); } catch { /* a cache only saves time */ }
  }
}

function save(entry: string, data: Uint8Array): void {
  if (writeEntryAtomic(entry, data)) keepNewest(dirname(entry), ENTRIES);
}
