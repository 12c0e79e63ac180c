/**
 * The worker script of the peer stack (hosts/emnapi-run.mjs), shaped like @napi-rs/wasm-runtime's
 * generated `wasi-worker.mjs` for Node: globals for emnapi's message protocol, a
 * ThreadMessageHandler whose onLoad creates this thread's own WASI and instance.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ThreadMessageHandler, WASIThreads } from '@emnapi/wasi-threads';

import { wasiImports } from './wasi-imports.mjs';

const { wasiKind, wasiOptions, hrtimeClock, memoryImport } = workerData;
const { WASI } = wasiKind === 'node' ? await import('node:wasi') : await import('@tybys/wasm-util');

Object.assign(globalThis, { self: globalThis, postMessage: (msg) => parentPort.postMessage(msg) });

const handler = new ThreadMessageHandler({
  onLoad({ wasmModule, wasmMemory }) {
    const wasi = new WASI(wasiOptions);
    const wasiThreads = new WASIThreads({ wasi, childThread: true });
    const imports = { wasi_snapshot_preview1: wasiImports(wasi, hrtimeClock, () => wasmMemory), ...wasiThreads.getImportObject() };
    if (memoryImport) imports[memoryImport.module] = { [memoryImport.name]: wasmMemory };
    const instance = new WebAssembly.Instance(wasmModule, imports);
    // must call `initialize` (not `start`) in a child thread
    return { module: wasmModule, instance: wasiThreads.initialize(instance, wasmModule, wasmMemory) };
  },
});
parentPort.on('message', (data) => handler.handle({ data }));
