/**
 * The malloc experiment of `spindle bench` (the allocator's whole benchmark: the reference
 * article's second chart and the workloads of bench/alloc/BENCHMARKS.md). bench/alloc/build.sh
 * builds the configurations (build/bench/alloc/*.wasm, c_native); each program prints
 * `RESULT workload=.. threads=.. ops=.. ms=.. mem_kb=.. checksum=..`.
 *
 * Settings (--param malloc.KEY=VALUE): workloads (ring, xfree, larson, article; default ring and
 * article, ring alone with --quick), scale (multiplies every workload's pairs), pool (prewarmed:
 * one worker per program thread, 2T for larson; default: the runtime's default pool), baseline (the
 * build/bench/alloc directory of another checkout: its c-spindle and rust-spindle run in the same
 * loop as `c-spindle@base` and `rust-spindle@base`, for a before/after comparison of the allocator).
 *
 * A run counts when it exits 0, its result line names the workload, thread count and number of
 * operations that were asked for, and its checksum (every block's first and last bytes, read
 * back before the block is freed) equals the native C program's for the same workload and T.
 * The native reference runs first; a mismatch fails that configuration.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { measure, parseLine, withRatios } from '../harness/lib/measure.mjs';
import { describeFailure, runCommand } from '../harness/lib/proc.mjs';
import { expectChecksum, unavailableRows } from '../harness/rows.mjs';
import { wasmtimeCommand } from '../math/experiment.mjs';

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
  'Workloads (b) xfree (one thread allocates, another frees: T=2 only) and (c) larson (chains of threads that hand their blocks on) run with --param malloc.workloads=ring,xfree,larson,article.',
  'Workload (e) threads (C only, --param malloc.workloads=threads): T = 1, 8, 64 threads each hold 256 blocks of 16..1024 bytes at the same moment: mem_kb(T=64) - mem_kb(T=1) over 63 is what one more thread costs.',
  'Code size: the stripped hello-world programs of bench/alloc/build.sh, C and Rust, with each allocator (bytes).',
];

export const params = {
  workloads: 'comma-separated, of ring, xfree, larson, article, threads (default ring,article; ring with --quick)',
  scale: 'multiplies every workload\'s number of malloc/free pairs (default 1: 2M each, 500k with --quick)',
  pool: 'prewarmed (default: --threads T, 2T for larson) or default (the runtime\'s default pool, one worker per core)',
  baseline: 'build/bench/alloc of another checkout (built by its bench/alloc/build.sh): adds c-spindle@base and rust-spindle@base',
};

/** Pairs per run at scale 1, and the thread counts a workload runs at (null: --threads / 1,2,4). */
const WORKLOADS = {
  ring: { total: 2_000_000, threads: null },
  xfree: { total: 2_000_000, threads: [2] },
  larson: { total: 2_000_000, threads: null },
  article: { total: 2_000_000, threads: null },
  // (e) threads: `total` is the blocks EACH thread holds (not scaled); C programs only.
  threads: { total: 256, threads: [1, 8, 64], perThread: true, cOnly: true },
};

/** The workloads and totals of this session, from the settings; throws on a bad setting. */
export function workloadsOf(ctx) {
  const p = ctx.params ?? {};
  const names = (p['malloc.workloads'] ?? (ctx.quick ? 'ring' : 'ring,article')).split(',').filter(Boolean);
  for (const n of names) if (!WORKLOADS[n]) throw new Error(`malloc.workloads: unknown workload '${n}' (ring, xfree, larson, article, threads)`);
  const scale = Number(p['malloc.scale'] ?? 1);
  if (!(scale > 0)) throw new Error(`malloc.scale must be a number > 0, got '${p['malloc.scale']}'`);
  const pool = p['malloc.pool'] ?? 'prewarmed';
  if (pool !== 'prewarmed' && pool !== 'default') throw new Error(`malloc.pool is prewarmed or default, got '${pool}'`);
  const base = ctx.quick && !p['malloc.scale'] ? 0.25 : 1;
  return {
    pool,
    workloads: names.map((name) => {
      const w = WORKLOADS[name];
      return { ...w, name, total: w.perThread ? w.total : Math.max(1000, Math.round(w.total * base * scale)) };
    }),
  };
}

