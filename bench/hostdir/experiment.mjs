/**
 * The host-directory experiment: what confinement by construction costs. The same programs on the
 * runtime under test and on a baseline runtime built from another commit (--param
 * hostdir.baseline=DIR, a checkout built by bench/hostdir/build-base.sh), interleaved run by run,
 * each run in a fresh directory on tmpfs (/dev/shm), so that the figures are spindle's work per
 * call, not a disk's:
 *
 *   ops.c      open / stat of 1- and 3-component paths, create, a 16-byte pwrite (ns per
 *              operation, timed inside the program)
 *   workload   bench/fs's reference workload on --dir (create + write 1 KiB + close, open + read
 *              + close, stat; 64 files per round, main thread), ns per operation
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand, describeFailure } from '../harness/lib/proc.mjs';
import { min, median } from '../harness/lib/stats.mjs';
import { withRatios } from '../harness/lib/measure.mjs';

export const id = 'hostdir';
export const title = 'Host directories (--dir): operations and the fs workload against a baseline commit';
export const needs = ['programs'];
export const runByDefault = false;
export const params = {
  baseline: 'a checkout of the baseline commit with its runtime built (bash bench/hostdir/build-base.sh COMMIT DIR); required',
  n: 'operations per kind per run in ops.c (default 3000; 1000 with --quick)',
  rounds: 'rounds of the fs workload per run (default 73; 20 with --quick)',
};
export const notes = [
  'Each run is a fresh directory on /dev/shm (tmpfs) when the host has it, else the temp directory.',
  'Goal: the runtime FS workload on --dir within 1.5x of the baseline (median).',
];
export const charts = [{ file: 'hostdir.svg', kind: 'bars', title: 'Host directories: ns per operation', metric: 'ns_per_op' }];

const OPS = ['open1', 'open3', 'stat1', 'stat3', 'create', 'write'];
const baselineCli = (ctx) => ctx.params?.['hostdir.baseline'] && join(ctx.params['hostdir.baseline'], 'runtime', 'dist', 'cli.js');

export function unavailable(ctx) {
  const cli = baselineCli(ctx);
  if (!cli) return 'no baseline: --param hostdir.baseline=DIR (bash bench/hostdir/build-base.sh COMMIT DIR builds one)';
  return existsSync(cli) ? undefined : `${cli} is missing: build the baseline with bash bench/hostdir/build-base.sh COMMIT DIR`;
}

/** Runs `f(dir)` in a fresh directory that is removed afterwards. */
async function inFreshDir(f) {
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : '/tmp', 'spindle-hostdir-bench-'));
  try { return await f(dir); } finally { rmSync(dir, { recursive: true, force: true }); }
}

/** One run of both programs on one runtime: { metric: ns per op }. Throws on a wrong output. */
async function oneRun(cli, prog, n, rounds) {
  const run = async (args) => {
    const r = await runCommand(process.execPath, [cli, 'run', ...args], { timeoutMs: 600_000 });
    if (r.code !== 0 || r.timedOut) throw new Error(describeFailure(r));
    return r.stdout;
  };
  const out = {};
  const text = await inFreshDir((d) => run(['--dir', `${d}::/d`, prog.ops, '/d', String(n)]));
  for (const m of text.matchAll(/op=(\w+) n=\d+ ns_per_op=(\d+)/g)) out[m[1]] = Number(m[2]);
  for (const op of OPS) if (!Number.isFinite(out[op])) throw new Error(`ops.wasm printed no ${op}: ${text.slice(0, 300)}`);
  const w = await inFreshDir((d) => run(['--dir', `${d}::/tmp`, prog.workload, 'main', String(rounds), '/tmp']));
  const m = /ops=(\d+) checksum=\w+ elapsed_ns=(\d+)/.exec(w);
  if (!m || Number(m[1]) !== rounds * 64 * 3) throw new Error(`fs workload: unexpected output ${w.slice(0, 300)}`);
  out.workload = Number(m[2]) / Number(m[1]);
  return out;
}

export async function run(ctx) {
  const n = Number(ctx.params?.['hostdir.n'] ?? (ctx.quick ? 1000 : 3000));
  const rounds = Number(ctx.params?.['hostdir.rounds'] ?? (ctx.quick ? 20 : 73));
  const dir = execFileSync('bash', [join(ctx.repo, 'bench', 'hostdir', 'build.sh')], { encoding: 'utf8' }).trim().split('\n').pop();
  const prog = { ops: join(dir, 'ops.wasm'), workload: join(ctx.repo, 'build', 'bench', 'fs', 'fs-plain.wasm') };
  const runtimes = [
    { config: 'baseline', cli: baselineCli(ctx), note: `runtime of ${ctx.params['hostdir.baseline']}` },
    { config: 'current', cli: ctx.spindleCli, note: 'the runtime under test' },
  ];
  const samples = Object.fromEntries(runtimes.map((r) => [r.config, {}]));
  for (let i = -1; i < ctx.runs; i++) { // run -1: warm-up, not counted
    for (const rt of runtimes) {
      const got = await oneRun(rt.cli, prog, n, rounds);
      if (i < 0) continue;
      for (const [k, v] of Object.entries(got)) (samples[rt.config][k] ??= []).push(v);
    }
    if (i >= 0) ctx.log(`hostdir: run ${i + 1}/${ctx.runs} done`);
  }
  const rows = [];
  for (const rt of runtimes) {
    for (const op of [...OPS, 'workload']) {
      const v = samples[rt.config][op];
      rows.push({
        experiment: id, variant: op, config: rt.config, metric: 'ns_per_op', unit: 'ns', runs: v.length,
        min: min(v), median: median(v), baseline: 'baseline', ratio_min: NaN, ratio_median: NaN,
        ok: true, error: '', note: rt.note, samples: v,
      });
    }
  }
  return withRatios(rows);
}

export function goals(rows) {
  const w = rows.find((r) => r.variant === 'workload' && r.config === 'current');
  if (!w || !Number.isFinite(w.ratio_median)) return ['fs workload on --dir within 1.5x of the baseline: NOT MEASURED'];
  return [`fs workload on --dir within 1.5x of the baseline: ${w.ratio_median <= 1.5 ? 'MET' : 'NOT MET'} (${w.ratio_median.toFixed(2)}x by median, ${w.ratio_min.toFixed(2)}x by min)`];
}
