// Interleaved A/B/C of spindle-alloc builds: node ab.mjs RUNS WORK KINDS NAME=DIR... (first NAME is the reference)
//   WORK: ring:1,ring:2,article:1,article:2   KINDS: c,rust   DIR holds c_spindle.wasm and rust_spindle.wasm
// Each round runs every workload x every build (order reversed every other round); round 0 is a warm-up.
// Node 20, default mode (no flags), the spindle CLI: node runtime/dist/cli.js run --threads T prog.wasm WORK T 2000000
import { execFileSync } from 'node:child_process';
const [runsArg, workArg, kindsArg, ...dirs] = process.argv.slice(2);
const runs = Number(runsArg);
const repo = process.env.REPO ?? '/work/wt/alloc-mem';
const nodeFlags = (process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean);
const kinds = kindsArg.split(',');
const builds = dirs.map((d) => d.split('='));
const cfgs = kinds.flatMap((k) => builds.map(([n, d]) => [k, n, `${d}/${k}_spindle.wasm`]));
const work = workArg.split(',').map((x) => x.split(':'));
const res = {}, mem = {};
for (let r = 0; r <= runs; r++) {
  for (const [w, t] of work) for (const [k, n, file] of (r % 2 ? cfgs : [...cfgs].reverse())) {
    const out = execFileSync('node', [...nodeFlags, `${repo}/runtime/dist/cli.js`, 'run', '--threads', t, file, w, t, '2000000'], { encoding: 'utf8' });
    const m = /ms=([\d.]+) mem_kb=(\d+) checksum=(\w+)/.exec(out);
    if (r === 0) continue;
    const key = `${w} T=${t} ${k}`;
    ((res[key] ??= {})[n] ??= []).push(Number(m[1]));
    ((mem[key] ??= {})[n] ??= new Set()).add(`${m[2]}/${m[3]}`);
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const ref = builds[0][0];
for (const key of Object.keys(res)) {
  const a = res[key][ref];
  for (const [n] of builds) {
    const b = res[key][n];
    console.log(`${key.padEnd(16)} ${n.padEnd(14)} min ${Math.min(...b).toFixed(1).padStart(6)} med ${med(b).toFixed(1).padStart(6)} | vs ${ref}: min ${(Math.min(...b) / Math.min(...a)).toFixed(3)} med ${(med(b) / med(a)).toFixed(3)}  kb/checksum ${[...mem[key][n]].join(',')}  [${b.join(' ')}]`);
  }
}
