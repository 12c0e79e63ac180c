/**
 * The pool worker's compiled JavaScript, shared by the workers of one Node process.
 *
 * Every Node worker compiles the worker bundle (dist/node-worker.cjs, ~160 KB) again: its own
 * isolate, its own parse and lazy compile of each function it runs. So the default pool worker is
 * started from LOADER (written to dist/node-worker-loader.cjs by scripts/bundle.mjs: a file, so
 * that Node runs its --import and --require preloads in the worker), a few lines that compile the
 * bundle as a `vm.Script` with V8's code cache when one exists, and the first worker that gets its
 * instance without a command waiting writes that cache (every function its start-up compiled) into
 * a SharedArrayBuffer that the owner passes to every worker it starts, and each worker to the
 * workers it starts. A worker then starts with 3-5 ms less CPU on Node 20 (per thread beyond the
 * pool: 31 vs 35-41 ms in a chain of 100, 30-37 vs 33-37 with 64 blocked; 1-4 ms on Node 26; 2
 * cores, load 17-40) and no more memory. Nothing is written to disk; a cache V8 rejects (another V8 or
 * flags: never in one process) only costs the compile it would have saved.
 *
 * Buffer layout (Int32 words, then bytes): [0] STATE, [1] LENGTH, bytes from offset 8.
 * STATE goes EMPTY -> WRITING -> READY (or FULL when the cache does not fit) exactly once: the
 * worker that wins the EMPTY -> WRITING exchange writes the bytes and LENGTH, then publishes
 * READY; a reader copies nothing and reads the bytes only after seeing READY.
 *
 * The loader runs the bundle as a script of the worker's own global scope (no function wrapper
 * around its source: that meant a second copy of the source per worker, 0.17 MiB; the bundle is
 * an iife, so its own names stay its own), so it defines the two CommonJS names the bundle uses,
 * `require` and `__filename`, as globals of that worker, and hands the bundle its start
 * (`globalThis.__spindle_worker`: WorkerInit, the buffer, the script).
 */
import type { Script } from 'node:vm';
import type { WorkerInit } from '../../protocol.js';

const STATE = 0, LENGTH = 1, DATA = 8;
const EMPTY = 0, WRITING = 1, READY = 2, FULL = 3;
/** Room for the cache: ~100 KB after a worker's start-up on Node 20 and 26. */
const CODE_CACHE_BYTES = 1 << 20;

/** What LOADER hands to the bundle (node-worker.ts). */
export interface LoadedWorker {
  init: WorkerInit;
  code: SharedArrayBuffer;
  script: Script;
}

/** workerData of a worker started from LOADER. */
export interface LoaderData {
  /** The bundle's path. */
  file: string;
  init: WorkerInit;
  code: SharedArrayBuffer;
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
globalThis.__spindle_worker = { init: d.init, code: d.code, script };
script.runInThisContext();
`;

let shared: SharedArrayBuffer | undefined;

/** This thread's code cache buffer: the one it was started with, or a new one (the owner). */
export function codeCache(): SharedArrayBuffer {
  shared ??= new SharedArrayBuffer(CODE_CACHE_BYTES);
  return shared;
}

/**
 * The start LOADER handed to this worker, or undefined when the bundle was started by Node
 * itself (an embedder's script, or a build without the loader). Adopts its buffer, so that the
 * workers this worker starts share it.
 */
export function loadedWorker(): LoadedWorker | undefined {
  const w = (globalThis as { __spindle_worker?: LoadedWorker }).__spindle_worker;
  if (w) shared = w.code;
  return w;
}

/** Writes `script`'s code cache into the shared buffer if no worker has (see the module note). */
export function publishCodeCache(w: LoadedWorker): void {
  const words = new Int32Array(w.code, 0, 2);
  if (Atomics.load(words, STATE) !== EMPTY || Atomics.compareExchange(words, STATE, EMPTY, WRITING) !== EMPTY) return;
  const data = w.script.createCachedData();
  if (data.length > w.code.byteLength - DATA) {
    Atomics.store(words, STATE, FULL);
    return;
  }
  new Uint8Array(w.code, DATA, data.length).set(data);
  Atomics.store(words, LENGTH, data.length);
  Atomics.store(words, STATE, READY);
}
