/**
 * The filesystem experiment (issue 5; the reference article's third chart), plugged into
 * `spindle bench` through the registry's hook for bench/fs/experiment.mjs.
 *
 * Workload (bench/fs/workload.c, timed inside the thread that does it): per round, over 64
 * files: create + write 1 KiB + close, open + read + close, stat. Metric: ns per operation.
 *
 *   variant main     the program's main thread
 *   variant worker   one pthread
 *   variant T=n      n pthreads, each on its own files (wall time of all / all operations)
 *
 * Configurations:
 *   native-tmpfs         gcc -O2 -pthread on a tmpfs directory (/dev/shm): the baseline
 *   spindle-inprogram    (i) libspindle.a on the spindle CLI: files in the program's memory
 *   wasmtime-inprogram   (i) the same module on wasmtime 46 (portability; when installed)
 *   nodewasi-inprogram   (i) on node:wasi (main thread only: node:wasi has no threads)
 *   nodewasi-hostfs      the plain module on node:wasi with /tmp preopened on tmpfs (main only)
 * Not available yet (listed as such): (iii) the runtime's shared FS, and the JS FS proxied to
 * the main thread as @napi-rs/wasm-runtime wires memfs (the issue's intended baseline).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, parseLine, withRatios } from '../runtime/lib/measure.mjs';
import { unavailableRows } from '../harness/rows.mjs';

export const id = 'fs';
export const title = 'Filesystem: reference workload, main thread vs worker and T threads (in-program spindle-fs, node:wasi, native tmpfs)';
export const needs = ['programs', 'wasmtime'];
export const notes = [
  'Per round and file: create + write 1 KiB + close, open + read + close, stat (3 operations); 64 files; timed inside the thread.',
  'In-program (i): the program links libspindle.a (bench/fs/build.sh); its files live in its shared memory, no host call per operation '
    + 'except the clock that stamps modifications.',
  'Baseline: native syscalls on tmpfs. The JS FS proxied to the main thread (@napi-rs/wasm-runtime\'s browser wiring) and the runtime\'s '
    + 'shared FS (iii) are not available yet.',
];

const METRICS = [{ key: 'ns_per_op', unit: 'ns' }];
const BASELINE = 'native-tmpfs';

/** A fresh directory on tmpfs when there is one (Linux /dev/shm), else in the OS temp dir. */
function scratch() {
  return mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'spindle-fs-bench-'));
}

/** Checks a run's line (every operation done) and returns its metric. */
function check(expectedOps) {
  return (r) => {
    const f = parseLine(r.stdout, 'fs ');
    if (Number(f.ops) !== expectedOps) throw new Error(`expected ${expectedOps} operations, the program reports ${f.ops}`);
    return { ns_per_op: Number(f.elapsed_ns) / expectedOps };
  };
}

/**
 * Each run needs an empty directory (the workload makes DIR/t<i>): native and host-FS runs get a
 * fresh one under `base` through a shell wrapper, which replaces `@DIR` in the arguments by it and
 * removes it afterwards. In-program runs always start with an empty /tmp.
 */
function inFreshDir(exe, args, base) {
  const quote = (a) => `'${a.replace(/'/g, "'\\''").split('@DIR').join(`'"$d"'`)}'`;
  const cmd = [exe, ...args].map(quote).join(' ');
  return ['sh', ['-c', `d=$(mktemp -d "$0/run.XXXXXX") && ${cmd}; s=$?; rm -rf "$d"; exit $s`, base]];
}

