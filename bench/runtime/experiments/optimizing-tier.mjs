/**
 * Experiment 3: the optimizing tier up front. A pure-math guest
 * (bench/programs/math.c: one long loop per thread, entered once, total work fixed) on T = 1, 2
 * threads: spindle default (the runtime sets V8's --no-liftoff) vs spindle --no-optimize (V8's
 * default tiering: Liftoff first, and no on-stack replacement for wasm, so a loop entered once
 * stays in baseline code), the peer stack on V8's default tiering, and native gcc -O2. Every run
 * must print the same checksum as the native program for the same T before its time counts.
 * compute = the guest's own CLOCK_MONOTONIC time around create..join; exit = the parent's wall
 * time for the whole process (start-up and compilation included).
 */
import { runCommand, describeFailure } from '../../harness/lib/proc.mjs';
import { measure, parseLine } from '../../harness/lib/measure.mjs';

export const id = 'optimizing-tier';
export const title = 'Optimizing compilation (pure math, T threads)';

/** What the summary must say about how this was measured. */
export const notes = [
  'Reference measured when the runtime was first built (Node 20): pure-math thread loop 580 ms by default vs 337 ms with --no-liftoff, native 438 ms.',
  'The checksum depends on T (the floating-point sum is split per thread), so each run is checked against native with the same T.',
  '`exit` includes node start-up, compilation, worker start-up and teardown: the optimizing tier trades start-up for loop speed.',
];

export async function run(ctx) {
  const cmd = ctx.commands;
  const wasm = ctx.programs['math.wasm'];
  const native = ctx.programs['math-native'];
  const iters = String(ctx.quick ? 80_000_000 : 150_000_000);
  const rows = [];
  for (const t of [1, 2]) {
    const args = [String(t), iters];
    const ref = await runCommand(...cmd.native(native, args));
    if (ref.code !== 0) throw new Error(`native math failed: ${describeFailure(ref)}`);
    const expected = parseLine(ref.stdout, 'math ').checksum;
    const check = (r) => {
      const f = parseLine(r.stdout, 'math ');
      if (f.checksum !== expected) throw new Error(`checksum ${f.checksum} != native ${expected}`);
      return { compute: Number(f.elapsed_ms), exit: r.wallMs };
    };
    const configs = [
      { config: 'spindle-no-optimize', cmd: cmd.spindle(wasm, args, ['--no-optimize']), check,
        note: 'spindle --no-optimize: V8 default tiering (Liftoff first)' },
      { config: 'spindle', cmd: cmd.spindle(wasm, args), check,
        note: 'spindle default: optimizing tier up front (--no-liftoff)' },
      { config: 'emnapi-node-wasi', cmd: cmd.emnapi(wasm, args, { wasi: 'node', pool: t }), check,
        note: '@emnapi/wasi-threads + node:wasi, V8 default tiering, warm pool of T' },
      { config: 'native', cmd: cmd.native(native, args), check, note: 'gcc -O2 -pthread' },
    ];
    ctx.log(`optimizing tier, T=${t}`);
    rows.push(...await measure(ctx, {
      experiment: id, variant: `T=${t}`, baseline: 'spindle-no-optimize',
      metrics: [{ key: 'compute', unit: 'ms' }, { key: 'exit', unit: 'ms' }],
      configs,
    }));
  }
  return rows;
}

/** The effect of the optimizing tier, judged on this run's rows. */
export function goals(rows) {
  const out = [];
  for (const v of ['T=1', 'T=2']) {
    const get = (config) => rows.find((r) => r.variant === v && r.config === config && r.metric === 'compute');
    const opt = get('spindle'), base = get('spindle-no-optimize'), nat = get('native');
    if (!opt?.ok || !base?.ok) { out.push(`optimizing tier, ${v}: NOT MEASURED`); continue; }
    const vsNative = nat?.ok ? `; vs native: optimized ${(opt.median / nat.median).toFixed(2)}x, baseline ${(base.median / nat.median).toFixed(2)}x` : '';
    out.push(`optimizing tier, ${v}: compute median ${opt.median.toFixed(0)} ms vs ${base.median.toFixed(0)} ms without it `
      + `(ratio ${opt.ratio_median})${vsNative}`);
  }
  return out;
}
