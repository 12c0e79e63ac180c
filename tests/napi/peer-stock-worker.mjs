// A thread of the peer-problem addon on the stock stack: what a generated wasi-worker.mjs does.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const { instantiateNapiModuleSync, MessageHandler, getDefaultContext } = createRequire(new URL('./stock/package.json', import.meta.url))('@napi-rs/wasm-runtime');
const peerWasi = require('./peer-wasi.cjs');

parentPort.on('message', (data) => globalThis.onmessage({ data }));
Object.assign(globalThis, { self: globalThis, postMessage: (m) => parentPort.postMessage(m) });
const handler = new MessageHandler({
  onLoad: ({ wasmModule, wasmMemory }) => instantiateNapiModuleSync(wasmModule, {
    childThread: true,
    wasi: peerWasi(workerData.wasiKind, workerData.sandbox),
    context: getDefaultContext(),
    overwriteImports(io) {
      io.env = { ...io.env, ...io.napi, ...io.emnapi, memory: wasmMemory };
    },
  }),
});
globalThis.onmessage = (e) => handler.handle(e);
