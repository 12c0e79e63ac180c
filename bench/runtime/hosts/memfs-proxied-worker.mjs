/**
 * The worker of hosts/memfs-proxied-run.mjs, shaped like @napi-rs/wasm-runtime's generated
 * `wasi-worker-browser.mjs`: `createFsProxy(memfsExported)` is this thread's fs, so every fs call
 * of its WASI is posted to the JS main thread, which runs it on the memfs and wakes this thread.
 *
 *   role 'thread'  a pthread: emnapi's ThreadMessageHandler loads the module and runs
 *                  wasi_thread_start (the template's MessageHandler + onLoad)
 *   role 'main'    the program's main thread: runs _start as an emnapi child thread (its
 *                  thread spawns are posted to the JS main thread, which creates the worker)
 *
 * Stdout/stderr lines are posted to the JS main thread, which writes them in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ThreadMessageHandler, WASIThreads } from '@emnapi/wasi-threads';
import { WASI, createFsProxy } from '@napi-rs/wasm-runtime';
import { memfsExported } from '@napi-rs/wasm-runtime/fs';

const { role, wasiOptions, memoryImport } = workerData;

// Browser-worker globals that the proxy (postMessage) and emnapi's protocol use.
Object.assign(globalThis, { self: globalThis, postMessage: (msg) => parentPort.postMessage(msg) });

const fs = createFsProxy(memfsExported);

function instantiate(wasmModule, wasmMemory, extra) {
  const wasi = new WASI({
    ...wasiOptions, ...extra, fs, preopens: { '/': '/' },
    print: (line) => parentPort.postMessage({ stdout: line }),
    printErr: (line) => parentPort.postMessage({ stderr: line }),
  });
  const wasiThreads = new WASIThreads({ wasi, childThread: true });
  const imports = { wasi_snapshot_preview1: wasi.wasiImport, ...wasiThreads.getImportObject() };
  if (memoryImport) imports[memoryImport.module] = { [memoryImport.name]: wasmMemory };
  return { wasi, wasiThreads, instance: new WebAssembly.Instance(wasmModule, imports) };
}

if (role === 'main') {
  const { wasmModule, wasmMemory } = workerData;
  const { wasi, wasiThreads, instance } = instantiate(wasmModule, wasmMemory, { returnOnExit: true });
  // Not wasiThreads.start(): for a child thread it runs a proxy of the instance whose _start does
  // nothing (child threads only enter through wasi_thread_start). setup() gives thread-spawn the
  // memory and malloc/free it needs; the WASI runs the real _start.
  wasiThreads.setup(instance, wasmModule, wasmMemory);
  const exitCode = wasi.start(instance);
  parentPort.postMessage({ exit: exitCode ?? 0 });
} else {
  const handler = new ThreadMessageHandler({
    onLoad({ wasmModule, wasmMemory }) {
      const { wasiThreads, instance } = instantiate(wasmModule, wasmMemory);
      // must call `initialize` (not `start`) in a child thread
      return { module: wasmModule, instance: wasiThreads.initialize(instance, wasmModule, wasmMemory) };
    },
  });
  parentPort.on('message', (data) => handler.handle({ data }));
}
