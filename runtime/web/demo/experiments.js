/**
 * The demo's experiments: what runs, with which arguments, and how a run's output line becomes a
 * figure. Shared by the demo page (demo.js) and the browser benchmarks (bench/browser/run.mjs,
 * which call `measure` in the page through window.spindleDemo).
 *
 *   math    (a) pure math on T threads, fixed total work: bench/programs/math.c
 *   malloc  (b) malloc/free pairs on T threads (workload "ring"): wasi-libc's dlmalloc vs spindle-alloc
 *   fs      (c) the reference filesystem workload (bench/fs/workload.c): the in-program FS
 *               (libspindle.a) vs a JS filesystem on the page's main thread, called directly or
 *               proxied from workers (the @napi-rs/wasm-runtime wiring: jsfs/)
 *   spawn   thread spawn latency with the warm pool (bench/programs/spawn_latency.c); bench only
 *
 * Every configuration's `run(T, size)` resolves with { value, unit, line } or throws with the
 * program's stderr. Nothing here times anything itself: the programs time their own work.
 */
import { createProgram, load } from '/spindle/browser.js';
import { runOnMainThread, runProxied } from './jsfs/host.js';

/** Work per run. `small` is for tests and a quick look; `full` matches `spindle bench`. */
export const SIZES = {
  small: { mathIters: 4_000_000, mallocPairs: 100_000, fsRounds: 10, spawnRounds: 50 },
  medium: { mathIters: 50_000_000, mallocPairs: 500_000, fsRounds: 100, spawnRounds: 200 },
  full: { mathIters: 200_000_000, mallocPairs: 2_000_000, fsRounds: 730, spawnRounds: 1000 },
};

/** The programs, by file name under the programs base URL (bench/browser/build.sh builds them). */
export const PROGRAMS = ['math.wasm', 'c_dlmalloc.wasm', 'c_spindle.wasm', 'fs-inprogram.wasm', 'fs-plain.wasm', 'spawn_latency.wasm'];

let base = '/build/bench/browser/';
const loaded = new Map();

/** Where the programs are served (a URL path ending in '/'). */
export function setProgramsBase(url) {
  base = url.endsWith('/') ? url : `${url}/`;
  loaded.clear();
}
export const programUrl = (file) => new URL(base + file, location.href).href;

/** Compiled once per page: later runs share the compiled code (and what V8 has tiered up since). */
function program(file) {
  if (!loaded.has(file)) {
    const p = load(programUrl(file));
    p.catch(() => loaded.delete(file));
    loaded.set(file, p);
  }
  return loaded.get(file);
}

/** Runs `file` on spindle with a warm pool of `pool` workers (undefined: the runtime's default); resolves with stdout or throws. */
async function spindle(file, args, pool) {
  const dec = new TextDecoder();
  let stdout = '', stderr = '';
  const code = await createProgram(await program(file), {
    args, threads: pool,
    stdout: (b) => { stdout += dec.decode(b, { stream: true }); },
    stderr: (b) => { stderr += dec.decode(b, { stream: true }); },
  }).start();
  return checked({ code, stdout, stderr }, file, args);
}

function checked(r, file, args) {
  if (r.code !== 0) throw new Error(`${file} ${args.join(' ')} exited with ${r.code}: ${r.stderr.trim() || '(no stderr)'}`);
  return r.stdout;
}

/** The `key=value` fields of the output line that starts with `prefix`. */
export function fields(stdout, prefix) {
  const line = stdout.split('\n').find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`no line starting with "${prefix}" in the output: ${JSON.stringify(stdout.slice(0, 200))}`);
  return { line, ...Object.fromEntries(line.split(' ').filter((p) => p.includes('=')).map((p) => p.split('='))) };
}

function mathResult(stdout, t, iters) {
  const f = fields(stdout, 'math ');
  if (Number(f.threads) !== t || Number(f.iters) !== iters) throw new Error(`unexpected math line: ${f.line}`);
  return { value: Number(f.elapsed_ms), unit: 'ms', line: f.line };
}

function mallocResult(stdout, t, pairs) {
  const f = fields(stdout, 'RESULT ');
  if (Number(f.threads) !== t || Number(f.ops) !== pairs) throw new Error(`unexpected malloc line: ${f.line}`);
  return { value: Number(f.ms), unit: 'ms', line: f.line };
}

/** ns per file operation over all threads' operations (wall time / operations). */
function fsResult(stdout, expectedOps) {
  const f = fields(stdout, 'fs ');
  if (Number(f.ops) !== expectedOps) throw new Error(`expected ${expectedOps} operations, the program reports ${f.ops}: ${f.line}`);
  return { value: Number(f.elapsed_ns) / expectedOps, unit: 'ns/op', line: f.line };
}

const fsOps = (rounds, t) => rounds * 64 * 3 * t;
const fsArgs = (mode, rounds, t) => [mode, String(rounds), '/tmp', ...(mode === 'threads' ? [String(t)] : [])];

/**
 * Each experiment has charts; each chart has an x axis (`x`: 'threads' or a list of categories)
 * and one series per configuration. A configuration's `run(x, size)` measures one point.
 */
