import { Worker } from 'node:worker_threads';
import { readFileSync, rmSync } from 'node:fs';
const N = Number(process.argv[2] ?? 15);
const files = ['napi-worker.cjs', 'napi-worker.min.cjs', 'napi-worker.ws.cjs'].map((f) => new URL(f, import.meta.url).pathname);
for (const f of files) rmSync(f + '.cache', { force: true });
const lw = new URL('./lw.cjs', import.meta.url);
const src = readFileSync(lw, 'utf8');
const res = {};
const run = async (k, w) => { const m = await new Promise((r) => w.once('message', r)); await w.terminate(); let prev = 0; for (const [p, c] of m.P) { ((res[k] ??= {})[p] ??= []).push(c - prev); prev = c; } (res[k].total ??= []).push(prev); };
for (const f of files) await run('warm', new Worker(lw, { workerData: { file: f } }));
for (let r = 0; r < N; r++) for (const f of files) for (const mode of ['file', 'eval']) {
  const k = `${f.split('/').pop()} ${mode}`;
  await run(k, mode === 'file' ? new Worker(lw, { workerData: { file: f } }) : new Worker(src, { eval: true, workerData: { file: f } }));
}
const med = (a) => { a = [...a].sort((x, y) => x - y); return a[a.length >> 1]; };
for (const [k, ph] of Object.entries(res)) if (k !== 'warm') console.log(k.padEnd(26), Object.entries(ph).map(([p, a]) => `${p} ${med(a).toFixed(2)}`).join(' | '));
