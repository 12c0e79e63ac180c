/**
 * The worker-floor experiment (issue 17 item 4: cheap threads beyond the pool): what one bare
 * Node worker costs, and which way of creating it lowers that, on each Node line. A wasm thread
 * that may block needs a worker of its own, so this is the floor under spindle's cost per thread
 * beyond the pool (the thread-cost experiment compares spindle with it).
 *
 * Shape: N bare workers (an eval'd script of a few lines, bench/runtime/hosts/bare-workers.mjs)
 * blocked at once (default 64), and N = 1; per worker = (median at N - median at 1) / (N - 1).
 * Configurations: Worker options and process flags, one change each from the default:
 *
 *   default          new Worker(script, { eval: true })
 *   limits           spindle's options: resourceLimits.maxOldGenerationSizeMb 2047 (under V8's
 *                    2 GiB threshold for short builtin calls: no private 2 MB remap of the builtins
 *                    per isolate) and env SHARE_ENV
 *   young-1          resourceLimits.maxYoungGenerationSizeMb 1
 *   stack-1          resourceLimits.stackSizeMb 1
 *   no-stdio         env SHARE_ENV, stdout and stderr true (not piped to the parent's)
 *   no-snapshot      node --no-node-snapshot (the worker runs Node's bootstrap instead of
 *                    deserializing it)
 *   optimize-for-size, single-threaded-gc   V8 flags given to node at start
 *   cli-flags+limits the flags spindle's CLI restarts Node with for a small threaded program
 *                    (--no-liftoff --no-wasm-lazy-compilation) and spindle's options
 *   jitless          node --jitless: a lower bound only (it turns WebAssembly off)
 *   jspi-suspended   not a worker per thread: ONE worker (spindle's options) holding N wasm
 *                    stacks suspended through JSPI (bare-workers.mjs `suspended`; lines with
 *                    WebAssembly.Suspending only, Node 26): the floor of a design that runs
 *                    several blocked wasm threads per worker; a lower bound (a tiny module)
 *
 * Metrics: exit (wall time of the process), cpu (user + system of the process, GNU time), rss
 * (its peak resident set), anon (its anonymous memory while all N are alive: what the workers
 * really take; rss also counts file pages mapped more than once, such as the remapped builtins).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { measure, parseLine, withRatios } from '../../harness/lib/measure.mjs';
import { rusageUnavailable, underRusage } from '../../harness/lib/rusage.mjs';
import { otherLines, perThreadRows } from './thread-cost.mjs';

export const id = 'worker-floor';
export const title = 'The floor of a thread on Node: one bare worker, by how it is created, per Node line';
export const needs = [];
export const runByDefault = false;
export const params = {
  workers: 'workers blocked at once (default 64)',
  variants: 'the configurations to run, comma-separated names (default: all of them)',
  lines: 'other Node lines, comma-separated majors (default 26; none: only the PATH\'s node)',
};
export const notes = [
  'Per worker = (median at N - median at 1) / (N - 1): the process\'s fixed costs cancel out.',
  'anon is the anonymous memory of the process while all N workers are alive (/proc/self/smaps_rollup); rss (GNU time\'s peak resident set) also counts file pages mapped more than once.',
  'jitless turns WebAssembly off: a lower bound, not an option for spindle.',
  'jspi-suspended is one worker holding N suspended wasm stacks (JSPI, Node 26): per thread is per suspended stack and instance of a tiny module, the floor of a design with several blocked threads per worker, which spindle does not have.',
];
export const charts = [
  { file: 'worker-floor-rss.svg', kind: 'bars', title: 'One bare Node worker: peak resident memory', metric: 'rss' },
];

const METRICS = [{ key: 'exit', unit: 'ms' }, { key: 'cpu', unit: 'ms' }, { key: 'rss', unit: 'MiB' }, { key: 'anon', unit: 'MiB' }];
const LIMITS = { env: 'SHARE_ENV', resourceLimits: { maxOldGenerationSizeMb: 2047 } };

/** [config, node flags, Worker options, shape of bare-workers.mjs (default blocked)] */
const VARIANTS = [
  ['default', [], {}],
  ['limits', [], LIMITS],
  ['young-1', [], { resourceLimits: { maxYoungGenerationSizeMb: 1 } }],
  ['stack-1', [], { resourceLimits: { stackSizeMb: 1 } }],
  ['no-stdio', [], { env: 'SHARE_ENV', stdout: true, stderr: true }],
  ['no-snapshot', ['--no-node-snapshot'], {}],
  ['optimize-for-size', ['--optimize-for-size'], {}],
  ['single-threaded-gc', ['--single-threaded-gc'], {}],
  ['cli-flags+limits', ['--no-liftoff', '--no-wasm-lazy-compilation'], LIMITS],
  ['jitless', ['--jitless'], {}],
  ['jspi-suspended', [], LIMITS, 'suspended'],
];

