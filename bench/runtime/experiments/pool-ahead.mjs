/**
 * The pool-ahead experiment (issue 17 item 3: a pool that stays ahead of demand), in Node:
 *
 *   T = cores vs T = 2 x cores   math (bench/programs/math.c) and malloc (workload ring, the C
 *                                program linked with spindle-alloc: build/bench/browser/c_spindle.wasm
 *                                from bench/browser/build.sh), default options: the goal is
 *                                time(2 x cores) / time(cores) <= 1.1 for both
 *   idle workers' CPU time       math T=1 with the default pool (2 x cores workers prewarmed, all
 *                                but one idle for the whole run) vs --threads 1 (the one worker
 *                                the thread needs): an idle worker must wait, not spin
 *
 * Configurations: spindle (this runtime), spindle-before (an older checkout's CLI, `--param
 * pool-ahead.before=DIR`: the baseline of the ratios), native (gcc -O2 -pthread: what T > cores
 * costs the workload itself; malloc natively is the same C program with glibc's malloc).
 * All variants run in ONE interleaved loop, so a ratio across T compares runs of the same moments.
 * compute = the program's own time around its work (math: create .. join; malloc: the workload);
 * exit = the parent's wall time; cpu = user + system time of the whole process (GNU time).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describeFailure, runCommand } from '../../harness/lib/proc.mjs';
import { measure, parseLine, withRatios } from '../../harness/lib/measure.mjs';
import { rusageUnavailable, underRusage } from '../../harness/lib/rusage.mjs';
import { unavailableRows } from '../../harness/rows.mjs';

export const id = 'pool-ahead';
export const title = 'Pool ahead of demand: T = 2 x cores vs T = cores (math, malloc), and what idle workers cost a busy program';
export const needs = ['programs'];
export const runByDefault = false;
export const params = {
  before: 'a built checkout of an older commit (DIR with runtime/dist/cli.js): the spindle-before configuration and the baseline',
  iters: 'math iterations in total (default 200000000; 50000000 with --quick)',
  pairs: 'malloc/free pairs in total (default 2000000; 500000 with --quick)',
};
export const notes = [
  'Default options everywhere except the `--threads 1` row (one prewarmed worker, the one a T=1 program needs).',
  'malloc: workload ring (T threads share the pairs, each keeps 256 live blocks of 8..1024 B), C linked with spindle-alloc; native runs the same C with glibc malloc.',
  'Idle workers: with the default pool, math T=1 runs beside 2 x cores - 1 workers that wait the whole run; their CPU time is the difference to the --threads 1 row (their boot only, if they wait in Atomics.wait).',
];
export const charts = [];

const METRICS = [{ key: 'compute', unit: 'ms' }, { key: 'exit', unit: 'ms' }, { key: 'cpu', unit: 'ms' }];

export function unavailable() {
  return rusageUnavailable();
}

/** The malloc guests: the browser demo's C program with spindle-alloc, and a native build of its source. */
function mallocPrograms(ctx) {
  const wasm = join(ctx.repo, 'build', 'bench', 'browser', 'c_spindle.wasm');
  if (!existsSync(wasm)) {
    ctx.log('pool-ahead: building build/bench/browser (bench/browser/build.sh)');
    execFileSync('bash', [join(ctx.repo, 'bench', 'browser', 'build.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const native = join(ctx.repo, 'build', 'bench', 'runtime', 'pool-ahead', 'malloc-native');
  if (!existsSync(native)) {
    mkdirSync(dirname(native), { recursive: true });
    execFileSync('gcc', ['-O2', '-pthread', join(ctx.repo, 'bench', 'alloc', 'c', 'malloc_bench.c'), '-o', native], { stdio: 'inherit' });
  }
  return { wasm, native };
}

function beforeCli(ctx) {
  const dir = ctx.params?.[`${id}.before`];
  if (!dir) return { why: `no older checkout given: --param ${id}.before=DIR (a built checkout of an older commit)` };
  const cli = join(resolve(dir), 'runtime', 'dist', 'cli.js');
  return existsSync(cli) ? { cli } : { why: `${cli} does not exist: build the runtime of that checkout first` };
}

/** Checks a run's output (its checksum must equal the native run's for the same T) and returns its figures. */
function checker(kind, t, expected, usage) {
  return (r) => {
    const f = kind === 'math' ? parseLine(r.stdout, 'math ') : parseLine(r.stdout, 'RESULT ');
    if (Number(f.threads) !== t) throw new Error(`ran with ${f.threads} threads, expected ${t}`);
    if (f.checksum !== expected) throw new Error(`checksum ${f.checksum} != native's ${expected}`);
    const u = usage.read();
    return { compute: Number(kind === 'math' ? f.elapsed_ms : f.ms), exit: r.wallMs, cpu: u.cpu_ms };
  };
}

export async function run(ctx) {
  const iters = String(ctx.params?.[`${id}.iters`] ?? (ctx.quick ? 50_000_000 : 200_000_000));
  const pairs = String(ctx.params?.[`${id}.pairs`] ?? (ctx.quick ? 500_000 : 2_000_000));
  const malloc = mallocPrograms(ctx);
  const kinds = {
    math: { wasm: ctx.programs['math.wasm'], native: ctx.programs['math-native'], args: (t) => [String(t), iters] },
    malloc: { wasm: malloc.wasm, native: malloc.native, args: (t) => ['ring', String(t), pairs] },
  };
  const before = beforeCli(ctx);
  const spec = { experiment: id, variant: '', baseline: 'spindle-before', metrics: METRICS, timeoutMs: 600_000 };
  const configs = [], missing = [];
  const points = [...['math', 'malloc'].flatMap((k) => [ctx.cores, 2 * ctx.cores].map((t) => [k, t])), ['math', 1]];
  for (const [kind, t] of points) {
    const k = kinds[kind];
    const variant = `${kind} T=${t}`;
    const ref = await runCommandChecked(k.native, k.args(t));
    const expected = (kind === 'math' ? parseLine(ref, 'math ') : parseLine(ref, 'RESULT ')).checksum;
    const add = (config, cmd, note) => {
      const usage = underRusage(cmd, `${config}-${kind}-${t}`);
      configs.push({ config, variant, cmd: usage.cmd, check: checker(kind, t, expected, usage), note });
    };
    add('spindle', ctx.commands.spindle(k.wasm, k.args(t)), 'spindle CLI, default options');
    if (t === 1) add('spindle --threads 1', ctx.commands.spindle(k.wasm, k.args(t), ['--threads', '1']), 'spindle CLI, one prewarmed worker');
    if (before.cli) add('spindle-before', [process.execPath, [before.cli, 'run', k.wasm, ...k.args(t)]], `spindle CLI of ${ctx.params[`${id}.before`]}, default options`);
    else missing.push({ config: 'spindle-before', variant, why: before.why });
    add('native', [k.native, k.args(t)], kind === 'math' ? 'gcc -O2 -pthread' : 'gcc -O2 -pthread, glibc malloc');
  }
  ctx.log(`pool-ahead: ${points.map(([k, t]) => `${k} T=${t}`).join(', ')}`);
  const rows = await measure(ctx, { ...spec, configs });
  for (const m of missing) rows.push(...unavailableRows({ ...spec, variant: m.variant, config: m.config, reason: m.why }));
  return withRatios(rows);
}

/** The native reference's stdout (its checksum is what every configuration must print). */
async function runCommandChecked(exe, args) {
  const r = await runCommand(exe, args, { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`native reference ${exe} ${args.join(' ')} failed: ${describeFailure(r)}`);
  return r.stdout;
}

/** Issue 17 item 3: time(2 x cores) / time(cores) <= 1.1 (math and malloc), and idle workers cost no CPU beyond their boot. */
export function goals(rows) {
  const get = (variant, config, metric) => rows.find((r) => r.variant === variant && r.config === config && r.metric === metric);
  const out = [];
  const cores = Math.min(...rows.filter((r) => / T=\d+$/.test(r.variant) && !r.variant.endsWith('T=1')).map((r) => Number(r.variant.split('T=')[1])));
  for (const kind of ['math', 'malloc']) {
    for (const config of ['spindle', 'spindle-before', 'native']) {
      const lo = get(`${kind} T=${cores}`, config, 'compute'), hi = get(`${kind} T=${2 * cores}`, config, 'compute');
      if (!lo?.ok || !hi?.ok) continue;
      const r = hi.median / lo.median;
      const judged = config === 'spindle' ? `: ${r <= 1.1 ? 'MET' : 'NOT MET'} (goal <= 1.1)` : '';
      out.push(`${kind}, ${config}: time T=${2 * cores} / T=${cores} = ${r.toFixed(2)} (${hi.median.toFixed(0)} / ${lo.median.toFixed(0)} ms, median compute)${judged}`);
    }
  }
  const pool = get('math T=1', 'spindle', 'cpu'), one = get('math T=1', 'spindle --threads 1', 'cpu'), compute = get('math T=1', 'spindle', 'compute');
  if (pool?.ok && one?.ok && compute?.ok) {
    const idle = 2 * cores - 1, extra = pool.median - one.median;
    out.push(`idle workers, math T=1: CPU ${pool.median.toFixed(0)} ms with the default pool vs ${one.median.toFixed(0)} ms with --threads 1: `
      + `${extra.toFixed(0)} ms for ${idle} idle workers over a ${compute.median.toFixed(0)} ms run (spinning would cost ~${(idle * compute.median).toFixed(0)} ms): `
      + `${extra < 0.25 * idle * compute.median ? 'they wait, not spin' : 'NOT MET: they cost CPU while idle'}`);
  }
  return out;
}
