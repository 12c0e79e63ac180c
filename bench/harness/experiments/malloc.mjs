/**
 * The malloc experiment (issue 3), adapted from bench/alloc without changing it: its build script
 * (bench/alloc/build.sh -> build/bench/alloc/*.wasm, c_native) and its programs' result line
 * (`RESULT workload=.. threads=.. ops=.. ms=.. mem_kb=..`) are the interface. The harness runs
 * the configurations itself, interleaved, in the same session as everything else, so the ratios
 * against wasi-libc's dlmalloc are fair. (bench/alloc/run.mjs remains the allocator's own, more
 * complete benchmark: cross-thread free, larson, code size.)
 *
 * HOOK: when bench/alloc/experiment.mjs exists (an experiment module with id, title, notes,
 * run(ctx), goals(rows), like bench/runtime's), the registry uses it instead of this adapter.
 *
 * A run counts when it exits 0, its result line names the workload, thread count and number of
 * operations that were asked for, and its checksum (every block's first and last bytes, read
 * back before the block is freed) equals the native C program's for the same workload and T.
 * The native reference runs first; a mismatch fails that configuration.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { measure, parseLine, withRatios } from '../../runtime/lib/measure.mjs';
import { describeFailure, runCommand } from '../../runtime/lib/proc.mjs';
import { expectChecksum, unavailableRows } from '../rows.mjs';
import { wasmtimeCommand } from '../../math/experiment.mjs';

export const id = 'malloc';
export const title = 'malloc: time vs threads (wasi-libc dlmalloc vs spindle-alloc vs mimalloc, and native)';
export const needs = ['programs', 'wasmtime'];

export const notes = [
  'Workload (a) ring: T threads share a fixed total of malloc/free pairs, each keeping a ring of 256 live blocks of 8..1024 bytes; '
    + '(d) article (full run only): the reference article\'s shape, a ring of 1,024 blocks of 1000..2023 bytes. '
    + 'Pairs per run: ring 2M (500k with --quick), article 2M (the article used 100M: same per-pair work, shorter runs).',
  'Every wasm configuration (C and Rust) runs on the spindle CLI (optimizing tier up front, --threads T: one prewarmed worker per program thread) and on wasmtime 46.',
  'ms is measured inside the program around the workload; mem_kb is the linear memory at the end on wasm (it only grows) and peak RSS natively.',
  'Verification: exit 0, a result line naming the requested workload, threads and operation count, and a checksum of the bytes the program read back from its blocks equal to the native C run\'s for the same workload and T (else the configuration fails).',
  'bench/alloc/run.mjs is the allocator\'s complete benchmark (cross-thread free, larson, code size); this is the part the harness compares across hosts.',
];

export const charts = [
  { file: 'malloc-ring.svg', kind: 'lines', title: 'malloc, workload (a) ring: time vs threads', metric: 'ms', yLabel: 'workload time (ms)', log: true, filter: (r) => r.variant.startsWith('ring') },
  { file: 'malloc-article.svg', kind: 'lines', title: 'malloc, workload (d) article: time vs threads', metric: 'ms', yLabel: 'workload time (ms)', log: true, filter: (r) => r.variant.startsWith('article') },
];

const METRICS = [{ key: 'ms', unit: 'ms' }, { key: 'mem_kb', unit: 'KiB' }];

/**
 * The check of one run: its RESULT line must name the workload, threads and pairs asked for and,
 * when `expected` is given, carry that checksum (taken from `reference`, the native run).
 */
export function mallocCheck(workload, threads, total, expected, reference) {
  return (r) => {
    const f = parseLine(r.stdout, 'RESULT ');
    if (f.workload !== workload || Number(f.threads) !== threads || Number(f.ops) !== total) {
      throw new Error(`result line does not match the request (${workload} ${threads} ${total}): ${JSON.stringify(f)}`);
    }
    if (expected !== undefined) expectChecksum(f.checksum, expected, reference);
    return { ms: Number(f.ms), mem_kb: Number(f.mem_kb) };
  };
}

/** Why the experiment cannot run, or undefined. */
export function unavailable(ctx) {
  if (!existsSync(join(ctx.repo, 'bench', 'alloc', 'build.sh'))) return 'not available yet (issue 3): bench/alloc/build.sh does not exist';
  return undefined;
}

