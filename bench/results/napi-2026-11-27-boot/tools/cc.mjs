import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
const t = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; };
const files = ['/work/wt/napi-node2/runtime/examples/napi/node_modules/@emnapi/core/dist/plugins/index.js', '/work/wt/napi-node2/runtime/examples/napi/node_modules/@emnapi/core/dist/emnapi-core.js', '/work/wt/napi-node2/runtime/examples/napi/node_modules/@emnapi/runtime/dist/emnapi.js'];
if (isMainThread) {
  rmSync('/tmp/nb-cc', { recursive: true, force: true });
  const res = {};
  for (let i = 0; i < 14; i++) for (const mode of ['none', 'cache']) {
    const w = new Worker(new URL(import.meta.url), { workerData: mode });
    const m = await new Promise((r) => w.once('message', r)); await w.terminate();
    if (i > 0) (res[mode] ??= []).push(m);
  }
  const med = (a) => { a = [...a].sort((x, y) => x - y); return a[a.length >> 1]; };
  for (const k in res) console.log(process.version, k, 'require of the pair (thread CPU ms) median', med(res[k].map(x=>x[0])).toFixed(2), 'enable', med(res[k].map(x=>x[1])).toFixed(2));
} else {
  const a = t();
  if (workerData === 'cache') (await import('node:module')).enableCompileCache('/tmp/nb-cc');
  const b = t();
  const req = createRequire(import.meta.url);
  for (const f of files) req(f);
  parentPort.postMessage([t() - b, b - a]);
}
