/**
 * The experiments of `spindle bench`, in the order they run and are reported. Each entry is an
 * experiment module (id, title, notes, run(ctx) -> rows, goals(rows)) plus what the harness needs
 * to know about it:
 *
 *   needs        what must be prepared before it runs: 'programs' (bench/programs built for wasm
 *                and native, and the spindle CLI), 'peers' (the @emnapi/wasi-threads stack),
 *                'wasmtime' (wasmtime 46 located or installed; reported unavailable otherwise)
 *   charts       chart declarations (see charts.mjs)
 *   unavailable  (ctx) -> reason | undefined: the experiment cannot run here (not built yet)
 *
 * bench/runtime's experiments are imported as they are. The malloc and fs entries look for the
 * experiment modules of their own benchmark folders first (bench/alloc/experiment.mjs,
 * bench/fs/experiment.mjs): the hooks by which those benchmarks plug in without touching the harness.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as spawnLatency from '../runtime/experiments/spawn-latency.mjs';
import * as firstOutput from '../runtime/experiments/first-output.mjs';
import * as optimizingTier from '../runtime/experiments/optimizing-tier.mjs';
import * as math from '../math/experiment.mjs';
import * as mallocAdapter from './experiments/malloc.mjs';
import * as fsPlaceholder from './experiments/fs.mjs';

const RUNTIME_NEEDS = ['programs', 'peers'];

async function hook(repo, relPath, fallback, defaults) {
  const file = join(repo, relPath);
  if (!existsSync(file)) return fallback;
  const mod = await import(pathToFileURL(file).href);
  return { needs: ['programs', 'peers', 'wasmtime'], ...defaults, ...mod, source: relPath };
}

export async function loadRegistry(repo) {
  return [
    { ...math, source: 'bench/math/experiment.mjs' },
    await hook(repo, 'bench/alloc/experiment.mjs', { ...mallocAdapter, source: 'bench/harness/experiments/malloc.mjs' }, {
      charts: mallocAdapter.charts,
    }),
    await hook(repo, 'bench/fs/experiment.mjs', { ...fsPlaceholder, source: 'bench/harness/experiments/fs.mjs' }, {
      charts: [{ file: 'fs.svg', kind: 'bars', title: 'Filesystem: main thread vs worker', metric: 'ns_per_op' }],
    }),
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
  ];
}
