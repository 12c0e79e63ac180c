#!/usr/bin/env node
/**
 * The peer stack: runs a wasm32-wasip1-threads command on @emnapi/wasi-threads, wired the way
 * @napi-rs/wasm-runtime wires it in Node (its generated `*.wasi.cjs` + `wasi-worker.mjs`): the
 * program's instance and `_start` on the JS main thread, one WASI instance per thread, threads
 * on worker_threads workers created through `onCreateWorker`, `waitThreadStart` as in the
 * emnapi README for Node.
 *
 *   node emnapi-run.mjs [--wasi node|wasm-util] [--pool N] PROGRAM.wasm [ARGS...]
 *
 * --wasi node       node:wasi on every thread (what @napi-rs/wasm-runtime's Node loader uses)
 * --wasi wasm-util  @tybys/wasm-util's WASI (what it uses in browsers); its monotonic clock is
 *                   performance.now() in whole ms with a per-worker origin, so the cross-thread
 *                   spawn measurement cannot use it (see experiments/spawn-latency.mjs)
 * --hrtime-clock    replace only CLOCK_MONOTONIC of the WASI layer by process.hrtime (one clock
 *                   for all threads, ns): lets the spawn benchmark run on @tybys/wasm-util
 * --pool N          reuseWorker { size: N } and preloadWorkers() before _start (a warm pool);
 *                   0 (default) = reuseWorker: false, the README's Node setting: every
 *                   pthread_create boots a new worker.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Worker } from 'node:worker_threads';
import { WASIThreads } from '@emnapi/wasi-threads';
import { createImportedMemory } from './memory-import.mjs';
import { wasiImports } from './wasi-imports.mjs';

const argv = process.argv.slice(2);
let wasiKind = 'node', pool = 0, hrtimeClock = false;
while (argv[0]?.startsWith('--')) {
  const flag = argv.shift();
  if (flag === '--wasi') wasiKind = argv.shift();
  else if (flag === '--pool') pool = Number(argv.shift());
  else if (flag === '--hrtime-clock') hrtimeClock = true;
  else { console.error(`emnapi-run: unknown option ${flag}`); process.exit(2); }
}
const [file, ...args] = argv;
if (!file) { console.error('usage: emnapi-run.mjs [--wasi node|wasm-util] [--pool N] PROGRAM.wasm [ARGS...]'); process.exit(2); }

const { WASI } = wasiKind === 'node' ? await import('node:wasi') : await import('@tybys/wasm-util');
const wasiOptions = { version: 'preview1', args: [basename(file), ...args], env: {}, returnOnExit: true };

const bytes = readFileSync(file);
const { memory, imp } = createImportedMemory(bytes);
const wasi = new WASI(wasiOptions);
const wasiThreads = new WASIThreads({
  wasi,
  reuseWorker: pool > 0 ? { size: pool, strict: false } : false,
  waitThreadStart: 1000,
  onCreateWorker: () => new Worker(new URL('./emnapi-worker.mjs', import.meta.url), {
    workerData: { wasiKind, wasiOptions, hrtimeClock, memoryImport: imp && { module: imp.module, name: imp.name } },
  }),
});
const module = await WebAssembly.compile(bytes);
const imports = { wasi_snapshot_preview1: wasiImports(wasi, hrtimeClock, () => memory ?? instance.exports.memory), ...wasiThreads.getImportObject() };
if (imp) imports[imp.module] = { [imp.name]: memory };
let instance;
instance = await WebAssembly.instantiate(module, imports);
wasiThreads.setup(instance, module, memory);
await wasiThreads.preloadWorkers();
const code = wasi.start(instance);
process.exit(code ?? 0);
