// Interleaved A/B of new vs base spindle-alloc builds: node ab.mjs RUNS WORK(ring:1,...) CONFIGS(c,rust)
import { execFileSync } from 'node:child_process';
const runs = Number(process.argv[2] ?? 7);
const repo = '/work/wt/alloc-mem';
const base = process.env.BASE ?? '/work/scratch/alloc-mem/base-413f066'; // build/bench/alloc of main at 413f066
const kinds = (process.argv[4] ?? 'c,rust').split(',');
const cfgs = kinds.flatMap((k) => [[`${k}-spindle`, `${repo}/build/bench/alloc/${k}_spindle.wasm`], [`${k}-spindle@base`, `${base}/${k}_spindle.wasm`]]);
const work = (process.argv[3] ?? 'ring:1,ring:2').split(',').map((x) => x.split(':'));
const res = {};
for (let r = 0; r <= runs; r++) {
  for (const [w, t] of work) for (const [name, file] of (r % 2 ? cfgs : [...cfgs].reverse())) {
    const out = execFileSync('node', ['--no-liftoff', `${repo}/runtime/dist/cli.js`, 'run', '--threads', t, file, w, t, '2000000'], { encoding: 'utf8' });
    const m = /ms=([\d.]+) mem_kb=(\d+)/.exec(out);
    if (r === 0) continue; // warm-up
    ((res[`${w} T=${t} ${name}`] ??= []).push(Number(m[1])));
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
for (const [w, t] of work) for (const k of kinds) {
  const a = res[`${w} T=${t} ${k}-spindle`], b = res[`${w} T=${t} ${k}-spindle@base`];
  console.log(`${w} T=${t} ${k}-spindle: min ${Math.min(...a)} med ${med(a)} | base min ${Math.min(...b)} med ${med(b)} | ratio min ${(Math.min(...a) / Math.min(...b)).toFixed(3)} med ${(med(a) / med(b)).toFixed(3)}   [${a.join(' ')}] vs [${b.join(' ')}]`);
}
