#!/usr/bin/env node
// The allocator benchmark: one command, every configuration, ratios against baselines measured in
// the same run.
//
//   node bench/alloc/run.mjs [--runs N] [--scale F] [--only WORKLOAD] [--threads 1,2,4]
//                            [--default-pool] [--out NAME] [--no-build]
//
// The runtime starts with as many pool workers as the program will have threads (`spindle run
// --threads N`: T for ring/article, 2T for larson, whose chains overlap), so no worker boots
// inside the timed region. --default-pool keeps the runtime's default (one worker per core): then
// at T=4 on 2 cores two workers boot while the workload runs.
// Every run's checksum must equal the native C program's for the same workload and T (taken
// first, once per workload and T); a run that differs counts as failed.
//
// Builds the configurations (bench/alloc/build.sh), then runs each workload x thread count
// x configuration N times (default 5), interleaved round-robin so load changes hit every
// configuration alike. wasm configurations run on the spindle runtime with V8's optimizing tier
// only (`node --no-liftoff`): a thread's loop entered once otherwise stays in baseline code.
// Writes bench/alloc/results/results.json and results.csv and prints a table: min and median
// wall time of the workload (measured inside the program), speedup of the median against
// wasi-libc's dlmalloc (C) and, for Rust, against Rust's default allocator, and peak memory
// (linear memory size at the end on wasm; max RSS natively).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const out = join(repo, 'build', 'bench', 'alloc');
// SPINDLE_CLI: another build of the runtime's CLI (e.g. a snapshot, while runtime/dist is rebuilt).
const cli = process.env.SPINDLE_CLI ?? join(repo, 'runtime', 'dist', 'cli.js');

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i < 0 ? dflt : argv[i + 1];
};
const RUNS = Number(opt('--runs', 5));
const SCALE = Number(opt('--scale', 1));
const ONLY = opt('--only', null);
const OUT = opt('--out', 'results'); // base name of the result files
const POOL = !argv.includes('--default-pool');
const THREADS = opt('--threads', null)?.split(',').map(Number);

// Workloads: (a) ring, (b) xfree, (c) larson, (d) article; (e) peak memory is read off (a).
// TOTAL is the number of malloc/free pairs of the whole run (shared by the threads).
const M = 1_000_000;
const workloads = [
  { id: 'a', name: 'ring', threads: [1, 2, 4], total: 4 * M },
  { id: 'b', name: 'xfree', threads: [2], total: 2 * M },
  { id: 'c', name: 'larson', threads: [1, 2, 4], total: 2 * M },
  // The article's shape is 100M pairs; scaled down (same per-pair work) to keep the run short.
  { id: 'd', name: 'article', threads: [1, 2, 4], total: 10 * M },
].filter((w) => !ONLY || w.name === ONLY || w.id === ONLY)
  .map((w) => (THREADS && w.name !== 'xfree' ? { ...w, threads: THREADS } : w));

const mimallocSo = ['/usr/lib/x86_64-linux-gnu/libmimalloc.so.2', '/usr/lib/x86_64-linux-gnu/libmimalloc.so']
  .find((p) => existsSync(p));

const configs = [
  { name: 'c-dlmalloc', lang: 'c', wasm: 'c_dlmalloc.wasm' },
  { name: 'c-spindle', lang: 'c', wasm: 'c_spindle.wasm' },
  { name: 'rust-default', lang: 'rust', wasm: 'rust_default.wasm' },
  { name: 'rust-spindle', lang: 'rust', wasm: 'rust_spindle.wasm' },
  { name: 'rust-mimalloc', lang: 'rust', wasm: 'rust_mimalloc.wasm' },
  { name: 'native-glibc', lang: 'native', bin: 'c_native' },
  ...(mimallocSo ? [{ name: 'native-mimalloc', lang: 'native', bin: 'c_native', env: { LD_PRELOAD: mimallocSo } }] : []),
].filter((c) => existsSync(join(out, c.wasm ?? c.bin)) || !argv.includes('--no-build'));

if (!argv.includes('--no-build')) {
  const b = spawnSync('bash', [join(here, 'build.sh')], { stdio: 'inherit' });
  if (b.status !== 0) process.exit(1);
}
if (!existsSync(cli)) {
  console.error(`${cli} is missing: build the runtime first (cd runtime && npm run build)`);
  process.exit(1);
}
const available = configs.filter((c) => existsSync(join(out, c.wasm ?? c.bin)));

function runOnce(c, w, t, total, checksum) {
  const args = [w.name, String(t), String(total)];
  const pool = POOL ? ['--threads', String(w.name === 'larson' ? 2 * t : t)] : [];
  const r = c.wasm
    ? spawnSync(process.execPath, ['--no-liftoff', cli, 'run', ...pool, join(out, c.wasm), ...args], { encoding: 'utf8', timeout: 600_000 })
    : spawnSync(join(out, c.bin), args, { encoding: 'utf8', timeout: 600_000, env: { ...process.env, ...(c.env ?? {}) } });
  const m = /RESULT .* ms=([\d.]+) mem_kb=(\d+) checksum=([0-9a-f]+)/.exec(r.stdout ?? '');
  if (m && checksum !== undefined && m[3] !== checksum) {
    const error = `${c.name} ${args.join(' ')}: checksum mismatch: got ${m[3]}, expected ${checksum} (from the native C run)`;
    console.error(error);
    return { error };
  }
  if (r.status !== 0 || !m) {
    // Recorded, not thrown: a failed run is a result too (and must show in the report).
    const error = `${c.name} ${args.join(' ')} failed (status ${r.status}): ${(r.stderr ?? '').trim().split('\n').pop()}`;
    console.error(error);
    return { error };
  }
  return { ms: Number(m[1]), memKb: Number(m[2]), checksum: m[3] };
}