/** Whether the node at `exe` has JSPI without flags (the jspi-suspended variant runs only there). */
function hasJspi(exe) {
  return spawnSync(exe, ['-e', 'process.exit(typeof WebAssembly.Suspending === "function" ? 0 : 1)']).status === 0;
}

export function unavailable() {
  return rusageUnavailable();
}

export async function run(ctx) {
  const n = Number(ctx.params?.[`${id}.workers`] ?? 64);
  const only = ctx.params?.[`${id}.variants`]?.split(',');
  for (const name of only ?? []) if (!VARIANTS.some(([v]) => v === name)) throw new Error(`${id}.variants: unknown ${name} (known: ${VARIANTS.map(([v]) => v).join(', ')})`);
  const variants = VARIANTS.filter(([name]) => !only || only.includes(name));
  if (!(Number.isInteger(n) && n > 1)) throw new Error(`${id}.workers must be a whole number > 1, got ${n}`);
  const bare = join(ctx.benchDir, 'hosts', 'bare-workers.mjs');
  const nodes = [{ major: process.versions.node.split('.')[0], exe: process.execPath, suffix: '' },
    ...otherLines(ctx, id).map((l) => ({ ...l, suffix: `-node${l.major}` }))];
  const configs = [];
  for (const size of [n, 1]) {
    const variant = `blocked N=${size}`;
    for (const { major, exe, suffix } of nodes) {
      const jspi = hasJspi(exe);
      for (const [name, flags, options, shape = 'blocked'] of variants) {
        if (shape === 'suspended' && !jspi) continue;
        const config = `${name}${suffix}`;
        const usage = underRusage([exe, [...flags, bare, '--options', JSON.stringify(options), shape, String(size)]], `${config}-${size}`);
        const check = (r) => {
          const f = parseLine(r.stdout, `bare ${shape} `);
          if (Number(f.threads) !== size || Number(f.joined) !== size) throw new Error(`expected ${size} workers joined: ${r.stdout.trim()}`);
          const u = usage.read();
          return { exit: r.wallMs, cpu: u.cpu_ms, rss: u.rss_mb, anon: Number(f.anon_kb) / 1024 };
        };
        configs.push({ config, variant, cmd: usage.cmd, check, note: `Node ${major}: ${[...flags, JSON.stringify(options)].join(' ')}` });
      }
    }
  }
  ctx.log(`worker-floor: ${configs.length / 2} configurations, ${n} workers (or suspended stacks) and 1`);
  const rows = await measure(ctx, { experiment: id, variant: 'blocked', baseline: 'default', metrics: METRICS, timeoutMs: 300_000, configs });
  rows.push(...perThreadRows(rows, 'blocked', n, METRICS.map((m) => m.key)).map((r) => ({ ...r, experiment: id })));
  // Each line's ratios are to its own default.
  return withRatios(rows.map((r) => ({ ...r, baseline: `default${/(-node\d+)?$/.exec(r.config)[0]}` })));
}

/** The lowest floor found per line (jitless aside: no WebAssembly), per worker. */
export function goals(rows) {
  const per = rows.filter((r) => r.variant === 'blocked per thread' && r.ok && !r.config.startsWith('jitless') && !r.config.startsWith('jspi-'));
  const out = [];
  for (const suffix of [...new Set(per.map((r) => /(-node\d+)?$/.exec(r.config)[0]))]) {
    const mine = per.filter((r) => (/(-node\d+)?$/.exec(r.config)[0]) === suffix);
    for (const metric of ['rss', 'anon', 'cpu']) {
      const m = mine.filter((r) => r.metric === metric).sort((a, b) => a.median - b.median);
      const def = m.find((r) => r.config === `default${suffix}`);
      if (m.length && def) out.push(`${suffix ? `Node ${suffix.slice(5)}` : 'PATH node'}: lowest ${metric} per worker ${m[0].median.toFixed(2)} ${m[0].unit} (${m[0].config}) vs ${def.median.toFixed(2)} by default`);
    }
  }
  for (const r of rows.filter((x) => x.variant === 'blocked per thread' && x.ok && x.config.startsWith('jspi-') && ['rss', 'anon', 'cpu'].includes(x.metric))) {
    out.push(`${r.config}: ${r.metric} per suspended wasm stack ${r.median.toFixed(3)} ${r.unit} (one worker holds them all; lower bound of a several-threads-per-worker design)`);
  }
  return out;
}
