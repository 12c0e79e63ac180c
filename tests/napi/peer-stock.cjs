// The peer-problem addon (peer/peer.c, build/napi/peer.wasm) on the stock stack, set up as the
// generated loaders set it up: @napi-rs/wasm-runtime's instantiateNapiModuleSync, a worker per
// thread (peer-stock-worker.mjs), each thread with its own WASI instance.
//   node tests/napi/peer-stock.cjs node|wasm-util SANDBOX CALL ARG
// WASI: node = node:wasi (the generated Node loaders), wasm-util = @tybys/wasm-util's WASI over
// node:fs (what @napi-rs/wasm-runtime exports as WASI). SANDBOX is preopened as /sandbox.
// Prints the call's result.
const { join } = require('node:path');
const { readFileSync } = require('node:fs');
const { Worker } = require('node:worker_threads');

const [wasiKind, sandbox, call, arg] = process.argv.slice(2);
const fromStock = require('node:module').createRequire(join(__dirname, 'stock', 'package.json'));
const runtime = fromStock('@napi-rs/wasm-runtime');
const { createContext } = fromStock('@emnapi/runtime');
const wasi = require('./peer-wasi.cjs')(wasiKind, sandbox);

const memory = new WebAssembly.Memory({ initial: 64, maximum: 4096, shared: true });
const { napiModule } = runtime.instantiateNapiModuleSync(readFileSync(join(__dirname, '..', '..', 'build', 'napi', 'peer.wasm')), {
  context: createContext(),
  asyncWorkPoolSize: 0,
  wasi,
  onCreateWorker() {
    const w = new Worker(join(__dirname, 'peer-stock-worker.mjs'), { workerData: { wasiKind, sandbox } });
    w.unref();
    return w;
  },
  overwriteImports(io) {
    io.env = { ...io.env, ...io.napi, ...io.emnapi, memory };
    return io;
  },
});
console.log(napiModule.exports[call](arg));
// trapOnThread detach: the process goes on (as a server would) while the thread traps.
// Long enough for a loaded machine to start the thread and see it trap (the trap ends the process
// at once); a run that outlives it exits 0 and fails the test.
if (call === 'trapOnThread' && arg !== 'join') setTimeout(() => {}, 60_000);
