// compile cost of napi-worker.cjs with cache variants (file loader), Node 26 threadCpuUsage
import { Worker } from 'node:worker_threads';
import { readFileSync, writeFileSync, copyFileSync } from 'node:fs';
const [file, ...caches] = process.argv.slice(2);
const lw = new URL('./lw2.cjs', import.meta.url);
const res = {};
const med = (a) => { a = [...a].sort((x, y) => x - y); return a[a.length >> 1]; };
for (let r = 0; r < 15; r++) for (const c of ['none', ...caches]) {
  const w = new Worker(lw, { workerData: { file, cache: c === 'none' ? undefined : c } });
  const m = await new Promise((r) => w.once('message', r)); await w.terminate();
  let prev = 0; for (const [p, v] of m.P) { ((res[c] ??= {})[p] ??= []).push(v - prev); prev = v; }
  (res[c].rej ??= []).push(m.rej ? 1 : 0);
}
for (const [k, ph] of Object.entries(res)) console.log(k.split('/').pop().padEnd(26), Object.entries(ph).map(([p, a]) => `${p} ${med(a).toFixed(2)}`).join(' | '));
