/**
 * Every experiment of `spindle bench`, in the order they run and are reported: the one entry to
 * all of spindle's benchmarks (there is no other runner). Each is an experiment module living in
 * the benchmark folder of what it measures:
 *
 *   id, title, notes, run(ctx) -> rows, goals(rows)      what it measures and how it is judged
 *   needs        what must be prepared before it runs: 'programs' (bench/programs built for wasm
 *                and native, and the spindle CLI), 'peers' (the @emnapi/wasi-threads stack),
 *                'wasmtime' (wasmtime 46 located or installed; reported unavailable otherwise)
 *   charts       chart declarations (see charts.mjs)
 *   params       its settings (--param ID.KEY=VALUE): key -> one-line description
 *   unavailable  (ctx) -> reason | undefined: it cannot run here (a tool missing); listed as such
 *   default      false: run only when named with --only (slow, or needs a browser)
 */
import * as math from '../math/experiment.mjs';
import * as malloc from '../alloc/experiment.mjs';
import * as mallocWeb from '../alloc/web-experiment.mjs';
import * as fs from '../fs/experiment.mjs';
import * as fsNative from '../fs-native/experiment.mjs';
import * as spawnLatency from '../runtime/experiments/spawn-latency.mjs';
import * as firstOutput from '../runtime/experiments/first-output.mjs';
import * as optimizingTier from '../runtime/experiments/optimizing-tier.mjs';
import * as threadCost from '../runtime/experiments/thread-cost.mjs';
import * as workerFloor from '../runtime/experiments/worker-floor.mjs';
import * as preemptCost from '../runtime/experiments/preempt-cost.mjs';
import * as poolAhead from '../runtime/experiments/pool-ahead.mjs';
import * as poolAheadBrowser from '../runtime/experiments/pool-ahead-browser.mjs';
import * as browser from '../browser/experiment.mjs';
import * as browserOpfs from '../browser/opfs.mjs';
import * as nodeLines from '../hosts/node-lines.mjs';
import * as largeModule from '../hosts/large-module.mjs';
import * as hostdir from '../hostdir/experiment.mjs';
import * as napi from '../napi/experiment.mjs';
import * as realPrograms from '../hosts/real-programs.mjs';

const RUNTIME_NEEDS = ['programs', 'peers'];

export async function loadRegistry() {
  return [
    { ...math, source: 'bench/math/experiment.mjs' },
    { ...malloc, source: 'bench/alloc/experiment.mjs' },
    { ...fs, source: 'bench/fs/experiment.mjs' },
    {
      ...spawnLatency, needs: RUNTIME_NEEDS, source: 'bench/runtime/experiments/spawn-latency.mjs',
      charts: [{ file: 'spawn-latency-p50.svg', kind: 'bars', title: 'Thread spawn latency, warm pool (p50)', metric: 'p50', xLabel: 'threads spawned per round', log: true }],
    },
    {
      ...firstOutput, needs: RUNTIME_NEEDS, source: 'bench/runtime/experiments/first-output.mjs',
      charts: [{ file: 'first-output.svg', kind: 'bars', title: 'Time to first output (hello world)', metric: 'first_output' }],
    },
    {
      ...optimizingTier, needs: RUNTIME_NEEDS, source: 'bench/runtime/experiments/optimizing-tier.mjs',
      charts: [{ file: 'optimizing-tier.svg', kind: 'lines', title: 'Optimizing tier up front: math compute time', metric: 'compute' }],
    },
    { ...poolAhead, source: 'bench/runtime/experiments/pool-ahead.mjs' },
    { ...poolAheadBrowser, source: 'bench/runtime/experiments/pool-ahead-browser.mjs' },
    { ...threadCost, source: 'bench/runtime/experiments/thread-cost.mjs' },
    { ...workerFloor, source: 'bench/runtime/experiments/worker-floor.mjs' },
    { ...preemptCost, source: 'bench/runtime/experiments/preempt-cost.mjs' },
    { ...nodeLines, source: 'bench/hosts/node-lines.mjs' },
    { ...largeModule, source: 'bench/hosts/large-module.mjs' },
    { ...hostdir, source: 'bench/hostdir/experiment.mjs' },
    { ...realPrograms, source: 'bench/hosts/real-programs.mjs' },
    { ...fsNative, source: 'bench/fs-native/experiment.mjs' },
    { ...browser, source: 'bench/browser/experiment.mjs' },
    { ...browserOpfs, source: 'bench/browser/opfs.mjs' },
    { ...napi, source: 'bench/napi/experiment.mjs' },
    { ...mallocWeb, source: 'bench/alloc/web-experiment.mjs' },
  ];
}
