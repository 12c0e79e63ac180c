/**
 * The large-module experiment (issue 17, items 2 and 5: "real programs"): a generated C program of
 * 20,000 functions (bench/hosts/gen-large.mjs, a ~6 MB module), each called once, like a compiler
 * over a big input. It measures what the compile policy costs or saves where start-up dominates:
 *
 *   single-threaded, one run   spindle (default: V8 default tiering, _start on the CLI's thread)
 *                              vs node:wasi (the baseline), the emnapi stack, and the previous
 *                              policy (eager optimizing compile of every function)
 *   threaded, one run          the same work on one spawned thread: spindle (Node restarted with
 *                              --no-liftoff), --no-optimize, the emnapi stack (baseline), previous policy
 *   threaded, --version        start-up alone of the threaded module
 *
 * exit = the parent's wall time from spawn to exit; first_output = to the first stdout byte.
 * Every run must print the checksum that node:wasi printed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand, describeFailure } from '../harness/lib/proc.mjs';
import { measure, parseLine, withRatios } from '../harness/lib/measure.mjs';

export const id = 'large-module';
export const title = 'Large module (20,000 functions called once): start-up and compile policy';
export const needs = ['programs', 'peers'];
export const notes = [
  'The module is generated C (bench/hosts/gen-large.mjs, 20,000 functions) built by tools/wasi-cc -O2; built once into build/bench/hosts/.',
  '"previous policy" = node --no-liftoff --no-wasm-lazy-compilation (every function optimized before _start), which the runtime used to set after start-up.',
  'Goal (issue 17): single-threaded large module within 1.1x of node:wasi (median exit time).',
];
export const charts = [{ file: 'large-module.svg', kind: 'bars', title: 'Large module: process wall time', metric: 'exit' }];

const FUNCTIONS = 20000;

/** Generates and compiles the two variants (only when the generator or wasi-cc changed); also
 * used by real-programs.mjs. */
export function buildLarge(ctx) {
  const here = join(ctx.repo, 'bench', 'hosts');
  const dir = join(ctx.repo, 'build', 'bench', 'hosts');
  mkdirSync(dir, { recursive: true });
  const gen = join(here, 'gen-large.mjs'), cc = join(ctx.repo, 'tools', 'wasi-cc');
  const src = join(dir, 'large.c');
  const newer = (a, b) => existsSync(a) && statSync(a).mtimeMs >= statSync(b).mtimeMs;
  if (!newer(src, gen)) writeFileSync(src, execFileSync(process.execPath, [gen, String(FUNCTIONS)], { maxBuffer: 1 << 30 }));
  const out = {};
  for (const [name, flags] of [['large-st.wasm', []], ['large-mt.wasm', ['-DTHREADED']]]) {
    const wasm = join(dir, name);
    if (!newer(wasm, src) || !newer(wasm, cc)) {
      ctx.log(`build ${wasm} (clang, ~1-2 min)`);
      execFileSync(cc, [...flags, src, '-Wl,--export=malloc,--export=free', '-o', wasm], { stdio: ['ignore', 'inherit', 'inherit'] });
    }
    out[name] = wasm;
  }
  return out;
}

export async function run(ctx) {
  const wasm = buildLarge(ctx);
  const cmd = ctx.commands;
  const node = process.execPath;
  const ref = await runCommand(...cmd.nodeWasi(wasm['large-st.wasm'], []), { timeoutMs: 300_000 });
  if (ref.code !== 0) throw new Error(`node:wasi reference run failed: ${describeFailure(ref)}`);
  const expected = parseLine(ref.stdout, 'large ').checksum;
  const check = (r) => {
    const got = parseLine(r.stdout, 'large ').checksum;
    if (got !== expected) throw new Error(`checksum ${got} != node:wasi's ${expected}`);
    return { exit: r.wallMs, first_output: r.firstOutputMs };
  };
  const version = (r) => {
    if (!r.stdout.startsWith('large ')) throw new Error(`unexpected output ${JSON.stringify(r.stdout.slice(0, 80))}`);
    return { exit: r.wallMs, first_output: r.firstOutputMs };
  };
  const previous = (file, args) => [node, ['--no-liftoff', '--no-wasm-lazy-compilation', ctx.spindleCli, 'run', '--no-optimize', file, ...args]];
  const metrics = [{ key: 'exit', unit: 'ms' }, { key: 'first_output', unit: 'ms' }];
  const st = wasm['large-st.wasm'], mt = wasm['large-mt.wasm'];
  const rows = [];
  ctx.log('large module: single-threaded');
  rows.push(...await measure(ctx, {
    experiment: id, variant: 'single-threaded, one run', baseline: 'node-wasi', metrics, timeoutMs: 300_000,
    configs: [
      { config: 'node-wasi', cmd: cmd.nodeWasi(st, []), check, note: 'node:wasi alone' },
      { config: 'spindle', cmd: cmd.spindle(st, []), check, note: 'spindle CLI, default options' },
      { config: 'emnapi-node-wasi', cmd: cmd.emnapi(st, [], { wasi: 'node', pool: 0 }), check, note: '@emnapi/wasi-threads + node:wasi' },
      { config: 'previous-policy', cmd: previous(st, []), check, note: 'eager optimizing compile (the runtime\'s previous default)' },
    ],
  }));
  for (const [variant, args, ok] of [['threaded, one run', [], check], ['threaded, --version', ['--version'], version]]) {
    ctx.log(`large module: ${variant}`);
    rows.push(...await measure(ctx, {
      experiment: id, variant, baseline: 'emnapi-node-wasi', metrics, timeoutMs: 300_000,
      configs: [
        { config: 'emnapi-node-wasi', cmd: cmd.emnapi(mt, args, { wasi: 'node', pool: 1 }), check: ok, note: '@emnapi/wasi-threads + node:wasi, pool of 1' },
        { config: 'spindle', cmd: cmd.spindle(mt, args), check: ok, note: 'spindle CLI, default options (Node restarted with --no-liftoff)' },
        { config: 'spindle-no-optimize', cmd: cmd.spindle(mt, args, ['--no-optimize']), check: ok, note: 'spindle CLI --no-optimize (V8 default tiering)' },
        { config: 'previous-policy', cmd: previous(mt, args), check: ok, note: 'eager optimizing compile (the runtime\'s previous default)' },
      ],
    }));
  }
  return withRatios(rows);
}

export function goals(rows) {
  const get = (variant, config) => rows.find((r) => r.variant === variant && r.config === config && r.metric === 'exit');
  const s = get('single-threaded, one run', 'spindle'), base = get('single-threaded, one run', 'node-wasi');
  if (!s?.ok || !base?.ok) return ['large module within 1.1x of node:wasi: NOT MEASURED'];
  const r = s.median / base.median;
  const out = [`large module (single-threaded) within 1.1x of node:wasi: ${r <= 1.1 ? 'MET' : 'NOT MET'} (spindle ${s.median.toFixed(0)} ms vs ${base.median.toFixed(0)} ms, ${r.toFixed(3)}x)`];
  for (const v of ['threaded, one run', 'threaded, --version']) {
    const sp = get(v, 'spindle'), em = get(v, 'emnapi-node-wasi'), prev = get(v, 'previous-policy');
    if (sp?.ok && em?.ok) out.push(`large module, ${v}: spindle ${sp.median.toFixed(0)} ms, emnapi ${em.median.toFixed(0)} ms (${(sp.median / em.median).toFixed(2)}x)`
      + (prev?.ok ? `, previous policy ${prev.median.toFixed(0)} ms` : ''));
  }
  return out;
}
