#!/usr/bin/env node
/**
 * The JS filesystem peer of the fs experiment: a wasm32-wasip1-threads program on
 * @emnapi/wasi-threads + @tybys/wasm-util whose files live in a memfs on the JS main thread,
 * wired the way @napi-rs/wasm-runtime's generated browser loader (`*.wasi-browser.js`) and
 * worker (`wasi-worker-browser.mjs`) wire it:
 *
 *   main thread   `const { fs } = memfs()` from '@napi-rs/wasm-runtime/fs' (the memfs package, as
 *                 napi-rs bundles it), `new WASI({ version: 'preview1', fs, preopens: { '/': '/' } })`,
 *                 and on every worker `createOnMessage(fs)` as its message listener: it runs the
 *                 fs call a worker posts and wakes the worker through Atomics
 *   worker        `createFsProxy(memfsExported)` as the WASI's `fs`: every fs method posts
 *                 { __fs__: { sab, type, payload } } to the main thread and Atomics.waits for
 *                 the answer (JSON-encoded, through a SharedArrayBuffer)
 *
 *   node memfs-proxied-run.mjs --where main|worker [--pool N] PROGRAM.wasm [ARGS...]
 *
 * --where main    the program runs on the JS main thread with the memfs direct (no proxy): what
 *                 a napi-rs module's calls on the main thread get
 * --where worker  every wasm thread runs on a worker with the proxied memfs; the JS main thread
 *                 only serves the fs calls and the thread spawns (in a browser it could not block
 *                 in the program's pthread_join anyway: its event loop must stay free to answer
 *                 the proxy, which is why napi-rs runs blocking work on workers). The program's
 *                 own main thread is a worker here too, so a pthread it creates and joins is
 *                 served by the free JS main thread exactly as napi-rs's async work is.
 * --pool N        workers started before the program (reuseWorker { size: N }; default 1): one
 *                 per pthread the program will create, as the loader's pool is sized
 *
 * The WASI layer is @tybys/wasm-util's (what @napi-rs/wasm-runtime exports as WASI); its
 * CLOCK_MONOTONIC has whole-millisecond resolution, enough for runs of hundreds of ms. Files of
 * the program live under /tmp (created in the memfs before the start).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Worker } from 'node:worker_threads';
import { WASIThreads } from '@emnapi/wasi-threads';
import { WASI, createOnMessage } from '@napi-rs/wasm-runtime';
import { memfs } from '@napi-rs/wasm-runtime/fs';
import { createImportedMemory } from './memory-import.mjs';

const argv = process.argv.slice(2);
let where = 'main', pool = 1;
while (argv[0]?.startsWith('--')) {
  const flag = argv.shift();
  if (flag === '--where') where = argv.shift();
  else if (flag === '--pool') pool = Number(argv.shift());
  else { console.error(`memfs-proxied-run: unknown option ${flag}`); process.exit(2); }
}
const [file, ...args] = argv;
if (!file || (where !== 'main' && where !== 'worker') || !(pool >= 1)) {
  console.error('usage: memfs-proxied-run.mjs --where main|worker [--pool N] PROGRAM.wasm [ARGS...]');
  process.exit(2);
}

const { fs } = memfs();
fs.mkdirSync('/tmp', { recursive: true });
const wasiOptions = { version: 'preview1', args: [basename(file), ...args], env: {} };
const bytes = readFileSync(file);
const { memory, imp } = createImportedMemory(bytes);
const module = await WebAssembly.compile(bytes);
const workerUrl = new URL('./memfs-proxied-worker.mjs', import.meta.url);
const memoryImport = imp && { module: imp.module, name: imp.name };

/** What a worker posts besides the fs calls: its stdout/stderr lines, and the program's exit. */
function onWorkerOutput(data) {
  if (data?.stdout !== undefined) process.stdout.write(`${data.stdout}\n`);
  else if (data?.stderr !== undefined) process.stderr.write(`${data.stderr}\n`);
}

const onFsCall = createOnMessage(fs);
const wasi = new WASI({ ...wasiOptions, fs, preopens: { '/': '/' }, returnOnExit: true });
const wasiThreads = new WASIThreads({
  wasi,
  // A warm pool, as the generated loader's reuseWorker: the workers exist (and their WASI is
  // built, which stats the preopen through the proxy) before the program starts.
  reuseWorker: { size: pool, strict: false },
  onCreateWorker: () => {
    const worker = new Worker(workerUrl, { workerData: { role: 'thread', wasiOptions, memoryImport } });
    // napi-rs: worker.addEventListener('message', __wasmCreateOnMessageForFsProxy(__fs))
    worker.on('message', (data) => { onFsCall({ data }); onWorkerOutput(data); });
    return worker;
  },
});
const imports = { wasi_snapshot_preview1: wasi.wasiImport, ...wasiThreads.getImportObject() };
if (imp) imports[imp.module] = { [imp.name]: memory };
const instance = await WebAssembly.instantiate(module, imports);
wasiThreads.setup(instance, module, memory);

if (where === 'main') {
  process.exit(wasi.start(instance) ?? 0);
}

await wasiThreads.preloadWorkers();
const program = new Worker(workerUrl, { workerData: { role: 'main', wasiOptions, memoryImport, wasmModule: module, wasmMemory: memory } });
program.on('message', (data) => {
  onFsCall({ data });
  onWorkerOutput(data);
  const emnapi = data?.__emnapi__;
  if (emnapi?.type === 'spawn-thread') wasiThreads.threadSpawn(emnapi.payload.startArg, emnapi.payload.errorOrTid);
  else if (emnapi?.type === 'terminate-all-threads') wasiThreads.terminateAllThreads();
  if (data?.exit !== undefined) {
    wasiThreads.terminateAllThreads();
    process.exit(data.exit);
  }
});
program.on('error', (e) => { console.error(`memfs-proxied-run: the program's thread failed: ${e?.stack ?? e}`); process.exit(1); });
