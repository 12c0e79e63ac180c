/**
 * Real programs with default options (issue 17, items 2 and 5): what a user gets from `spindle
 * run prog.wasm` against what they would get from node:wasi and from the @emnapi/wasi-threads +
 * node:wasi stack (the @napi-rs/wasm-runtime wiring, plain `node`), all in the same run:
 *
 *   large, single-threaded   the generated 20,000-function program (large-module.mjs), one run:
 *                            node:wasi is the baseline
 *   large, threaded          the same work on one spawned thread, one run and --version: the
 *                            emnapi stack is the baseline; spindle's thread-guard rewrite comes
 *                            from its cache after the warm-up run (spindle-no-cache: computed
 *                            each run); spindle --optimize shows what the optimizing tier for
 *                            every function would cost this shape
 *   math T=1,2,4             bench/programs/math.c (one long loop per thread): the baseline is
 *                            "today's optimized figure", every function optimized before _start
 *                            (node --no-liftoff --no-wasm-lazy-compilation, the previous policy)
 *   malloc T=1,2,4           bench/alloc/c/malloc_bench.c, workload ring, wasi-libc's dlmalloc (as
 *                            a program built with default options has): the emnapi stack is the baseline
 *   hello                    time to first output: the emnapi stack is the baseline
 *
 * Every run's output is checked (checksums against node:wasi or the native program) before its
 * time counts. Goals (issue 17): large single-threaded within 1.1x of node:wasi; math T=1 within
 * 1.05x of the optimized figure; T=4/T=2 <= 1.1 for math and malloc; first output <= the emnapi stack.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeFailure, runCommand } from '../harness/lib/proc.mjs';
import { measure, parseLine, withRatios } from '../harness/lib/measure.mjs';
import { expectChecksum } from '../harness/rows.mjs';
import { buildLarge } from './large-module.mjs';

export const id = 'real-programs';
export const title = 'Real programs, default options: large module, math and malloc at T=1,2,4, first output';
export const needs = ['programs', 'peers'];
/** Minutes (it builds a 6 MB module once, then runs ~40 configurations): only with --only or --all. */
export const runByDefault = false;
export const params = {
  math: 'iterations of the math program (default 100000000; 30000000 with --quick)',
  malloc: 'malloc/free pairs of the ring workload (default 1000000; 300000 with --quick)',
  parts: 'which parts to run, comma-separated, of large, math, malloc, hello (default all: a rerun of the T=4/T=2 goals is --param real-programs.parts=math,malloc)',
};
export const notes = [
  'Default options everywhere: `spindle run prog.wasm`; the emnapi stack is bench/runtime/hosts/emnapi-run.mjs --wasi node under plain `node` with a warm pool of T workers (0 for programs that never spawn).',
  'math "optimized" = node --no-liftoff --no-wasm-lazy-compilation spindle run --no-optimize: every function optimized before _start (the previous default, "today\'s optimized figure").',
  'malloc: bench/alloc/c/malloc_bench.c built by tools/wasi-cc -O2 (wasi-libc dlmalloc, malloc/free exported for the emnapi stack) into build/bench/hosts/; its checksum must equal the native build\'s (gcc -O2).',
  'compute and ms are measured inside the program (CLOCK_MONOTONIC around the work); exit and first_output by the parent from spawn.',
];
export const charts = [
  { file: 'real-programs-exit.svg', kind: 'bars', title: 'Real programs: process wall time', metric: 'exit', filter: (r) => r.variant.startsWith('large') },
  { file: 'real-programs-math.svg', kind: 'lines', title: 'Real programs: math compute time vs threads', metric: 'compute' },
];

