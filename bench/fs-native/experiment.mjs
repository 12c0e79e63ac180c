/**
 * The fs-native experiment of `spindle bench` (`--only fs-native`): the reference filesystem
 * workload on the spindle-fs core compiled natively, against std::fs on tmpfs, at T = 1 and 2
 * (crates/spindle-fs/examples/bench.rs, which does its own runs: min and median round time of
 * `ctx.runs` runs, at least 5). Rows: variant T=n, config spindle-fs | std-fs, metric ns per call
 * (7 calls per file, 64 files per round); throughput scaling in goals().
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const id = 'fs-native';
export const title = 'spindle-fs core natively vs std::fs on tmpfs (reference fs workload, T = 1, 2)';
export const needs = [];
export const runByDefault = false;
export const notes = [
  'Per round over 64 files: create + write 1 KiB + close, open + read + close, stat (7 calls per file); each thread on its own subdirectory.',
  'Built with `cargo build --release -p spindle-fs --example bench`; the example times its own runs (min and median round time).',
];
export const charts = [];
export const params = { rounds: 'rounds per thread per run (default 1000; 200 with --quick)' };

const CONFIGS = { 'spindle-fs': 'spindle-fs', 'std::fs (tmpfs)': 'std-fs' };
const LINE = /^(spindle-fs|std::fs \(tmpfs\))\s+T=(\d+): round min\s+(\d+) ns\s+median\s+(\d+) ns\s+\(\s*([\d.]+) ns\/call\)\s+throughput\s+(\d+) rounds\/s/;
const CALLS_PER_ROUND = 64 * 7;

export function unavailable() {
  const r = spawnSync('cargo', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : 'cargo is not installed (rustup)';
}

/** Rows from the example's output lines; throws if a configuration is missing. */
export function parseRows(stdout) {
  const rows = [];
  for (const line of stdout.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const [, target, t, min, median, , throughput] = m;
    rows.push({
      experiment: id, variant: `T=${t}`, config: CONFIGS[target], metric: 'ns_per_call', unit: 'ns', runs: NaN,
      min: Number(min) / CALLS_PER_ROUND, median: Number(median) / CALLS_PER_ROUND, baseline: 'std-fs',
      ratio_min: NaN, ratio_median: NaN, ok: true, note: `throughput ${throughput} rounds/s (best run)`, samples: [],
      throughput: Number(throughput),
    });
  }
  for (const t of [1, 2]) {
    for (const c of Object.values(CONFIGS)) {
      if (!rows.some((r) => r.variant === `T=${t}` && r.config === c)) throw new Error(`the example printed no line for ${c} T=${t}`);
    }
  }
  for (const r of rows) {
    const base = rows.find((b) => b.variant === r.variant && b.config === 'std-fs');
    r.ratio_min = r.min / base.min;
    r.ratio_median = r.median / base.median;
  }
  return rows;
}

export async function run(ctx) {
  const rounds = Number(ctx.params?.['fs-native.rounds'] ?? (ctx.quick ? 200 : 1000));
  if (!(Number.isInteger(rounds) && rounds > 0)) throw new Error('fs-native.rounds must be a whole number > 0');
  ctx.log('fs-native: cargo build --release -p spindle-fs --example bench');
  const b = spawnSync('cargo', ['build', '-q', '--release', '-p', 'spindle-fs', '--example', 'bench'], { cwd: ctx.repo, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`cargo build failed: ${(b.stderr || '').trim().split('\n').slice(-3).join(' | ')}`);
  const runs = Math.max(5, ctx.runs);
  const r = spawnSync(join(ctx.repo, 'target', 'release', 'examples', 'bench'), [String(rounds), String(runs)], { encoding: 'utf8', timeout: 1_800_000 });
  if (r.status !== 0) throw new Error(`the fs bench example failed (status ${r.status}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
  return parseRows(r.stdout).map((row) => ({ ...row, runs }));
}

/** Throughput scaling T=2 / T=1 of each configuration (best runs). */
export function goals(rows) {
  const thr = (c, t) => rows.find((r) => r.config === c && r.variant === `T=${t}`)?.throughput;
  return Object.values(CONFIGS).filter((c) => thr(c, 1) && thr(c, 2))
    .map((c) => `fs-native T=2 / T=1 throughput, ${c}: ${(thr(c, 2) / thr(c, 1)).toFixed(2)}x`);
}
