import { readFileSync } from 'node:fs'; import { createHash } from 'node:crypto';
const { guardThreads } = await import(process.argv[2] + '/thread-guards.js');
const b = readFileSync('/work/wt/napi-node2/tests/napi/stock/node_modules/@rolldown/binding-wasm32-wasi/rolldown-binding.wasm32-wasi.wasm');
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const out = [];
let h;
for (let i = 0; i < 4; i++) { const t = cpu(); const r = guardThreads(b); out.push(Math.round(cpu() - t)); h = createHash('sha256').update(r.bytes).digest('hex').slice(0, 16); }
console.log(process.argv[2].split('/').slice(-3).join('/'), 'cpu ms', out.join(' '), h);