/** malloc_bench.c for wasm (dlmalloc) and natively, rebuilt when the source is newer. */
function buildMalloc(ctx) {
  const src = join(ctx.repo, 'bench', 'alloc', 'c', 'malloc_bench.c');
  const dir = join(ctx.repo, 'build', 'bench', 'hosts');
  mkdirSync(dir, { recursive: true });
  const stale = (t) => !existsSync(t) || statSync(t).mtimeMs < statSync(src).mtimeMs;
  const wasm = join(dir, 'malloc.wasm'), native = join(dir, 'malloc-native');
  if (stale(wasm)) execFileSync(join(ctx.repo, 'tools', 'wasi-cc'), ['-O2', src, '-Wl,--export=malloc,--export=free', '-o', wasm], { stdio: 'inherit' });
  if (stale(native)) execFileSync('gcc', ['-O2', '-pthread', src, '-o', native], { stdio: 'inherit' });
  return { wasm, native };
}

/** The parts of the experiment, in the order they run (`--param real-programs.parts=`). */
const PARTS = ['large', 'math', 'malloc', 'hello'];

const num = (ctx, key, full, quick) => Number(ctx.params?.[`${id}.${key}`] ?? (ctx.quick ? quick : full));

export async function run(ctx) {
  const cmd = ctx.commands;
  const node = process.execPath;
  const optimized = (wasm, args) => [node, ['--no-liftoff', '--no-wasm-lazy-compilation', ctx.spindleCli, 'run', '--no-optimize', wasm, ...args]];
  const rows = [];
  const parts = new Set(String(ctx.params?.[`${id}.parts`] ?? PARTS.join(',')).split(','));
  const unknown = [...parts].filter((p) => !PARTS.includes(p));
  if (unknown.length) throw new Error(`--param ${id}.parts: unknown part ${unknown.join(', ')} (the parts: ${PARTS.join(', ')})`);
  if (parts.has('large')) rows.push(...await largeRows(ctx, cmd));
  const threads = ctx.threadsExplicit ? ctx.threads : [1, 2, 4];
  const math = ctx.programs['math.wasm'], mathNative = ctx.programs['math-native'];
  const iters = String(num(ctx, 'math', 100_000_000, 30_000_000));
  // Every thread count in one loop (measure.mjs: a config's own variant), so that T=4/T=2 compares
  // runs of the same moments of the machine. Measured apart, one T per loop, a few seconds of
  // other work on the machine during one T's loop moved the ratio by more than the goal's 10%
  // (bench/results/real-programs-t4-2026-11-27/README.md).
  const mathConfigs = [];
  for (const t of parts.has('math') ? threads : []) {
    const args = [String(t), iters];
    const ref = await runCommand(mathNative, args);
    if (ref.code !== 0) throw new Error(`native math failed: ${describeFailure(ref)}`);
    const expected = parseLine(ref.stdout, 'math ').checksum;
    const check = (r) => {
      const f = parseLine(r.stdout, 'math ');
      expectChecksum(f.checksum, expected, `native math, T=${t}`);
      return { compute: Number(f.elapsed_ms), exit: r.wallMs };
    };
    const variant = `math T=${t}`;
    mathConfigs.push(
      { variant, config: 'optimized', cmd: optimized(math, args), check, note: 'every function optimized before _start (the previous default)' },
      { variant, config: 'spindle', cmd: cmd.spindle(math, args), check, note: 'spindle CLI, default options' },
      { variant, config: 'emnapi-node-wasi', cmd: cmd.emnapi(math, args, { wasi: 'node', pool: t }), check, note: '@emnapi/wasi-threads + node:wasi, plain node, pool of T' },
    );
  }
  if (mathConfigs.length) {
    ctx.log(`real programs: math T=${threads.join(',')}, interleaved`);
    rows.push(...await measure(ctx, {
      experiment: id, variant: 'math', baseline: 'optimized', timeoutMs: 300_000,
      metrics: [{ key: 'compute', unit: 'ms' }, { key: 'exit', unit: 'ms' }],
      configs: mathConfigs,
    }));
  }
  if (parts.has('malloc')) rows.push(...await mallocRows(ctx, cmd, threads));
  if (parts.has('hello')) rows.push(...await helloRows(ctx, cmd));
  return withRatios(rows);
}

