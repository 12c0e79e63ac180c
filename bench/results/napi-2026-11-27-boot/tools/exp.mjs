import { readFileSync } from 'node:fs';
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';
const W = '/work/wt/napi-node2/tests/napi/stock/node_modules/@rolldown/binding-wasm32-wasi/rolldown-binding.wasm32-wasi.wasm';
const t = () => process.threadCpuUsage ? ((u) => (u.user + u.system) / 1000)(process.threadCpuUsage()) : Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
const hr = () => performance.now();
if (isMainThread) {
  const mod = new WebAssembly.Module(readFileSync(W));
  const mem = new WebAssembly.Memory({ initial: 1100, maximum: 65536, shared: true });
  const res = { inst: [], assign: [] };
  for (let i = 0; i < 12; i++) {
    const w = new Worker(new URL(import.meta.url), { workerData: { mod, mem } });
    const m = await new Promise((r) => w.once('message', r)); await w.terminate();
    res.inst.push(m[0]); res.assign.push(m[1]);
  }
  const med = (a) => { a = [...a].sort((x, y) => x - y); return a[a.length >> 1]; };
  console.log(process.version, 'new Instance (wall ms) median', med(res.inst).toFixed(2), '| Object.assign of exports', med(res.assign).toFixed(2));
} else {
  const { mod, mem } = workerData;
  const io = {};
  for (const i of WebAssembly.Module.imports(mod)) { (io[i.module] ??= {}); io[i.module][i.name] = i.kind === 'memory' ? mem : () => 0; }
  const a = hr(); const inst = new WebAssembly.Instance(mod, io); const b = hr();
  const o = Object.assign({}, inst.exports); const c = hr();
  parentPort.postMessage([b - a, c - b]);
}
