/**
 * The thread-cost experiment (issue 17 item 4: cheap threads beyond the pool): what a thread costs
 * once the program runs more threads than the pool holds, in time and memory, against the floor
 * (bare Node workers), wasmtime, native threads, and an older spindle in the same run.
 *
 *   blocked N  N threads alive at once, all blocked on a condition variable until the last has
 *              started, then released and joined (tests/guests/c/blocked.c); N = 512 and N = 1
 *   chain D    thread k starts thread k+1 and joins it, to depth D: each start waits for the
 *              previous (tests/guests/c/chain.c); D = 100 and D = 1
 *
 * Configurations: spindle (this runtime, default options), spindle-before (an older checkout's
 * CLI, `--param thread-cost.before=DIR`: the baseline of the ratios), node-workers (the floor:
 * bare worker_threads Workers of an eval'd script in the same shapes, bench/runtime/hosts/
 * bare-workers.mjs), node-workers-limits (the same with the Worker options spindle gives its
 * pool workers: the floor as low as we found it), wasmtime 46, native (gcc -O2 -pthread); and on
 * each Node line of `--param thread-cost.lines=26` (tools/node-lines.sh; `none` for none):
 * spindle-nodeNN, node-workers-nodeNN, node-workers-limits-nodeNN, and on a line with JSPI for
 * workers (22+: on 22 behind a V8 flag spindle sets, runtime/src/jspi.ts), where spindle-nodeNN
 * hosts threads beyond the pool by default, spindle-hosted-nodeNN
 * (`--host-threads`: they share the host workers, runtime/src/host-worker.ts) and
 * spindle-workers-nodeNN (`--no-host-threads`: a worker each) in the same run.
 * On Node 20 (the PATH's node), spindle-stack-switching: the same started with
 * --experimental-wasm-stack-switching, where it hosts them (the earlier JSPI in every context).
 * `--param thread-cost.configs=a,b` runs only those configurations.
 *
 * Every run is a fresh process under GNU time (lib/rusage.mjs): exit = the parent's wall time,
 * cpu = user + system time of the whole process, rss = its peak resident set. Per thread = (value
 * at N - value at 1) / (N - 1), from the medians: the process's fixed costs (Node, compile, the
 * prewarmed pool) cancel out. A run counts only if the program reports every thread joined
 * (blocked) or the full depth reached (chain).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { measure, parseLine, withRatios } from '../../harness/lib/measure.mjs';
import { rusageUnavailable, underRusage } from '../../harness/lib/rusage.mjs';
import { unavailableRows } from '../../harness/rows.mjs';
import { wasmtimeCommand } from '../../math/experiment.mjs';

export const id = 'thread-cost';
export const title = 'Threads beyond the pool: 512 blocked threads and a 100-deep spawn chain, time and memory per thread';
export const needs = ['programs', 'wasmtime'];
export const runByDefault = false;
export const params = {
  before: 'a built checkout of an older commit (DIR with runtime/dist/cli.js): the spindle-before configuration and the baseline',
  blocked: 'threads of the blocked shape (default 512)',
  chain: 'depth of the chain shape (default 100)',
  shapes: 'the shapes to run, comma-separated (default blocked,chain): one shape per run keeps a run short',
  lines: 'other Node lines to run spindle and the floor on, comma-separated majors (default 26; none: only the PATH\'s node)',
  configs: 'only these configurations, comma-separated (default all), e.g. spindle-node26,spindle-hosted-node26,wasmtime-46',
};
export const notes = [
  'Per thread = (median at N - median at 1) / (N - 1): the fixed costs of a process (Node, compiling the module, the prewarmed pool) cancel out.',
  'spindle and spindle-before run with default options; every configuration is a fresh process under GNU time (cpu = user + system of all its threads, rss = peak resident set).',
  'node-workers is the floor of a thread on Node: one bare worker_threads Worker per thread (an eval\'d script, no wasm), in the same shape (bench/runtime/hosts/bare-workers.mjs); node-workers-limits gives each the options spindle\'s pool workers get (an old generation under 2 GiB: V8 then maps no private copy of its builtins per isolate, which the resident set counted again for every worker).',
  'The -nodeNN configurations run the same commands on another Node line (tools/node-lines.sh).',
  'spindle-hosted-nodeNN: spindle with --host-threads (the default where workers have JSPI: 24+, and 22 through a V8 flag spindle sets at the first thread beyond the pool): threads beyond the 2 x cores pool run on the host workers (one per core), each suspended while it waits (docs/threads-beyond-the-pool.md); spindle-workers-nodeNN: --no-host-threads, a worker per thread, in the same run.',
  'On a loaded machine wall times stretch with the load (every Node worker start needs CPU); CPU time per thread is the steadier figure. Read them with the load average.',
];
export const charts = [
  { file: 'thread-cost-exit.svg', kind: 'bars', title: 'Threads beyond the pool: process wall time', metric: 'exit', log: true },
  { file: 'thread-cost-rss.svg', kind: 'bars', title: 'Threads beyond the pool: peak memory', metric: 'rss', log: true },
];

const METRICS = [{ key: 'exit', unit: 'ms' }, { key: 'cpu', unit: 'ms' }, { key: 'rss', unit: 'MiB' }, { key: 'elapsed', unit: 'ms' }];
const GUESTS = ['blocked', 'chain'];

export function unavailable() {
  return rusageUnavailable();
}

/** The guests of the two shapes, for wasm (tools/wasi-cc) and natively (gcc), rebuilt when stale. */
function buildGuests(ctx) {
  const dir = join(ctx.repo, 'build', 'bench', 'runtime', 'thread-cost');
  mkdirSync(dir, { recursive: true });
  const stale = (out, src) => !existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs;
  const out = {};
  for (const name of GUESTS) {
    const src = join(ctx.repo, 'tests', 'guests', 'c', `${name}.c`);
    const wasm = join(dir, `${name}.wasm`), native = join(dir, `${name}-native`);
    if (stale(wasm, src)) { ctx.log(`build ${wasm}`); execFileSync(join(ctx.repo, 'tools', 'wasi-cc'), [src, '-o', wasm], { stdio: 'inherit' }); }
    if (stale(native, src)) { ctx.log(`build ${native}`); execFileSync('gcc', ['-O2', '-pthread', src, '-o', native], { stdio: 'inherit' }); }
    out[name] = { wasm, native };
  }
  return out;
}

