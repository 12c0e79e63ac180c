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
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inFreshDir } from '../harness/lib/proc.mjs';
import { measure, withRatios } from '../harness/lib/measure.mjs';

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

/** ns per operation of each kind from ops.c's output; throws on a wrong output. */
function opsCheck(r) {
  const out = {};
  for (const m of r.stdout.matchAll(/op=(\w+) n=\d+ ns_per_op=(\d+)/g)) out[m[1]] = Number(m[2]);
  for (const op of OPS) if (!Number.isFinite(out[op])) throw new Error(`ops.wasm printed no ${op}: ${r.stdout.slice(0, 300)}`);
  return out;
}

/** ns per operation of the fs workload (64 files x 3 operations per round); throws on a wrong output. */
const workloadCheck = (rounds) => (r) => {
  const m = /ops=(\d+) checksum=\w+ elapsed_ns=(\d+)/.exec(r.stdout);
  if (!m || Number(m[1]) !== rounds * 64 * 3) throw new Error(`fs workload: unexpected output ${r.stdout.slice(0, 300)}`);
  return { workload: Number(m[2]) / Number(m[1]) };
};

export async function run(ctx) {
  const n = Number(ctx.params?.['hostdir.n'] ?? (ctx.quick ? 1000 : 3000));
  const rounds = Number(ctx.params?.['hostdir.rounds'] ?? (ctx.quick ? 20 : 73));
  const dir = execFileSync('bash', [join(ctx.repo, 'bench', 'hostdir', 'build.sh')], { encoding: 'utf8' }).trim().split('\n').pop();
  const ops = join(dir, 'ops.wasm'), workload = join(ctx.repo, 'build', 'bench', 'fs', 'fs-plain.wasm');
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const runtimes = [
    { config: 'baseline', cli: baselineCli(ctx), note: `runtime of ${ctx.params['hostdir.baseline']}` },
    { config: 'current', cli: ctx.spindleCli, note: 'the runtime under test' },
  ];
  // Each program on both runtimes, interleaved run by run; a row per kind of operation.
  const spec = (variant, keys, check, args) => ({
    experiment: id, variant, baseline: 'baseline', timeoutMs: 600_000, metrics: keys.map((key) => ({ key, unit: 'ns' })),
    configs: runtimes.map((rt) => ({ ...rt, check, cmd: inFreshDir(process.execPath, [rt.cli, 'run', ...args], base) })),
  });
  const rows = [
    ...await measure(ctx, spec('ops', OPS, opsCheck, ['--dir', '@DIR::/d', ops, '/d', String(n)])),
    ...await measure(ctx, spec('workload', ['workload'], workloadCheck(rounds), ['--dir', '@DIR::/tmp', workload, 'main', String(rounds), '/tmp'])),
  ];
  return withRatios(rows.map((r) => ({ ...r, variant: r.metric, metric: 'ns_per_op' })));
}

export function goals(rows) {
  const w = rows.find((r) => r.variant === 'workload' && r.config === 'current');
  if (!w || !Number.isFinite(w.ratio_median)) return ['fs workload on --dir within 1.5x of the baseline: NOT MEASURED'];
  return [`fs workload on --dir within 1.5x of the baseline: ${w.ratio_median <= 1.5 ? 'MET' : 'NOT MET'} (${w.ratio_median.toFixed(2)}x by median, ${w.ratio_min.toFixed(2)}x by min)`];
}
