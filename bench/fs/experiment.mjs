/**
 * The filesystem experiment (the reference article's third chart), plugged into
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
 *   napi-rs-memfs        the baseline: the plain module on @emnapi/wasi-threads + @tybys/wasm-util
 *                        with a memfs on the JS main thread, wired as @napi-rs/wasm-runtime's
 *                        browser loader does (bench/runtime/hosts/memfs-proxied-run.mjs): memfs
 *                        direct on the main thread, proxied to it from a pthread
 *   spindle-inprogram    (i) libspindle.a on the spindle CLI: files in the program's memory
 *   spindle-sharedfs     (iii) the plain module on the spindle CLI with /tmp a memory mount
 *   spindle-hostdir      the plain module on the spindle CLI with --dir on tmpfs
 *   wasmtime-inprogram   (i) the same module on wasmtime 46 (portability; when installed)
 *   nodewasi-inprogram   (i) on node:wasi (main thread only: node:wasi has no threads)
 *   nodewasi-hostfs      the plain module on node:wasi with /tmp preopened on tmpfs (main only)
 *   wasi-shim            the plain module on @bjorn3/browser_wasi_shim, /tmp its in-memory
 *                        PreopenDirectory (main only: no threads)
 *   native-tmpfs         gcc -O2 -pthread on a tmpfs directory (/dev/shm)
 *
 * Every run's line must report every operation and the checksum of what it read back, which
 * must equal expectedChecksum(rounds, threads) (the workload's definition, computed here; native
 * is checked like every other configuration): a file system that loses or mixes up data FAILS.
 * The JS file systems and host directories run fewer rounds than the others (their ns per
 * operation is per operation all the same), so that a run takes seconds, not minutes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, parseLine, withRatios } from '../harness/lib/measure.mjs';
import { inFreshDir } from '../harness/lib/proc.mjs';
import { expectChecksum, unavailableRows } from '../harness/rows.mjs';

export const id = 'fs';
export const title = 'Filesystem: reference workload, main thread vs worker and T threads (spindle-fs in-program and shared, host dirs, JS file systems, native tmpfs)';
export const needs = ['programs', 'peers', 'wasmtime'];
export const notes = [
  'Per round and file: create + write 1 KiB + close, open + read + close, stat (3 operations); 64 files; timed inside the thread.',
  'Each write stamps (thread, round, file) into the data; the checksum of what was read back must equal the one the workload\'s definition gives, or the configuration FAILS.',
  'In-program (i): the program links libspindle.a (bench/fs/build.sh); its files live in its shared memory, no host call per operation '
    + 'except the clock that stamps modifications.',
  'Baseline: napi-rs-memfs, the JS file system (memfs) on the JS main thread as @napi-rs/wasm-runtime wires it in browsers: direct on the '
    + 'main thread, and from a pthread every fs call posted to the main thread, which answers through Atomics (its createFsProxy / createOnMessage).',
  'The JS file systems (napi-rs-memfs, wasi-shim) and host directories (spindle-hostdir) run fewer rounds, so that a run takes seconds '
    + '(the cost per operation does not depend on the round count); the proxied runs fewest. Each row\'s note gives its rounds.',
  'Node-hosted wasm peers run with node --no-liftoff (V8\'s optimizing tier up front, as spindle).',
];

const METRICS = [{ key: 'ns_per_op', unit: 'ns' }];
const BASELINE = 'napi-rs-memfs';
const FILES = 64;
const OPS_PER_FILE = 3;

/** A fresh directory on tmpfs when there is one (Linux /dev/shm), else in the OS temp dir. */
function scratch() {
  return mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'spindle-fs-bench-'));
}

const FNV_OFFSET = 14695981039346656037n;
const FNV_PRIME = 1099511628211n;
const STAMPS = 3;
const MASK = (1n << 64n) - 1n;
const checksums = new Map();