/** The other Node lines to run on: [{ major, exe }] (tools/node-lines.sh installs them). */
export function otherLines(ctx, experiment = id) {
  const param = String(ctx.params?.[`${experiment}.lines`] ?? '26');
  const majors = param === 'none' ? [] : param.split(',').filter(Boolean);
  if (!majors.length) return [];
  const bins = execFileSync('bash', [join(ctx.repo, 'tools', 'node-lines.sh'), ...majors], { encoding: 'utf8' }).trim().split('\n');
  return majors.map((major, i) => ({ major, exe: bins[i] }));
}

/** The older checkout's CLI, or why there is none. */
function beforeCli(ctx) {
  const dir = ctx.params?.[`${id}.before`];
  if (!dir) return { why: `no older checkout given: --param ${id}.before=DIR (a built checkout, e.g. git worktree add DIR <commit> and its runtime build)` };
  const cli = join(resolve(dir), 'runtime', 'dist', 'cli.js');
  return existsSync(cli) ? { cli } : { why: `${cli} does not exist: build the runtime of that checkout first` };
}

/** Checks one run's output line and returns its figures with the run's rusage. */
export function checker(shape, n, usage, prefix = '') {
  return (r) => {
    const f = parseLine(r.stdout, `${prefix}${shape} `);
    if (shape === 'blocked' && (Number(f.threads) !== n || Number(f.joined) !== n)) throw new Error(`expected ${n} threads joined: ${r.stdout.trim()}`);
    if (shape === 'chain' && (Number(f.depth) !== n || Number(f.reached) !== n)) throw new Error(`expected depth ${n} reached: ${r.stdout.trim()}`);
    const u = usage.read();
    return { exit: r.wallMs, cpu: u.cpu_ms, rss: u.rss_mb, elapsed: Number(f.elapsed_ms) };
  };
}