/** malloc ring at every thread count, interleaved in one loop (as math). */
async function mallocRows(ctx, cmd, threads) {
  const malloc = buildMalloc(ctx);
  const pairs = String(num(ctx, 'malloc', 1_000_000, 300_000));
  const mallocConfigs = [];
  for (const t of threads) {
    const args = ['ring', String(t), pairs];
    const ref = await runCommand(malloc.native, args, { timeoutMs: 300_000 });
    if (ref.code !== 0) throw new Error(`native malloc_bench failed: ${describeFailure(ref)}`);
    const expected = parseLine(ref.stdout, 'RESULT ').checksum;
    const check = (r) => {
      const f = parseLine(r.stdout, 'RESULT ');
      expectChecksum(f.checksum, expected, `native malloc_bench ring T=${t}`);
      return { ms: Number(f.ms), exit: r.wallMs };
    };
    const variant = `malloc ring T=${t}`;
    mallocConfigs.push(
      { variant, config: 'emnapi-node-wasi', cmd: cmd.emnapi(malloc.wasm, args, { wasi: 'node', pool: t }), check, note: '@emnapi/wasi-threads + node:wasi, plain node, pool of T' },
      { variant, config: 'spindle', cmd: cmd.spindle(malloc.wasm, args), check, note: 'spindle CLI, default options' },
    );
  }
  ctx.log(`real programs: malloc ring T=${threads.join(',')}, interleaved`);
  return measure(ctx, {
    // A run takes well under a second; the emnapi stack sometimes hangs at T=4 (its row then
    // says so): 60 s is a hang, and a shorter bound keeps such a run from taking 5 minutes.
    experiment: id, variant: 'malloc ring', baseline: 'emnapi-node-wasi', timeoutMs: 60_000,
    metrics: [{ key: 'ms', unit: 'ms' }, { key: 'exit', unit: 'ms' }],
    configs: mallocConfigs,
  });
}

/** A command run with SPINDLE_CACHE_DIR=none (no rewrite kept across runs). */
const noCache = ([exe, args]) => ['env', ['SPINDLE_CACHE_DIR=none', exe, ...args]];

/** The large module, single-threaded and threaded. */
async function largeRows(ctx, cmd) {
  const wasm = buildLarge(ctx);
  const st = wasm['large-st.wasm'], mt = wasm['large-mt.wasm'];
  const ref = await runCommand(...cmd.nodeWasi(st, []), { timeoutMs: 300_000 });
  if (ref.code !== 0) throw new Error(`node:wasi reference run of the large module failed: ${describeFailure(ref)}`);
  const expected = parseLine(ref.stdout, 'large ').checksum;
  const check = (r) => {
    expectChecksum(parseLine(r.stdout, 'large ').checksum, expected, 'node:wasi, large module');
    return { exit: r.wallMs, first_output: r.firstOutputMs };
  };
  const version = (r) => {
    if (!r.stdout.startsWith('large ')) throw new Error(`unexpected output ${JSON.stringify(r.stdout.slice(0, 80))}`);
    return { exit: r.wallMs, first_output: r.firstOutputMs };
  };
  const metrics = [{ key: 'exit', unit: 'ms' }, { key: 'first_output', unit: 'ms' }];
  const rows = [];
  ctx.log('real programs: large module, single-threaded');
  rows.push(...await measure(ctx, {
    experiment: id, variant: 'large, single-threaded', baseline: 'node-wasi', metrics, timeoutMs: 300_000,
    configs: [
      { config: 'node-wasi', cmd: cmd.nodeWasi(st, []), check, note: 'node:wasi alone' },
      { config: 'spindle', cmd: cmd.spindle(st, []), check, note: 'spindle CLI, default options' },
      { config: 'emnapi-node-wasi', cmd: cmd.emnapi(st, [], { wasi: 'node', pool: 0 }), check, note: '@emnapi/wasi-threads + node:wasi' },
    ],
  }));
  for (const [variant, args, ok] of [['large, threaded', [], check], ['large, threaded, --version', ['--version'], version]]) {
    ctx.log(`real programs: ${variant}`);
    rows.push(...await measure(ctx, {
      experiment: id, variant, baseline: 'emnapi-node-wasi', metrics, timeoutMs: 300_000,
      configs: [
        { config: 'emnapi-node-wasi', cmd: cmd.emnapi(mt, args, { wasi: 'node', pool: 1 }), check: ok, note: '@emnapi/wasi-threads + node:wasi, pool of 1' },
        { config: 'spindle', cmd: cmd.spindle(mt, args), check: ok, note: 'spindle CLI, default options' },
        { config: 'spindle-no-cache', cmd: noCache(cmd.spindle(mt, args)), check: ok, note: 'spindle CLI, SPINDLE_CACHE_DIR=none: the thread-guard rewrite computed on every run' },
        { config: 'spindle-optimize', cmd: cmd.spindle(mt, args, ['--optimize']), check: ok, note: 'spindle CLI --optimize (Node restarted with --no-liftoff)' },
      ],
    }));
  }
  return rows;
}