export async function run(ctx) {
  const out = execFileSync('bash', [join(ctx.repo, 'bench', 'fs', 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim().split('\n').pop();
  const inprogram = join(out, 'fs-inprogram.wasm');
  const plain = join(out, 'fs-plain.wasm');
  const native = join(out, 'fs-native');
  const runner = join(ctx.repo, 'runtime', 'test', 'fs-node-wasi-runner.mjs');
  const rounds = ctx.quick ? 200 : 730; // 730 rounds x 64 files x 3 = 140k operations (the article's count)
  const base = scratch();
  const rows = [];
  try {
    const variants = [
      { variant: 'main', mode: ['main'], threads: 1 },
      { variant: 'worker', mode: ['worker'], threads: 1 },
      ...ctx.threads.filter((t) => t <= 8).map((t) => ({ variant: `T=${t}`, mode: ['threads'], threads: t })),
    ];
    for (const v of variants) {
      const args = (dir) => [...v.mode, String(rounds), dir, ...(v.mode[0] === 'threads' ? [String(v.threads)] : [])];
      const ops = rounds * 64 * 3 * v.threads;
      const spec = { experiment: id, variant: v.variant, baseline: BASELINE, metrics: METRICS };
      const c = check(ops);
      ctx.log(`fs ${v.variant} (${ops} operations)`);
      const configs = [
        { config: BASELINE, cmd: inFreshDir(native, args('@DIR'), base), check: c, note: `gcc -O2 -pthread, files on ${base}` },
        { config: 'spindle-inprogram', cmd: ctx.commands.spindle(inprogram, args('/tmp')), check: c, note: 'libspindle.a on the spindle CLI' },
      ];
      if (ctx.wasmtime.exe) {
        configs.push({ config: 'wasmtime-inprogram', check: c, note: 'libspindle.a on wasmtime 46',
          cmd: [ctx.wasmtime.exe, ['run', '-W', 'threads=y,shared-memory=y', '-S', 'threads=y', inprogram, ...args('/tmp')]] });
      }
      const mainOnly = v.variant === 'main';
      if (mainOnly) {
        configs.push(
          { config: 'nodewasi-inprogram', check: c, note: 'libspindle.a on node:wasi',
            cmd: [process.execPath, ['--no-warnings', runner, inprogram, '--', ...args('/tmp')]] },
          { config: 'nodewasi-hostfs', check: c, note: `plain module on node:wasi, /tmp preopened on ${base}`,
            cmd: inFreshDir(process.execPath, ['--no-warnings', runner, plain, '--preopen', '/tmp=@DIR', '--', ...args('/tmp')], base) },
        );
      }
      const measured = await measure(ctx, { ...spec, configs, timeoutMs: 300_000 });
      if (!ctx.wasmtime.exe) {
        measured.push(...unavailableRows({ ...spec, config: 'wasmtime-inprogram', reason: ctx.wasmtime.unavailable }));
      }
      if (!mainOnly) {
        for (const config of ['nodewasi-inprogram', 'nodewasi-hostfs']) {
          measured.push(...unavailableRows({ ...spec, config, reason: 'node:wasi runs no threads' }));
        }
      }
      rows.push(...measured);
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return withRatios(rows);
}

const med = (rows, variant, config) => rows.find((r) => r.variant === variant && r.config === config && r.ok)?.median;
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

/** The issue's goals for (i), from the medians. */
export function goals(rows) {
  const main = med(rows, 'main', 'spindle-inprogram');
  const worker = med(rows, 'worker', 'spindle-inprogram');
  const native = med(rows, 'main', BASELINE);
  const t1 = med(rows, 'T=1', 'spindle-inprogram');
  const t2 = med(rows, 'T=2', 'spindle-inprogram');
  const out = [
    `fs (i) pthread/main: ${fmt(worker / main)} (goal <= 1.1)`,
    `fs (i) faster than native tmpfs: ${fmt(native / main)}x (goal >= 3)`,
  ];
  // ns_per_op over all threads' operations: throughput ratio T=2 / T=1 is t1 / t2.
  if (t1 && t2) out.push(`fs (i) throughput T=2 / T=1: ${fmt(t1 / t2)}x (goal >= 1.6)`);
  out.push('fs (i) vs the JS FS proxied to the main thread (goal >= 30x on a pthread): not measured (peer not available yet)');
  return out;
}
