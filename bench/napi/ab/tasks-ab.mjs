// Interleaved runs of tests/napi/work.mjs (or any command printing its JSON line) with the
// tasks.mjs preload; per config: median (min) of the job figures and of the CPU time (ms, from
// /proc/self/task/*/schedstat at exit) per thread class: main, v8 (V8's platform threads), busy
// workers (a worker thread with > 80 ms), light workers, and the worker counts.
//   node tasks-ab.mjs ROUNDS CONFIGS.json
//   CONFIGS: [{ "label", "node": a node binary, "args": [work.mjs, route, ...], "env": {} }]
// Every other round runs the configurations in the reverse order, as the bench harness does
// (bench/harness/lib/measure.mjs), so that what repeats within each round (a configuration always
// following the same one) does not favour one place. The same configuration three times in one
// order gave medians 4% apart (bench/results/napi-2026-11-28-heap, ab-aaa.txt): read differences
// of that size as noise.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
const [rounds, file] = process.argv.slice(2);
const configs = JSON.parse(readFileSync(file, 'utf8'));
const res = Object.fromEntries(configs.map((c) => [c.label, []]));
for (let r = 0; r < Number(rounds); r++) for (const c of r % 2 ? [...configs].reverse() : configs) {
  const p = spawnSync(c.node, ['--import', new URL('./tasks.mjs', import.meta.url).href, ...c.args], { encoding: 'utf8', env: { ...process.env, ...(c.env ?? {}) } });
  const j = JSON.parse(p.stdout.trim().split('\n').pop());
  const tasks = JSON.parse(p.stderr.split('\n').find((l) => l.startsWith('TASKS ')).slice(6));
  if (tasks.every((t) => t[0] === 'node')) { // Node 20 names no thread: main first, then DelayedTaskScheduler, 4 platform threads
    tasks.sort((a, b) => Number(a[2]) - Number(b[2]));
    tasks.forEach((t, i) => { t[0] = i === 0 ? 'node-MainThread' : i >= 2 && i <= 5 ? 'node-V8Worker' : t[1] > 5 ? 'WorkerThread' : 'other'; });
  }
  const sum = (f) => tasks.filter(f).reduce((a, t) => a + t[1], 0);
  const workers = tasks.filter((t) => t[0] === 'WorkerThread');
  res[c.label].push({ jobMs: j.jobMs, firstMs: j.firstMs, loadMs: j.loadMs, loadCpu: j.loadCpuMs, rssMb: Math.round(j.maxRssKb / 1024), jobCpuMs: j.jobCpuMs, cpuMs: j.cpuMs,
    main: sum((t) => t[0] === 'node-MainThread'), v8: sum((t) => t[0] === 'node-V8Worker'),
    busy: workers.filter((t) => t[1] > 80).reduce((a, t) => a + t[1], 0), light: workers.filter((t) => t[1] <= 80).reduce((a, t) => a + t[1], 0),
    nWorkers: workers.length, nBusy: workers.filter((t) => t[1] > 80).length });
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const keys = Object.keys(res[configs[0].label][0]);
console.log(['label', ...keys].join(' | '));
for (const c of configs) console.log([c.label, ...keys.map((k) => { const v = res[c.label].map((x) => x[k]); return `${Math.round(med(v))}(${Math.round(Math.min(...v))})`; })].join(' | '));
