import { Worker } from 'node:worker_threads';
const sets = { none: [], vm: ['node:vm'], url: ['node:url'], os: ['node:os'], all: ['node:vm', 'node:url', 'node:os'] };
const res = {}; let names = {};
for (let r = 0; r < 25; r++) for (const [k, s] of Object.entries(sets)) { const w = new Worker(new URL('./req.cjs', import.meta.url), { workerData: s }); const [c, n] = await new Promise((r) => w.once('message', r)); await w.terminate(); (res[k] ??= []).push(c); names[k] = n; }
const mean = (a) => a.reduce((x, y) => x + y) / a.length;
for (const k in res) console.log(k.padEnd(5), mean(res[k]).toFixed(2), names[k]);