async function helloRows(ctx, cmd) {
  const hello = ctx.programs['hello.wasm'];
  const check = (r) => {
    if (r.stdout !== 'hello, world\n') throw new Error(`stdout was ${JSON.stringify(r.stdout.slice(0, 80))}`);
    return { first_output: r.firstOutputMs, exit: r.wallMs };
  };
  ctx.log('real programs: hello, first output');
  return measure(ctx, {
    experiment: id, variant: 'hello', baseline: 'emnapi-node-wasi',
    metrics: [{ key: 'first_output', unit: 'ms' }, { key: 'exit', unit: 'ms' }],
    configs: [
      { config: 'emnapi-node-wasi', cmd: cmd.emnapi(hello, [], { wasi: 'node', pool: 0 }), check, note: '@emnapi/wasi-threads + node:wasi' },
      { config: 'spindle', cmd: cmd.spindle(hello, []), check, note: 'spindle CLI, default options' },
      { config: 'node-wasi', cmd: cmd.nodeWasi(hello, []), check, note: 'node:wasi alone' },
    ],
  });
}

/** The issue's goals, judged on this run's medians. */
export function goals(rows) {
  const get = (variant, config, metric) => rows.find((r) => r.variant === variant && r.config === config && r.metric === metric);
  const ratio = (a, b) => (a?.ok && b?.ok ? a.median / b.median : undefined);
  const verdict = (r, limit) => (r === undefined ? 'NOT MEASURED' : r <= limit ? 'MET' : 'NOT MET');
  const out = [];
  const st = ratio(get('large, single-threaded', 'spindle', 'exit'), get('large, single-threaded', 'node-wasi', 'exit'));
  out.push(`large module, single-threaded, within 1.1x of node:wasi (exit): ${verdict(st, 1.1)}${st ? ` (${st.toFixed(3)}x)` : ''}`);
  for (const v of ['large, threaded', 'large, threaded, --version']) {
    const r = ratio(get(v, 'spindle', 'exit'), get(v, 'emnapi-node-wasi', 'exit'));
    if (r !== undefined) out.push(`${v}: spindle ${r.toFixed(2)}x the emnapi stack (exit; no goal set)`);
  }
  const m1 = ratio(get('math T=1', 'spindle', 'compute'), get('math T=1', 'optimized', 'compute'));
  out.push(`math T=1 within 1.05x of the optimized figure (compute): ${verdict(m1, 1.05)}${m1 ? ` (${m1.toFixed(3)}x)` : ''}`);
  for (const [prefix, metric] of [['math', 'compute'], ['malloc ring', 'ms']]) {
    const r = ratio(get(`${prefix} T=4`, 'spindle', metric), get(`${prefix} T=2`, 'spindle', metric));
    out.push(`${prefix}: T=4/T=2 <= 1.1 (spindle, ${metric}): ${verdict(r, 1.1)}${r ? ` (${r.toFixed(3)})` : ''}`);
  }
  const h = ratio(get('hello', 'spindle', 'first_output'), get('hello', 'emnapi-node-wasi', 'first_output'));
  out.push(`first output <= the emnapi stack: ${verdict(h, 1)}${h ? ` (${h.toFixed(3)}x)` : ''}`);
  return out;
}
