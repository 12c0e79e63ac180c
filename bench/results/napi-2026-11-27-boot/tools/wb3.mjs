import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
const mod = new WebAssembly.Module(readFileSync('/work/wt/napi-node2/tests/napi/stock/node_modules/@rolldown/binding-wasm32-wasi/rolldown-binding.wasm32-wasi.wasm'));
const mem = new WebAssembly.Memory({ initial: 20, maximum: 65536, shared: true });
const N = 15, res = {};
const variants = { none: () => ({}), module: () => ({ module: mod }), memory: () => ({ memory: mem }), both: () => ({ module: mod, memory: mem, sab: new SharedArrayBuffer(1<<20) }) };
for (let r = 0; r < N; r++) for (const [k, f] of Object.entries(variants)) {
  const w = new Worker(new URL('./first.cjs', import.meta.url), { workerData: f() });
  const cpu = await new Promise((r) => w.once('message', r)); await w.terminate(); (res[k] ??= []).push(cpu);
}
const med = (a) => { a = [...a].sort((x, y) => x - y); return a[a.length >> 1]; };
for (const [k, a] of Object.entries(res)) console.log(k.padEnd(8), med(a).toFixed(2), Math.min(...a).toFixed(2));
