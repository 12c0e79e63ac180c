/**
 * Experiment 1: thread spawn latency with a warm pool, p50/p99.
 *
 * The guest (bench/programs/spawn_latency.c) reads CLOCK_MONOTONIC just before pthread_create and
 * as the first instruction of the new thread, for N sequential rounds of create+join of K threads
 * (K = 1, and K = 2 spawned back-to-back), and prints p50/p99 over its samples. Each run is a
 * fresh process; the rows give min and median over runs of the per-run p50 and p99.
 *
 * The peer, @emnapi/wasi-threads, runs `_start` on the JS main thread, and a worker only goes back
 * to emnapi's pool when the main thread's event loop handles its 'cleanup-thread' message, which
 * never happens while `main` blocks in pthread_join. So a warm pool of P workers serves exactly P
 * spawns; after that every pthread_create boots a new worker. To measure emnapi's warm-pool
 * latency at all, its runs do P spawns with P preloaded workers (first use of each warm worker:
 * its best case); the README's Node setting (reuseWorker: false, a new worker per spawn) is a
 * separate row with few rounds. node:wasi is the WASI layer of the peer here: @tybys/wasm-util's
 * monotonic clock is performance.now() in whole milliseconds with a per-worker origin, unusable
 * for a cross-thread measurement.
 */
import { measure, parseLine } from '../../harness/lib/measure.mjs';

export const id = 'spawn-latency';
export const title = 'Thread spawn latency with a warm pool';

const EMNAPI_POOL = 16;

/** What the summary must say about how this was measured. */
export const notes = [
  'Guest shape: only the main thread spawns, and it blocks in pthread_join (create+join, 1 or 2 threads per round). '
    + 'On @emnapi/wasi-threads a thread that spawns threads asks the JS main thread, which is blocked in `_start` here: '
    + 'that shape deadlocks there, so the benchmark does not use it.',
  `emnapi's warm pool serves each preloaded worker once per run: workers return to its pool only when the JS main thread `
    + 'handles their cleanup message, which never happens while `main` blocks. Its rows are its best case (first use of a warm worker), '
    + `${EMNAPI_POOL} samples per run, so its p99 is close to its max; spindle's rows are 1000 rounds (300 with --quick) on a pool that is reused.`,
  'The peer needs the module to export malloc/free (wasi-libc uses the one-argument thread-spawn, and emnapi allocates the result '
    + 'struct with malloc): the guests are linked with -Wl,--export=malloc,--export=free.',
  'The baseline peer uses node:wasi on every thread (as the @napi-rs/wasm-runtime Node loader does). @tybys/wasm-util\'s CLOCK_MONOTONIC is '
    + 'performance.now() truncated to whole ms with a per-worker origin, so a cross-thread latency cannot be measured with it: its row '
    + '(`emnapi-wasm-util-warm`) answers that one clock from process.hrtime, everything else is @tybys/wasm-util\'s.',
  '`max` is the slowest single spawn of a run: on spindle, a spawn that finds no idle worker boots a new one (the pool grows), '
    + 'which costs a worker start-up (~100-200 ms on this machine) instead of microseconds.',
  'p99 over one process is sensitive to machine load (a woken worker waits for a core); read it together with the load average above.',
];

export async function run(ctx) {
  const cmd = ctx.commands;
  const wasm = ctx.programs['spawn_latency.wasm'];
  const rounds = ctx.quick ? 300 : 1000;
  const rows = [];
  for (const k of [1, 2]) {
    const check = (r) => {
      const f = parseLine(r.stdout, 'spawn_latency ');
      if (!r.stdout.includes(' ok')) throw new Error('guest did not report ok');
      if (Number(f.k) !== k) throw new Error(`guest ran k=${f.k}, expected ${k}`);
      return { p50: Number(f.p50_ns) / 1000, p99: Number(f.p99_ns) / 1000, max: Number(f.max_ns) / 1000 };
    };
    const configs = [
      {
        config: 'emnapi-warm',
        cmd: cmd.emnapi(wasm, [String(k), String(EMNAPI_POOL / k)], { wasi: 'node', pool: EMNAPI_POOL }),
        note: `@emnapi/wasi-threads + node:wasi, ${EMNAPI_POOL} preloaded workers, ${EMNAPI_POOL} spawns per run (each warm worker used once)`,
        check,
      },
      {
        config: 'emnapi-wasm-util-warm',
        cmd: cmd.emnapi(wasm, [String(k), String(EMNAPI_POOL / k)], { wasi: 'wasm-util', pool: EMNAPI_POOL, hrtimeClock: true }),
        note: `@emnapi/wasi-threads + @tybys/wasm-util, same pool as emnapi-warm; CLOCK_MONOTONIC replaced by process.hrtime (its own is per-worker, whole ms)`,
        check,
      },
      {
        config: 'emnapi-nopool',
        cmd: cmd.emnapi(wasm, [String(k), String(8 / k)], { wasi: 'node', pool: 0 }),
        note: '@emnapi/wasi-threads README Node setting (reuseWorker: false): a new worker per spawn; 8 spawns per run',
        check,
      },
      {
        config: 'spindle',
        cmd: cmd.spindle(wasm, [String(k), String(rounds)]),
        note: `spindle CLI, default pool (= cores), ${rounds * k} spawns per run`,
        check,
      },
      {
        config: 'native',
        cmd: cmd.native(ctx.programs['spawn_latency-native'], [String(k), String(rounds)]),
        note: 'the same guest built with gcc -O2 (Linux pthread_create): a yardstick for what this machine\'s load does to p99',
        check,
      },
    ];
    ctx.log(`spawn latency, ${k} thread(s) per round`);
    rows.push(...await measure(ctx, {
      experiment: id, variant: `k=${k}`, baseline: 'emnapi-warm',
      metrics: [{ key: 'p50', unit: 'us' }, { key: 'p99', unit: 'us' }, { key: 'max', unit: 'us' }],
      configs,
    }));
  }
  return rows;
}

/** The goal, judged on this run's rows. */
export function goals(rows) {
  const p50 = rows.find((r) => r.variant === 'k=1' && r.config === 'spindle' && r.metric === 'p50');
  if (!p50?.ok) return ['spawn p50 under 100 us with a warm pool: NOT MEASURED (spindle failed)'];
  const pass = p50.median < 100;
  return [`spawn p50 under 100 us with a warm pool: ${pass ? 'MET' : 'NOT MET'} `
    + `(spindle p50 median ${fmt(p50.median)} us, min ${fmt(p50.min)} us; emnapi warm-pool ratio ${p50.ratio_median})`];
}

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