export async function run(ctx) {
  const guests = buildGuests(ctx);
  const before = beforeCli(ctx);
  const bare = join(ctx.benchDir, 'hosts', 'bare-workers.mjs');
  const sizes = { blocked: Number(ctx.params?.[`${id}.blocked`] ?? 512), chain: Number(ctx.params?.[`${id}.chain`] ?? 100) };
  const lines = otherLines(ctx);
  const shapes = String(ctx.params?.[`${id}.shapes`] ?? GUESTS.join(',')).split(',');
  const only = ctx.params?.[`${id}.configs`] ? new Set(String(ctx.params[`${id}.configs`]).split(',')) : undefined;
  for (const shape of shapes) if (!GUESTS.includes(shape)) throw new Error(`${id}.shapes: unknown shape ${shape} (known: ${GUESTS.join(', ')})`);
  const rows = [];
  for (const shape of shapes) {
    const big = sizes[shape];
    if (!(Number.isInteger(big) && big > 1)) throw new Error(`${id}.${shape} must be a whole number > 1, got ${big}`);
    // The baseline of the ratios: the older runtime; without one, a worker per thread on the
    // first JSPI line run (hosted threads' ratios then read against it).
    const workers = lines.map(({ major }) => `spindle-workers-node${major}`).find((c) => Number(c.slice(20)) >= 22 && (!only || only.has(c)));
    const baseline = before.cli || !workers ? 'spindle-before' : workers;
    const spec = { experiment: id, baseline, metrics: METRICS, timeoutMs: 600_000 };
    const configs = [], missing = [];
    for (const n of [big, 1]) {
      const variant = `${shape} ${shape === 'chain' ? 'D' : 'N'}=${n}`;
      const args = [String(n)];
      const add = (config, cmd, note, prefix) => {
        if (only && !only.has(config)) return;
        const usage = underRusage(cmd, `${config}-${shape}-${n}`);
        configs.push({ config, variant, cmd: usage.cmd, check: checker(shape, n, usage, prefix), note });
      };
      add('spindle', ctx.commands.spindle(guests[shape].wasm, args), 'spindle CLI, default options');
      if (before.cli || only) { if (before.cli) add('spindle-before', [process.execPath, [before.cli, 'run', guests[shape].wasm, ...args]], `spindle CLI of ${ctx.params[`${id}.before`]}, default options`);
      } else missing.push({ config: 'spindle-before', variant, why: before.why });
      add('node-workers', [process.execPath, [bare, shape, ...args]], 'bare worker_threads Workers in the same shape (the floor on Node)', 'bare ');
      add('node-workers-limits', [process.execPath, [bare, '--limits', shape, ...args]], 'the same with spindle\'s Worker options (old generation < 2 GiB, SHARE_ENV)', 'bare ');
      // Node 20 hosts threads only when started with --experimental-wasm-stack-switching (jspi.ts).
      if (process.versions.v8.startsWith('11.')) add('spindle-stack-switching', [process.execPath, ['--experimental-wasm-stack-switching', ctx.spindleCli, 'run', guests[shape].wasm, ...args]], 'spindle CLI on this Node 20 started with --experimental-wasm-stack-switching (hosted: the earlier JSPI)');
      for (const { major, exe } of lines) {
        add(`spindle-node${major}`, [exe, [ctx.spindleCli, 'run', guests[shape].wasm, ...args]], `spindle CLI on Node ${major}, default options`);
        add(`node-workers-node${major}`, [exe, [bare, shape, ...args]], `bare Workers on Node ${major}`, 'bare ');
        add(`node-workers-limits-node${major}`, [exe, [bare, '--limits', shape, ...args]], `bare Workers on Node ${major} with spindle's Worker options`, 'bare ');
        if (Number(major) >= 22) {
          add(`spindle-hosted-node${major}`, [exe, [ctx.spindleCli, 'run', '--host-threads', guests[shape].wasm, ...args]], `spindle CLI on Node ${major}, --host-threads (JSPI)`);
          add(`spindle-workers-node${major}`, [exe, [ctx.spindleCli, 'run', '--no-host-threads', guests[shape].wasm, ...args]], `spindle CLI on Node ${major}, --no-host-threads (a worker per thread)`);
        }
      }
      if (ctx.wasmtime.exe || only) { if (ctx.wasmtime.exe) add('wasmtime-46', wasmtimeCommand(ctx.wasmtime.exe, guests[shape].wasm, args), 'wasmtime 46.0.1, -W threads=y,shared-memory=y -S threads=y');
      } else missing.push({ config: 'wasmtime-46', variant, why: ctx.wasmtime.unavailable });
      add('native', [guests[shape].native, args], 'gcc -O2 -pthread');
    }
    ctx.log(`thread-cost ${shape} (${big} and 1)`);
    rows.push(...await measure(ctx, { ...spec, variant: shape, configs }));
    for (const m of missing) rows.push(...unavailableRows({ ...spec, variant: m.variant, config: m.config, reason: m.why }));
    rows.push(...perThreadRows(rows, shape, big, undefined, baseline));
  }
  return withRatios(rows);
}

