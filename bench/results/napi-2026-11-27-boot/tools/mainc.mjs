import { Worker, SHARE_ENV } from 'node:worker_threads';
const t = () => process.threadCpuUsage ? ((u) => (u.user + u.system) / 1000)(process.threadCpuUsage()) : NaN;
const sab = new SharedArrayBuffer(1 << 20);
const variants = {
  plain: {},
  spindle: { env: SHARE_ENV, stdout: false, stderr: false, trackUnmanagedFds: false, resourceLimits: { maxOldGenerationSizeMb: 2047 } },
  stdoutTrue: { env: SHARE_ENV, stdout: true, stderr: true, trackUnmanagedFds: false, resourceLimits: { maxOldGenerationSizeMb: 2047 } },
};
const res = {};
for (let r = 0; r < 20; r++) for (const [k, o] of Object.entries(variants)) {
  const ws = []; const a = t();
  for (let i = 0; i < 4; i++) ws.push(new Worker(new URL('./first.cjs', import.meta.url), { ...o, workerData: { sab, x: 'a'.repeat(1000) } }));
  const b = t();
  await Promise.all(ws.map((w) => new Promise((r) => w.once('message', r))));
  await Promise.all(ws.map((w) => w.terminate()));
  (res[k] ??= []).push((b - a) / 4);
}
const med = (a) => { a = [...a].sort((x, y) => x - y); return a[a.length >> 1]; };
for (const k in res) console.log(k.padEnd(12), 'per new Worker (main thread CPU)', med(res[k]).toFixed(2));