/** Newest modification time of the files under `paths` (recursively; target/ skipped). */
function newest(paths) {
  let t = 0;
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (!st.isDirectory()) { t = Math.max(t, st.mtimeMs); return; }
    for (const e of readdirSync(p)) if (e !== 'target' && e !== 'fuzz') walk(join(p, e));
  };
  paths.forEach(walk);
  return t;
}

/**
 * Runs bench/alloc/build.sh unless every artifact is newer than the sources it comes from
 * (the script rebuilds the C libraries of tools/build-c-libs.sh each time, minutes on a busy machine).
 */
function build(ctx, out) {
  const artifacts = ['c_dlmalloc.wasm', 'c_spindle.wasm', 'rust_default.wasm', 'rust_spindle.wasm', 'c_native'].map((f) => join(out, f));
  const sources = ['bench/alloc', 'crates/spindle-alloc', 'crates/spindle-alloc-c', 'tools/build-c-libs.sh', 'tools/wasi-cc'].map((p) => join(ctx.repo, p));
  const oldest = Math.min(...artifacts.map((a) => (existsSync(a) ? statSync(a).mtimeMs : 0)));
  if (oldest > newest(sources)) { ctx.log('malloc: configurations up to date in build/bench/alloc (not rebuilt)'); return; }
  ctx.log('malloc: building the configurations (bench/alloc/build.sh)');
  const b0 = Date.now();
  const b = spawnSync('bash', [join(ctx.repo, 'bench', 'alloc', 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (b.status !== 0) throw new Error(`bench/alloc/build.sh failed (exit ${b.status}): ${(b.stderr || b.stdout).trim().split('\n').slice(-3).join(' | ')}`);
  ctx.log(`malloc: built in ${((Date.now() - b0) / 1000).toFixed(0)} s`);
}

export async function run(ctx) {
  const out = join(ctx.repo, 'build', 'bench', 'alloc');
  build(ctx, out);
  const mimallocSo = ['/usr/lib/x86_64-linux-gnu/libmimalloc.so.2', '/usr/lib/x86_64-linux-gnu/libmimalloc.so'].find((p) => existsSync(p));
  // One prewarmed worker per program thread (`--threads T`), as the emnapi peer gets a warm pool
  // of T: with the default (one per core) the 3rd and 4th workers boot inside the timed region
  // (c-spindle ring T=4: median 795 ms default vs 452 ms with --threads 4, T=2 401 ms).
  const spindle = (wasm) => (args) => ctx.commands.spindle(join(out, wasm), args, ['--threads', args[1]]);
  const configs = [
    { config: 'c-dlmalloc', file: 'c_dlmalloc.wasm', cmd: spindle('c_dlmalloc.wasm'), note: 'C, wasi-libc dlmalloc, spindle CLI (the baseline)' },
    { config: 'c-spindle', file: 'c_spindle.wasm', cmd: spindle('c_spindle.wasm'), note: 'C, spindle-alloc C archive, spindle CLI' },
    { config: 'rust-default', file: 'rust_default.wasm', cmd: spindle('rust_default.wasm'), note: 'Rust, default allocator (dlmalloc), spindle CLI' },
    { config: 'rust-spindle', file: 'rust_spindle.wasm', cmd: spindle('rust_spindle.wasm'), note: 'Rust, spindle-alloc #[global_allocator], spindle CLI' },
    { config: 'rust-mimalloc', file: 'rust_mimalloc.wasm', cmd: spindle('rust_mimalloc.wasm'), note: 'Rust, mimalloc crate built for wasm32-wasip1-threads, spindle CLI' },
    { config: 'c-dlmalloc-wasmtime', file: 'c_dlmalloc.wasm', wasmtime: true, note: 'C, wasi-libc dlmalloc, wasmtime 46' },
    { config: 'c-spindle-wasmtime', file: 'c_spindle.wasm', wasmtime: true, note: 'C, spindle-alloc, wasmtime 46' },
    { config: 'rust-default-wasmtime', file: 'rust_default.wasm', wasmtime: true, note: 'Rust, default allocator (dlmalloc), wasmtime 46' },
    { config: 'rust-spindle-wasmtime', file: 'rust_spindle.wasm', wasmtime: true, note: 'Rust, spindle-alloc #[global_allocator], wasmtime 46' },
    { config: 'rust-mimalloc-wasmtime', file: 'rust_mimalloc.wasm', wasmtime: true, note: 'Rust, mimalloc crate, wasmtime 46' },
    { config: 'native-glibc', file: 'c_native', cmd: (args) => [join(out, 'c_native'), args], note: 'C natively, glibc malloc (clang -O2)' },
    { config: 'native-mimalloc', file: 'c_native', cmd: (args) => ['env', [`LD_PRELOAD=${mimallocSo}`, join(out, 'c_native'), ...args]],
      missing: mimallocSo ? undefined : 'libmimalloc.so not installed (apt-get install libmimalloc2.0)', note: 'C natively, mimalloc through LD_PRELOAD' },
  ];
  // Issue 3 measures T = 1, 2, 4; an explicit --threads list replaces that.
  const threads = ctx.threadsExplicit ? ctx.threads : [1, 2, 4];
  const workloads = ctx.quick
    ? [{ name: 'ring', total: 500_000 }]
    : [{ name: 'ring', total: 2_000_000 }, { name: 'article', total: 2_000_000 }];
  const rows = [];
  for (const w of workloads) {
    for (const t of threads) {
      const args = [w.name, String(t), String(w.total)];
      const spec = { experiment: id, variant: `${w.name} T=${t}`, baseline: 'c-dlmalloc', metrics: METRICS };
      // The native C program's checksum is the reference every configuration must reproduce.
      const ref = await runCommand(join(out, 'c_native'), args, { timeoutMs: 300_000 });
      const expected = ref.code === 0 ? parseLine(ref.stdout, 'RESULT ').checksum : undefined;
      if (expected === undefined) {
        const why = ref.code === 0 ? 'its result line has no checksum' : describeFailure(ref);
        for (const c of configs) {
          rows.push(...unavailableRows({ ...spec, config: c.config, reason: `native reference failed (${why}): no checksum to check against`, note: c.note })
            .map((row) => ({ ...row, error: `native reference failed: ${why}` })));
        }
        continue;
      }
      const check = mallocCheck(w.name, t, w.total, expected, `native C, ${w.name} T=${t}`);
      const runnable = [], missing = [];
      for (const c of configs) {
        const why = c.missing ?? (!existsSync(join(out, c.file)) ? `${c.file} was not built by bench/alloc/build.sh` : undefined)
          ?? (c.wasmtime && !ctx.wasmtime.exe ? ctx.wasmtime.unavailable : undefined);
        if (why) { missing.push({ ...c, why }); continue; }
        const cmd = c.wasmtime ? wasmtimeCommand(ctx.wasmtime.exe, join(out, c.file), args) : c.cmd(args);
        runnable.push({ config: c.config, cmd, check, note: c.note });
      }
      ctx.log(`malloc ${w.name} T=${t} (${w.total} pairs)`);
      rows.push(...await measure(ctx, { ...spec, configs: runnable, timeoutMs: 300_000 }));
      for (const c of missing) rows.push(...unavailableRows({ ...spec, config: c.config, reason: c.why, note: c.note }));
    }
  }
  return withRatios(rows);
}

/** Issue 3's scaling goals where this run measures them (ring workload). */
export function goals(rows) {
  const ms = (config, t) => rows.find((r) => r.variant === `ring T=${t}` && r.config === config && r.metric === 'ms');
  const out = [];
  const s1 = ms('c-spindle', 1), d1 = ms('c-dlmalloc', 1);
  if (s1?.ok && d1?.ok) out.push(`malloc ring T=1: c-spindle ${(d1.median / s1.median).toFixed(2)}x faster than c-dlmalloc (goal >= 2.3x: ${d1.median / s1.median >= 2.3 ? 'MET' : 'NOT MET'})`);
  // The total number of pairs is fixed, so throughput(T=2) / throughput(T=1) = time(T=1) / time(T=2).
  const s2 = ms('c-spindle', 2);
  if (s1?.ok && s2?.ok) out.push(`malloc ring T=2 vs T=1 throughput, c-spindle: ${(s1.median / s2.median).toFixed(2)}x (goal >= 1.7x: ${s1.median / s2.median >= 1.7 ? 'MET' : 'NOT MET'})`);
  const d2 = ms('c-dlmalloc', 2);
  if (d1?.ok && d2?.ok) out.push(`malloc ring T=2 vs T=1 throughput, c-dlmalloc: ${(d1.median / d2.median).toFixed(2)}x (issue 3: below 1.0x expected)`);
  const s4 = ms('c-spindle', 4);
  if (s2?.ok && s4?.ok) out.push(`malloc ring T=4 vs T=2 time, c-spindle: ${(s4.median / s2.median).toFixed(2)}x (goal <= 1.15x: ${s4.median / s2.median <= 1.15 ? 'MET' : 'NOT MET'})`);
  return out;
}