/**
 * The checksum bench/fs/workload.c prints for `rounds` rounds on `threads` threads: per thread,
 * FNV-1a over the three stamped words of every file read back, summed over threads (mod 2^64).
 */
export function expectedChecksum(rounds, threads) {
  const key = `${rounds}/${threads}`;
  if (checksums.has(key)) return checksums.get(key);
  let sum = 0n;
  for (let t = 0n; t < BigInt(threads); t++) {
    let h = FNV_OFFSET;
    for (let r = 0n; r < BigInt(rounds); r++) {
      for (let i = 0n; i < BigInt(FILES); i++) {
        const stamp = (t << 48n) | (r << 16n) | i;
        for (let k = 0n; k < BigInt(STAMPS); k++) h = ((h ^ (stamp ^ (k << 40n))) * FNV_PRIME) & MASK;
      }
    }
    sum = (sum + h) & MASK;
  }
  const hex = sum.toString(16).padStart(16, '0');
  checksums.set(key, hex);
  return hex;
}

/** Checks a run's line (every operation done, the checksum of what it read back) and returns its metric. */
export function fsCheck(rounds, threads) {
  const ops = rounds * FILES * OPS_PER_FILE * threads;
  return (r) => {
    const f = parseLine(r.stdout, 'fs ');
    if (Number(f.ops) !== ops) throw new Error(`expected ${ops} operations, the program reports ${f.ops}`);
    expectChecksum(f.checksum, expectedChecksum(rounds, threads), `the workload's definition, ${rounds} rounds x ${threads} thread(s)`);
    return { ns_per_op: Number(f.elapsed_ns) / ops };
  };
}

/**
 * Whether a probe run of the spindle CLI with an option of the runtime's FS (`--mount
 * GUEST=memory`, `--dir HOST::GUEST`) shows the option missing from the build under test: an
 * unknown option, or the CLI's "not available yet". Returns the reason, or undefined when the
 * option is there (any other failure is left to the measured runs, which FAIL loudly).
 */
export function optionUnavailable(flag, probe) {
  if (probe.status === 0) return undefined;
  const err = `${probe.stderr ?? ''}`.trim();
  if (/unknown option|not available/i.test(err)) return `the spindle CLI under test cannot run ${flag}: ${err.split('\n')[0].slice(0, 200)}`;
  return undefined;
}

function probeOption(ctx, flag, value, plain) {
  const probe = spawnSync(process.execPath, [ctx.spindleCli, 'run', flag, value, plain, 'main', '1', '/tmp'], { encoding: 'utf8', timeout: 120_000 });
  return optionUnavailable(flag, probe);
}

/** The workload's arguments for one variant. */
function workloadArgs(v, rounds, dir) {
  return [v.mode, String(rounds), dir, ...(v.mode === 'threads' ? [String(v.threads)] : [])];
}