export const EXPERIMENTS = [
  {
    id: 'math',
    title: '(a) Pure math: compute time vs threads',
    note: 'Fixed total work split over T threads (integer hashing and doubles); time measured inside the program. '
      + 'Lower is better; perfect scaling halves the time when T doubles, up to the number of cores.',
    charts: [{
      id: 'math', x: 'threads', yLabel: 'compute time (ms)',
      series: [{
        id: 'spindle', label: 'spindle (math.wasm)',
        run: async (t, s) => mathResult(await spindle('math.wasm', [String(t), String(s.mathIters)], t), t, s.mathIters),
      }],
    }],
  },
  {
    id: 'malloc',
    title: '(b) malloc scaling: wasi-libc dlmalloc vs spindle-alloc',
    note: 'T threads share a fixed number of malloc/free pairs (each keeps a ring of 256 live blocks of 8..1024 bytes). '
      + 'The same C program linked against each allocator. Lower is better.',
    charts: [{
      id: 'malloc', x: 'threads', yLabel: 'workload time (ms)',
      series: [
        { id: 'dlmalloc', label: 'wasi-libc dlmalloc (one lock)',
          run: async (t, s) => mallocResult(await spindle('c_dlmalloc.wasm', ['ring', String(t), String(s.mallocPairs)], t), t, s.mallocPairs) },
        { id: 'spindle-alloc', label: 'spindle-alloc',
          run: async (t, s) => mallocResult(await spindle('c_spindle.wasm', ['ring', String(t), String(s.mallocPairs)], t), t, s.mallocPairs) },
      ],
    }],
  },
  {
    id: 'fs',
    title: '(c) Filesystem: main thread vs worker, in-program FS vs a JS FS proxied to the page',
    note: 'Per round and file: create + write 1 KiB + close, open + read + close, stat; 64 files. '
      + 'In the browser spindle runs a program\'s main thread on a worker too (the page may not block). '
      + 'The JS FS lives on the page\'s main thread; from a worker every call is a postMessage and an Atomics.wait '
      + '(the @napi-rs/wasm-runtime wiring). Lower is better.',
    charts: [
      {
        id: 'fs-where', x: ['program main thread', 'a pthread'], yLabel: 'time per file operation (ns)', log: true,
        series: [
          { id: 'inprogram', label: 'in-program FS (libspindle.a) on spindle',
            run: async (where, s) => {
              const mode = where === 'a pthread' ? 'worker' : 'main';
              return fsResult(await spindle('fs-inprogram.wasm', fsArgs(mode, s.fsRounds, 1), 1), fsOps(s.fsRounds, 1));
            } },
          { id: 'jsfs-page', label: 'JS FS, program on the page\'s main thread (direct calls)', only: ['program main thread'],
            run: async (_where, s) => {
              const args = fsArgs('main', s.fsRounds, 1);
              return fsResult(checked(await runOnMainThread(await program('fs-plain.wasm'), { args }), 'fs-plain.wasm', args), fsOps(s.fsRounds, 1));
            } },
          { id: 'jsfs-proxied', label: 'JS FS, program on workers (calls proxied to the page)',
            run: async (where, s) => {
              const args = fsArgs(where === 'a pthread' ? 'worker' : 'main', s.fsRounds, 1);
              const r = await runProxied(await program('fs-plain.wasm'), { args, threads: 1 });
              return fsResult(checked(r, 'fs-plain.wasm', args), fsOps(s.fsRounds, 1));
            } },
        ],
      },
      {
        id: 'fs-threads', x: 'threads', yLabel: 'wall time / all operations (ns)', log: true,
        series: [
          { id: 'inprogram', label: 'in-program FS (libspindle.a) on spindle',
            run: async (t, s) => fsResult(await spindle('fs-inprogram.wasm', fsArgs('threads', s.fsRounds, t), t), fsOps(s.fsRounds, t)) },
          { id: 'jsfs-proxied', label: 'JS FS proxied to the page',
            run: async (t, s) => {
              const args = fsArgs('threads', s.fsRounds, t);
              return fsResult(checked(await runProxied(await program('fs-plain.wasm'), { args, threads: t }), 'fs-plain.wasm', args), fsOps(s.fsRounds, t));
            } },
        ],
      },
    ],
  },
];

/** Thread spawn latency with the warm pool (bench/browser only): K threads per round, p50 and p99. */
export async function spawnLatency(k, size) {
  const rounds = SIZES[size].spawnRounds;
  const args = [String(k), String(rounds)];
  // The runtime's default pool (one worker per core), as in bench/runtime's spawn-latency.
  const f = fields(await spindle('spawn_latency.wasm', args, undefined), 'spawn_latency ');
  if (Number(f.samples) !== k * rounds) throw new Error(`unexpected spawn_latency line: ${f.line}`);
  return { p50_ns: Number(f.p50_ns), p99_ns: Number(f.p99_ns), min_ns: Number(f.min_ns), line: f.line };
}

/** Measures one point: experiment `id`, chart `chart`, series `series`, at `x`. */
export function measure(id, chart, series, x, size = 'small') {
  const c = EXPERIMENTS.find((e) => e.id === id)?.charts.find((ch) => ch.id === chart);
  const s = c?.series.find((se) => se.id === series);
  if (!s) throw new Error(`no configuration ${id}/${chart}/${series}`);
  return s.run(x, SIZES[size]);
}
