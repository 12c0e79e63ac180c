// Host-directory bench (confinement by construction): the same programs on the runtime under test and on a baseline
// runtime (another commit, built by build-base.sh), interleaved run by run, on tmpfs:
//   ops.c      open / stat of 1- and 3-component paths, create, a 16-byte pwrite (ns per operation)
//   workload   bench/fs's reference workload on --dir (create+write 1 KiB+close, open+read+close,
//              stat; 64 files per round, main thread)
// Prints min and median of each figure per runtime and their ratio (this / baseline), with the
// load average before and after; writes the rows as JSON to --out.
//   node bench/hostdir/run.mjs --base-cli OLD/runtime/dist/cli.js [--runs 7] [--n 3000] [--rounds 73] [--out FILE]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const opt = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const baseCli = opt('base-cli');
if (!baseCli || !existsSync(baseCli)) {
  console.error('usage: node bench/hostdir/run.mjs --base-cli OLD/runtime/dist/cli.js [--runs 7] [--n 3000] [--rounds 73] [--out FILE]\n'
    + '(bash bench/hostdir/build-base.sh COMMIT DIR builds OLD)');
  process.exit(2);
}
const runs = Number(opt('runs', 7)), n = Number(opt('n', 3000)), rounds = Number(opt('rounds', 73));
const out = execFileSync('bash', [join(here, 'build.sh')], { encoding: 'utf8' }).trim().split('\n').pop();
const ops = join(out, 'ops.wasm');
const workload = join(repo, 'build', 'bench', 'fs', 'fs-plain.wasm');
const runtimes = { baseline: baseCli, current: join(repo, 'runtime', 'dist', 'cli.js') };
const tmpfs = existsSync('/dev/shm') ? '/dev/shm' : undefined;

function inFreshDir(f) {
  const dir = mkdtempSync(join(tmpfs ?? '/tmp', 'spindle-hostdir-bench-'));
  try { return f(dir); } finally { rmSync(dir, { recursive: true, force: true }); }
}
function spindle(cli, args) {
  const r = spawnSync(process.execPath, [cli, 'run', ...args], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`${cli} run ${args.join(' ')}: status ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
const samples = {}; // samples[metric][runtime] = [...]
const add = (metric, rt, v) => ((samples[metric] ??= {})[rt] ??= []).push(v);
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const loadBefore = load();
for (let i = 0; i < runs; i++) {
  for (const [rt, cli] of Object.entries(runtimes)) {
    const text = inFreshDir((d) => spindle(cli, ['--dir', `${d}::/d`, ops, '/d', String(n)]));
    if (!/ops done/.test(text)) throw new Error(`ops.wasm on ${rt}: ${text}`);
    for (const m of text.matchAll(/op=(\w+) n=\d+ ns_per_op=(\d+)/g)) add(`${m[1]} ns/op`, rt, Number(m[2]));
    const w = inFreshDir((d) => spindle(cli, ['--dir', `${d}::/tmp`, workload, 'main', String(rounds), '/tmp']));
    const m = /ops=(\d+) checksum=\w+ elapsed_ns=(\d+)/.exec(w);
    if (!m || Number(m[1]) !== rounds * 64 * 3) throw new Error(`workload on ${rt}: ${w}`);
    add('workload ns/op', rt, Number(m[2]) / Number(m[1]));
  }
  process.stderr.write(`run ${i + 1}/${runs} done (load ${load()})\n`);
}
const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)] };
};
const rows = Object.entries(samples).map(([metric, by]) => {
  const b = stat(by.baseline), c = stat(by.current);
  return { metric, baseline: b, current: c, ratioMedian: c.median / b.median, ratioMin: c.min / b.min };
});
const loadAfter = load();
console.log(`host-directory bench: ${runs} runs, n=${n}, workload ${rounds} rounds, on ${tmpfs ?? '/tmp'}; ${cpus().length} cores; load ${loadBefore} -> ${loadAfter}`);
console.log('| metric | baseline min / median | current min / median | ratio median (min) |');
console.log('|---|---|---|---|');
const f = (x) => (x >= 10000 ? (x / 1000).toFixed(1) + ' us' : x.toFixed(0) + ' ns');
for (const r of rows) {
  console.log(`| ${r.metric} | ${f(r.baseline.min)} / ${f(r.baseline.median)} | ${f(r.current.min)} / ${f(r.current.median)} | ${r.ratioMedian.toFixed(2)}x (${r.ratioMin.toFixed(2)}x) |`);
}
const file = opt('out');
if (file) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ runs, n, rounds, dir: tmpfs ?? '/tmp', loadBefore, loadAfter, cores: cpus().length, baseline: baseCli, rows, samples }, null, 2) + '\n');
}
