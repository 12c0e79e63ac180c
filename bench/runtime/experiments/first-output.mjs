/**
 * Experiment 2: time to first output of a hello-world C program: wall time
 * from spawning `node` to the first stdout byte, measured by the parent with process.hrtime; also
 * the wall time to exit. The same hello.wasm (wasm32-wasip1-threads, imported shared memory,
 * never spawns) runs on every configuration: node:wasi accepts it once the host provides the
 * imported memory, so no separate wasm32-wasip1 build is needed.
 */
import { measure } from '../../harness/lib/measure.mjs';

export const id = 'first-output';
export const title = 'Time to first output (hello world)';

const EXPECTED = 'hello, world\n';

/** What the summary must say about how this was measured. */
export const notes = [
  'One binary for all: hello.wasm is built by tools/wasi-cc for wasm32-wasip1-threads (imported shared memory); it never spawns, '
    + 'so node:wasi runs it when the host passes the memory the module declares. No separate wasm32-wasip1 build is needed.',
  'Each run is a fresh `node` process; the time is measured by the parent from spawn() to the first stdout data event.',
  'The peers run with --no-warnings (node:wasi prints an ExperimentalWarning to stderr); stdout is unaffected.',
];

export async function run(ctx) {
  const cmd = ctx.commands;
  const wasm = ctx.programs['hello.wasm'];
  const check = (r) => {
    if (r.stdout !== EXPECTED) throw new Error(`stdout was ${JSON.stringify(r.stdout.slice(0, 100))}, expected ${JSON.stringify(EXPECTED)}`);
    return { first_output: r.firstOutputMs, exit: r.wallMs };
  };
  const configs = [
    { config: 'emnapi-wasm-util', cmd: cmd.emnapi(wasm, [], { wasi: 'wasm-util', pool: 0 }), check,
      note: '@emnapi/wasi-threads + @tybys/wasm-util, minimal script, no pool (nothing spawns)' },
    { config: 'emnapi-node-wasi', cmd: cmd.emnapi(wasm, [], { wasi: 'node', pool: 0 }), check,
      note: '@emnapi/wasi-threads + node:wasi (the @napi-rs/wasm-runtime Node wiring), no pool' },
    { config: 'spindle', cmd: cmd.spindle(wasm, []), check,
      note: 'spindle CLI defaults: _start on a worker, pool of cores prewarmed' },
    { config: 'spindle-no-optimize', cmd: cmd.spindle(wasm, [], ['--no-optimize']), check,
      note: 'spindle CLI --no-optimize: _start on a worker, V8 default tiering' },
    { config: 'spindle-main-thread', cmd: cmd.spindle(wasm, [], ['--main-thread']), check,
      note: 'spindle CLI --main-thread: _start on the calling thread' },
    { config: 'node-wasi', cmd: cmd.nodeWasi(wasm, []), check,
      note: 'node:wasi alone (single-threaded host)' },
    { config: 'node-no-wasm', cmd: cmd.nodeOnly(EXPECTED), check,
      note: 'floor: node printing the line itself, no wasm' },
  ];
  ctx.log('time to first output');
  return measure(ctx, {
    experiment: id, variant: 'hello', baseline: 'emnapi-wasm-util',
    metrics: [{ key: 'first_output', unit: 'ms' }, { key: 'exit', unit: 'ms' }],
    configs,
  });
}

/** The goal, judged on this run's rows. */
export function goals(rows) {
  const get = (config) => rows.find((r) => r.config === config && r.metric === 'first_output');
  const s = get('spindle'), peers = [get('emnapi-wasm-util'), get('emnapi-node-wasi')];
  if (!s?.ok) return ['time to first output no worse than the emnapi stack: NOT MEASURED (spindle failed)'];
  return peers.filter((p) => p?.ok).map((p) => {
    const pass = s.median <= p.median;
    return `time to first output no worse than ${p.config}: ${pass ? 'MET' : 'NOT MET'} `
      + `(spindle median ${s.median.toFixed(1)} ms vs ${p.median.toFixed(1)} ms, ratio ${(s.median / p.median).toFixed(3)})`;
  });
}