export async function run(ctx) {
  const out = execFileSync('bash', [join(ctx.repo, 'bench', 'fs', 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim().split('\n').pop();
  const inprogram = join(out, 'fs-inprogram.wasm');
  const plain = join(out, 'fs-plain.wasm');
  const native = join(out, 'fs-native');
  const node = process.execPath;
  const nodeWasi = join(ctx.repo, 'runtime', 'test', 'fs-node-wasi-runner.mjs');
  const hosts = join(ctx.benchDir, 'hosts');
  const rounds = ctx.quick ? 200 : 730; // 730 rounds x 64 files x 3 = 140k operations (the article's count)
  const jsRounds = ctx.quick ? 20 : 73; // JS file systems, host directories: ~10-150 us per operation
  const proxiedRounds = ctx.quick ? 4 : 10; // through the proxy: ~1-3 ms per operation (split over T threads)
  const base = scratch();
  const rows = [];
  try {
    mkdirSync(join(base, 'probe'));
    const sharedFsMissing = probeOption(ctx, '--mount', '/tmp=memory', plain);
    const hostDirMissing = probeOption(ctx, '--dir', `${join(base, 'probe')}::/tmp`, plain);
    const variants = [
      { variant: 'main', mode: 'main', threads: 1 },
      { variant: 'worker', mode: 'worker', threads: 1 },
      // --quick: T <= cores only (each variant costs ~10 processes x runs; more threads than
      // cores only show oversubscription, the full run has them)
      ...ctx.threads.filter((t) => t <= (ctx.quick ? ctx.cores : 8)).map((t) => ({ variant: `T=${t}`, mode: 'threads', threads: t })),
    ];
    // Every variant's configurations run in ONE interleaved loop (each round runs all of them), so
    // the goals that compare variants (pthread/main, T=2 / T=1) compare runs made at the same
    // moments of the machine, not minutes apart.
    const spec = { experiment: id, baseline: BASELINE, metrics: METRICS };
    const all = [];
    const unavailableAll = []; // rows, after the measured ones
    for (const v of variants) {
      // A note is per configuration in the summary (the same for every variant), so it says all of them.
      const config = (name, r, cmd, note, rounds = `${r} rounds`) => ({ config: name, variant: v.variant, cmd, check: fsCheck(r, v.threads), note: `${note}; ${rounds}` });
      const args = (r, dir) => workloadArgs(v, r, dir);
      const peerRounds = v.mode === 'main' ? jsRounds : Math.max(1, Math.ceil(proxiedRounds / v.threads));
      const mainOnly = v.mode === 'main';
      ctx.log(`fs ${v.variant} (${rounds * FILES * OPS_PER_FILE * v.threads} operations; JS file systems ${peerRounds * FILES * OPS_PER_FILE * v.threads})`);
      const configs = [
        config(BASELINE, peerRounds, [node, ['--no-warnings', '--no-liftoff', join(hosts, 'memfs-proxied-run.mjs'),
          '--where', mainOnly ? 'main' : 'worker', '--pool', String(v.threads), plain, ...args(peerRounds, '/tmp')]],
        '@napi-rs/wasm-runtime/fs memfs on the JS main thread, @tybys/wasm-util WASI: direct in `main`; in `worker` and T=n every '
          + 'wasm thread on a worker, each fs call proxied to the main thread (createFsProxy / createOnMessage)',
        `${jsRounds} rounds in main, ${proxiedRounds} / T (rounded up) on pthreads`),
        config('spindle-inprogram', rounds, ctx.commands.spindle(inprogram, args(rounds, '/tmp')), 'libspindle.a on the spindle CLI'),
      ];
      const unavailable = [];
      if (!sharedFsMissing) {
        configs.push(config('spindle-sharedfs', rounds, ctx.commands.spindle(plain, args(rounds, '/tmp'), ['--mount', '/tmp=memory']),
          'plain module on the spindle CLI, --mount /tmp=memory (the runtime\'s shared FS)'));
      } else unavailable.push(['spindle-sharedfs', sharedFsMissing]);
      if (!hostDirMissing) {
        configs.push(config('spindle-hostdir', jsRounds, inFreshDir(node, [ctx.spindleCli, 'run', '--dir', '@DIR::/tmp', plain, ...args(jsRounds, '/tmp')], base),
          `plain module on the spindle CLI, --dir on ${base}`));
      } else unavailable.push(['spindle-hostdir', hostDirMissing]);
      if (ctx.wasmtime.exe) {
        configs.push(config('wasmtime-inprogram', rounds,
          [ctx.wasmtime.exe, ['run', '-W', 'threads=y,shared-memory=y', '-S', 'threads=y', inprogram, ...args(rounds, '/tmp')]], 'libspindle.a on wasmtime 46'));
      } else unavailable.push(['wasmtime-inprogram', ctx.wasmtime.unavailable]);
      if (mainOnly) {
        configs.push(
          config('nodewasi-inprogram', rounds, [node, ['--no-warnings', '--no-liftoff', nodeWasi, inprogram, '--', ...args(rounds, '/tmp')]], 'libspindle.a on node:wasi'),
          config('nodewasi-hostfs', rounds, inFreshDir(node, ['--no-warnings', '--no-liftoff', nodeWasi, plain, '--preopen', '/tmp=@DIR', '--', ...args(rounds, '/tmp')], base),
            `plain module on node:wasi, /tmp preopened on ${base}`),
          config('wasi-shim', jsRounds, [node, ['--no-warnings', '--no-liftoff', join(hosts, 'wasi-shim-run.mjs'), plain, ...args(jsRounds, '/tmp')]],
            '@bjorn3/browser_wasi_shim, /tmp its in-memory PreopenDirectory'),
        );
      } else {
        unavailable.push(['nodewasi-inprogram', 'node:wasi runs no threads'], ['nodewasi-hostfs', 'node:wasi runs no threads'],
          ['wasi-shim', '@bjorn3/browser_wasi_shim runs no threads']);
      }
      configs.push(config('native-tmpfs', rounds, inFreshDir(native, args(rounds, '@DIR'), base), `gcc -O2 -pthread, files on ${base}`));
      all.push(...configs);
      for (const [name, reason] of unavailable) unavailableAll.push(...unavailableRows({ ...spec, variant: v.variant, config: name, reason }));
    }
    rows.push(...await measure(ctx, { ...spec, configs: all, timeoutMs: 300_000 }), ...unavailableAll);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return withRatios(rows);
}

const med = (rows, variant, config) => rows.find((r) => r.variant === variant && r.config === config && r.ok)?.median;
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));

/** One goal line: the figure, the goal, and whether it holds ("not measured" when a figure is missing). */
function goal(label, value, op, target, unit = '') {
  if (!Number.isFinite(value)) return `fs ${label}: not measured (goal ${op} ${target}${unit})`;
  const met = op === '<=' ? value <= target : value >= target;
  return `fs ${label}: ${fmt(value)}${unit} (goal ${op} ${target}${unit}): ${met ? 'met' : 'NOT met'}`;
}

/** The filesystem goals (in-program FS scaling and speed against the baselines) from the medians of one run. */
export function goals(rows) {
  const m = (variant, config) => med(rows, variant, config);
  const t1 = m('T=1', 'spindle-inprogram'), t2 = m('T=2', 'spindle-inprogram');
  return [
    goal('(i) pthread/main', m('worker', 'spindle-inprogram') / m('main', 'spindle-inprogram'), '<=', 1.1),
    goal('(iii) pthread/main', m('worker', 'spindle-sharedfs') / m('main', 'spindle-sharedfs'), '<=', 1.1),
    goal('(i) on a pthread vs the JS FS proxied to the main thread', m('worker', BASELINE) / m('worker', 'spindle-inprogram'), '>=', 30, 'x faster'),
    goal('(i) vs native tmpfs, main thread', m('main', 'native-tmpfs') / m('main', 'spindle-inprogram'), '>=', 3, 'x faster'),
    goal('(iii) / (i), main thread', m('main', 'spindle-sharedfs') / m('main', 'spindle-inprogram'), '<=', 3, 'x the time'),
    // ns_per_op is over all threads' operations: the throughput ratio T=2 / T=1 is t1 / t2.
    goal('(i) throughput T=2 / T=1', t1 / t2, '>=', 1.6, 'x'),
  ];
}

/** The charts (log scale: the proxied baseline is ~1000x the in-memory file systems). */
export const charts = [
  { file: 'fs.svg', kind: 'bars', title: 'Filesystem: ns per operation, main thread vs one pthread', metric: 'ns_per_op',
    filter: (r) => r.variant === 'main' || r.variant === 'worker', log: true },
  { file: 'fs-threads.svg', kind: 'lines', title: 'Filesystem: ns per operation (all threads) vs threads', metric: 'ns_per_op',
    filter: (r) => r.variant.startsWith('T='), log: true },
];