export const charts = [
  { file: 'malloc-ring.svg', kind: 'lines', title: 'malloc, workload (a) ring: time vs threads', metric: 'ms', yLabel: 'workload time (ms)', log: true, filter: (r) => r.variant.startsWith('ring') },
  { file: 'malloc-article.svg', kind: 'lines', title: 'malloc, workload (d) article: time vs threads', metric: 'ms', yLabel: 'workload time (ms)', log: true, filter: (r) => r.variant.startsWith('article') },
  { file: 'malloc-larson.svg', kind: 'lines', title: 'malloc, workload (c) larson: time vs threads', metric: 'ms', yLabel: 'workload time (ms)', log: true, filter: (r) => r.variant.startsWith('larson') },
  { file: 'malloc-xfree.svg', kind: 'bars', title: 'malloc, workload (b) xfree: one thread allocates, another frees', metric: 'ms', filter: (r) => r.variant.startsWith('xfree') },
  { file: 'malloc-threads-memory.svg', kind: 'lines', title: 'malloc, workload (e) threads: memory vs threads (each holds 256 blocks)', metric: 'mem_kb', yLabel: 'KiB', filter: (r) => r.variant.startsWith('threads') },
  { file: 'malloc-memory.svg', kind: 'lines', title: 'malloc, workload (a) ring: peak memory vs threads', metric: 'mem_kb', yLabel: 'KiB', filter: (r) => r.variant.startsWith('ring') },
  { file: 'malloc-code-size.svg', kind: 'bars', title: 'Code size of hello world per allocator', metric: 'bytes', filter: (r) => r.variant.startsWith('code size') },
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
  if (!existsSync(join(ctx.repo, 'bench', 'alloc', 'build.sh'))) return 'bench/alloc/build.sh does not exist';
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
  const { pool, workloads } = workloadsOf(ctx);
  const poolFlags = (args) => (pool === 'default' ? [] : ['--threads', String(args[0] === 'larson' ? 2 * Number(args[1]) : Number(args[1]))]);
  const spindle = (wasm) => (args) => ctx.commands.spindle(join(out, wasm), args, poolFlags(args));
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
  const base = ctx.params?.['malloc.baseline'];
  if (base) {
    if (!existsSync(join(base, 'c_spindle.wasm'))) throw new Error(`malloc.baseline: ${base} has no c_spindle.wasm (run bench/alloc/build.sh in that checkout)`);
    const at = (wasm) => (args) => ctx.commands.spindle(join(base, wasm), args, poolFlags(args));
    configs.push(
      { config: 'c-spindle@base', file: join(base, 'c_spindle.wasm'), cmd: at('c_spindle.wasm'), note: `C, spindle-alloc of ${base}, spindle CLI` },
      { config: 'rust-spindle@base', file: join(base, 'rust_spindle.wasm'), cmd: at('rust_spindle.wasm'), note: `Rust, spindle-alloc of ${base}, spindle CLI` },
    );
  }
  // T = 1, 2, 4 by default; an explicit --threads list replaces that (xfree runs at T=2 only).
  const threads = ctx.threadsExplicit ? ctx.threads : [1, 2, 4];
  const rows = [];
  for (const w of workloads) {
    for (const t of w.threads ?? threads) {
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
        const why = c.missing ?? (w.cOnly && c.config.startsWith('rust') ? `workload ${w.name} exists in the C program only` : undefined)
          ?? (!existsSync(isAbsolute(c.file) ? c.file : join(out, c.file)) ? `${c.file} was not built by bench/alloc/build.sh` : undefined)
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
  rows.push(...codeSizeRows(out));
  return withRatios(rows);
}

/** The stripped hello-world programs' sizes: what each allocator adds to a program (bytes). */
function codeSizeRows(out) {
  const sizes = [['c', 'hello_c_dlmalloc', 'hello_c_spindle'], ['rust', 'hello_rust_default', 'hello_rust_spindle']];
  const rows = [];
  for (const [lang, base, ...others] of sizes) {
    for (const f of [base, ...others]) {
      const path = join(out, `${f}.wasm`);
      if (!existsSync(path)) continue;
      const bytes = statSync(path).size;
      rows.push({ experiment: id, variant: `code size ${lang}`, config: f, metric: 'bytes', unit: 'B', runs: 1, min: bytes, median: bytes,
        baseline: base, ratio_min: NaN, ratio_median: NaN, ok: true, note: 'stripped hello world (bench/alloc/build.sh)', samples: [bytes] });
    }
  }
  return rows;
}

/** The allocator's scaling goals (ring workload: T=1 against dlmalloc, throughput as threads grow) where this run measures them. */
export function goals(rows) {
  const ms = (config, t) => rows.find((r) => r.variant === `ring T=${t}` && r.config === config && r.metric === 'ms');
  const out = [];
  const s1 = ms('c-spindle', 1), d1 = ms('c-dlmalloc', 1);
  if (s1?.ok && d1?.ok) out.push(`malloc ring T=1: c-spindle ${(d1.median / s1.median).toFixed(2)}x faster than c-dlmalloc (goal >= 2.3x: ${d1.median / s1.median >= 2.3 ? 'MET' : 'NOT MET'})`);
  // The total number of pairs is fixed, so throughput(T=2) / throughput(T=1) = time(T=1) / time(T=2).
  const s2 = ms('c-spindle', 2);
  if (s1?.ok && s2?.ok) out.push(`malloc ring T=2 vs T=1 throughput, c-spindle: ${(s1.median / s2.median).toFixed(2)}x (goal >= 1.7x: ${s1.median / s2.median >= 1.7 ? 'MET' : 'NOT MET'})`);
  const d2 = ms('c-dlmalloc', 2);
  if (d1?.ok && d2?.ok) out.push(`malloc ring T=2 vs T=1 throughput, c-dlmalloc: ${(d1.median / d2.median).toFixed(2)}x (a global lock: below 1.0x expected)`);
  const s4 = ms('c-spindle', 4);
  if (s2?.ok && s4?.ok) out.push(`malloc ring T=4 vs T=2 time, c-spindle: ${(s4.median / s2.median).toFixed(2)}x (goal <= 1.15x: ${s4.median / s2.median <= 1.15 ? 'MET' : 'NOT MET'})`);
  return [...out, ...issue18Goals(rows)];
}

/** Issue 18's memory and speed goals, where this run measures them. */
function issue18Goals(rows) {
  const row = (variant, config, metric) => rows.find((r) => r.variant === variant && r.config === config && r.metric === metric && r.ok);
  const out = [];
  const verdict = (ok) => (ok ? 'MET' : 'NOT MET');
  for (const w of ['ring', 'article']) {
    for (const [t, bar] of [[1, 1.25], [2, undefined], [4, 1.5]]) {
      const s = row(`${w} T=${t}`, 'c-spindle', 'mem_kb'), d = row(`${w} T=${t}`, 'c-dlmalloc', 'mem_kb');
      if (s && d) out.push(`malloc ${w} T=${t} peak memory: c-spindle ${s.min} KiB = ${(s.min / d.min).toFixed(2)}x c-dlmalloc's ${d.min} KiB${bar ? ` (goal <= ${bar}x: ${verdict(s.min / d.min <= bar)})` : ''}`);
    }
    for (const t of [1, 2]) {
      const s = row(`${w} T=${t}`, 'c-spindle', 'ms'), b = row(`${w} T=${t}`, 'c-spindle@base', 'ms');
      if (s && b) out.push(`malloc ${w} T=${t} time: c-spindle ${(s.median / b.median).toFixed(3)}x c-spindle@base (median; min ${(s.min / b.min).toFixed(3)}x; goal <= 1.05x: ${verdict(s.median / b.median <= 1.05)})`);
      const sm = row(`${w} T=${t}`, 'c-spindle', 'mem_kb'), bm = row(`${w} T=${t}`, 'c-spindle@base', 'mem_kb');
      if (sm && bm) out.push(`malloc ${w} T=${t} peak memory: c-spindle ${sm.min} KiB vs c-spindle@base ${bm.min} KiB (${(sm.min / bm.min).toFixed(2)}x)`);
    }
  }
  const a = row('article T=1', 'c-spindle', 'ms'), g = row('article T=1', 'native-glibc', 'ms');
  if (a && g) out.push(`malloc article T=1: c-spindle ${(a.median / g.median).toFixed(2)}x native glibc's time (median; min ${(a.min / g.min).toFixed(2)}x; goal <= 1.4x: ${verdict(a.median / g.median <= 1.4)})`);
  for (const config of ['c-spindle', 'c-dlmalloc']) {
    const one = row('threads T=1', config, 'mem_kb'), many = row('threads T=64', config, 'mem_kb');
    if (one && many) out.push(`malloc threads: ${config} ${many.min} KiB with 64 threads holding 256 blocks each, ${one.min} KiB with 1: ${((many.min - one.min) / 63).toFixed(1)} KiB per extra thread`);
  }
  return out;
}