/** Rows of the per-thread cost: (value at N - value at 1) / (N - 1), min and median of each. */
export function perThreadRows(rows, shape, big, metrics = ['exit', 'cpu', 'rss'], baseline = 'spindle-before') {
  const unit = shape === 'chain' ? 'D' : 'N';
  const at = (config, metric, n) => rows.find((r) => r.variant === `${shape} ${unit}=${n}` && r.config === config && r.metric === metric);
  const out = [];
  for (const config of [...new Set(rows.filter((r) => r.variant.startsWith(`${shape} `)).map((r) => r.config))]) {
    for (const metric of metrics) {
      const hi = at(config, metric, big), lo = at(config, metric, 1);
      const ok = Boolean(hi?.ok && lo?.ok);
      const per = (a, b) => (a - b) / (big - 1);
      out.push({
        experiment: id, variant: `${shape} per thread`, config, metric, unit: hi?.unit ?? '', runs: ok ? hi.runs : 0,
        min: ok ? per(hi.min, lo.min) : NaN, median: ok ? per(hi.median, lo.median) : NaN, baseline,
        ratio_min: NaN, ratio_median: NaN, ok, error: ok ? '' : (hi?.error || lo?.error || 'not measured'),
        note: `(${unit}=${big} - ${unit}=1) / ${big - 1}`, samples: [],
      });
    }
  }
  return out;
}

/**
 * Issue 17 item 4: per thread beyond the pool at most half of the older runtime's time and memory;
 * and how close spindle comes to the floor (bare Workers with spindle's options) on each line.
 */
export function goals(rows) {
  const get = (shape, config, metric) => rows.find((r) => r.variant === `${shape} per thread` && r.config === config && r.metric === metric);
  const fmt = (r, unit) => (r?.ok ? `${r.median.toFixed(2)} ${unit}` : 'not measured');
  const out = [];
  for (const shape of GUESTS.filter((g) => rows.some((r) => r.variant === `${g} per thread`))) {
    for (const [metric, what, unit] of [['exit', 'time', 'ms'], ['cpu', 'CPU time', 'ms'], ['rss', 'memory', 'MiB']]) {
      const now = get(shape, 'spindle', metric), old = get(shape, 'spindle-before', metric);
      const floor = get(shape, 'node-workers', metric), best = get(shape, 'node-workers-limits', metric);
      const floors = `floor, a bare Node worker: ${fmt(floor, unit)}, with spindle's options: ${fmt(best, unit)}`;
      if (!now?.ok || !old?.ok) { out.push(`${shape}, ${what} per thread <= 0.5x the older runtime: NOT MEASURED (${floors})`); continue; }
      const r = now.median / old.median;
      out.push(`${shape}, ${what} per thread <= 0.5x the older runtime: ${r <= 0.5 ? 'MET' : 'NOT MET'} (${now.median.toFixed(2)} vs ${old.median.toFixed(2)} ${unit}, ${r.toFixed(2)}x; ${floors})`);
    }
    // Issue 17 item 4's figure: half of ~9 MB and 70-140 ms per thread (4.5 MiB, 35 ms), hosted.
    for (const config of [...new Set(rows.map((r) => r.config).filter((c) => c.startsWith('spindle-hosted-')))]) {
      for (const [metric, what, unit, limit] of [['rss', 'memory', 'MiB', 4.5], ['exit', 'time', 'ms', 35]]) {
        const h = get(shape, config, metric), w = get(shape, config.replace('spindle-hosted-', 'spindle-workers-'), metric), t = get(shape, 'wasmtime-46', metric);
        if (!h?.ok) { out.push(`${shape}, ${config}: ${what} per thread <= ${limit} ${unit}: NOT MEASURED`); continue; }
        out.push(`${shape}, ${config}: ${what} per thread <= ${limit} ${unit}: ${h.median <= limit ? 'MET' : 'NOT MET'} (${fmt(h, unit)}; a worker per thread, same line: ${fmt(w, unit)}; wasmtime: ${fmt(t, unit)})`);
      }
    }
    const lines = [...new Set(rows.map((r) => /^spindle-node(\d+)$/.exec(r.config)?.[1]).filter(Boolean))];
    for (const [suffix, label] of [['', 'PATH node'], ...lines.map((m) => [`-node${m}`, `Node ${m}`])]) {
      for (const [metric, what, unit] of [['cpu', 'CPU time', 'ms'], ['rss', 'memory', 'MiB']]) {
        const sp = get(shape, `spindle${suffix}`, metric), fl = get(shape, `node-workers-limits${suffix}`, metric);
        if (sp?.ok && fl?.ok) out.push(`${shape}, ${label}: spindle's ${what} per thread / the floor's: ${(sp.median / fl.median).toFixed(2)} (${fmt(sp, unit)} vs ${fmt(fl, unit)})`);
      }
    }
  }
  return out;
}