/** The native C program's checksum for workload `w` at `t` threads: what every run must print. */
function referenceChecksum(w, t, total) {
  const r = runOnce({ name: 'native-glibc (reference)', bin: 'c_native' }, w, t, total);
  if (r.error) {
    console.error(`bench/alloc: the native reference run failed, so no checksum to check against: ${r.error}`);
    process.exit(1);
  }
  return r.checksum;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const started = new Date().toISOString();
const load0 = loadavg()[0];
const rows = [];
for (const w of workloads) {
  for (const t of w.threads) {
    const total = Math.max(1000, Math.round(w.total * SCALE));
    const samples = new Map(available.map((c) => [c.name, []]));
    const checksum = referenceChecksum(w, t, total);
    for (let i = 0; i < RUNS; i++) {
      for (const c of available) samples.get(c.name).push(runOnce(c, w, t, total, checksum));
    }
    const ok = (name) => samples.get(name).filter((x) => !x.error);
    const med = (name) => median(ok(name).map((s) => s.ms));
    for (const c of available) {
      const failures = samples.get(c.name).filter((x) => x.error).map((x) => x.error);
      const s = ok(c.name);
      const ms = s.map((x) => x.ms);
      const row = {
        workload: `${w.id}-${w.name}`, threads: t, total, config: c.name,
        min_ms: Math.min(...ms), median_ms: median(ms), runs_ms: ms,
        speedup_vs_c_dlmalloc: +(med('c-dlmalloc') / median(ms)).toFixed(3),
        speedup_vs_rust_default: c.lang === 'rust' ? +(med('rust-default') / median(ms)).toFixed(3) : null,
        peak_mem_kb: Math.max(...s.map((x) => x.memKb)),
        failures,
      };
      rows.push(row);
      console.log([row.workload, `T=${t}`, c.name.padEnd(16), `min ${row.min_ms.toFixed(1)} ms`,
        `median ${row.median_ms.toFixed(1)} ms`, `x${row.speedup_vs_c_dlmalloc} vs c-dlmalloc`,
        row.speedup_vs_rust_default == null ? '' : `x${row.speedup_vs_rust_default} vs rust-default`,
        `mem ${row.peak_mem_kb} KiB`, failures.length ? `FAILED ${failures.length}/${RUNS}` : ''].join('  '));
    }
  }
}

const size = (f) => (existsSync(join(out, f)) ? statSync(join(out, f)).size : null);
const codeSize = {
  hello_c_dlmalloc: size('hello_c_dlmalloc.wasm'), hello_c_spindle: size('hello_c_spindle.wasm'),
  hello_rust_default: size('hello_rust_default.wasm'), hello_rust_spindle: size('hello_rust_spindle.wasm'),
};
console.log(`code size (stripped hello world): C ${codeSize.hello_c_dlmalloc} -> ${codeSize.hello_c_spindle} bytes `
  + `(+${codeSize.hello_c_spindle - codeSize.hello_c_dlmalloc}); Rust ${codeSize.hello_rust_default} -> `
  + `${codeSize.hello_rust_spindle} (+${codeSize.hello_rust_spindle - codeSize.hello_rust_default})`);

const resultsDir = join(here, 'results');
mkdirSync(resultsDir, { recursive: true });
const meta = {
  started, finished: new Date().toISOString(), node: process.version, cpus: cpus().length,
  cpu: cpus()[0]?.model, loadavg_start: load0, loadavg_end: loadavg()[0], runs: RUNS, scale: SCALE, pool: POOL,
  command: `node bench/alloc/run.mjs ${argv.join(' ')}`.trim(),
};
writeFileSync(join(resultsDir, `${OUT}.json`), JSON.stringify({ meta, codeSize, rows }, null, 1) + '\n');
const header = 'workload,threads,total,config,min_ms,median_ms,speedup_vs_c_dlmalloc,speedup_vs_rust_default,peak_mem_kb,failed_runs';
writeFileSync(join(resultsDir, `${OUT}.csv`), [header, ...rows.map((r) => [r.workload, r.threads, r.total, r.config,
  r.min_ms, r.median_ms, r.speedup_vs_c_dlmalloc, r.speedup_vs_rust_default ?? '', r.peak_mem_kb, r.failures.length].join(','))].join('\n') + '\n');
console.log(`wrote ${join(resultsDir, OUT)}.json and .csv (load average ${load0.toFixed(1)} -> ${loadavg()[0].toFixed(1)} on ${cpus().length} cpus)`);
