// Rewrite time of a module by each version (each in a fresh process: cold JIT, as at start-up), N runs.
import { readFileSync } from 'node:fs';
const [dir, file] = process.argv.slice(2);
const { guardThreads } = await import(`${dir}/thread-guards.js`);
const bytes = new Uint8Array(readFileSync(file));
const t0 = process.cpuUsage();
const r = guardThreads(bytes);
const u = process.cpuUsage(t0);
const t1 = process.hrtime.bigint();
const ok = WebAssembly.validate(r.bytes);
const v = Number(process.hrtime.bigint() - t1) / 1e6;
console.log(JSON.stringify({ cpu_ms: (u.user + u.system) / 1000, bytes: r.bytes.length, grew: r.bytes.length - bytes.length, bulk: r.bulk, waits: r.waits, atomics: r.atomics, elided: r.elided, functions: r.functions, unchanged: r.unchanged, valid: ok, validate_ms: v }));
