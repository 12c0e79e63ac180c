/**
 * The browser benchmarks as a `spindle bench` experiment (the module shape of
 * bench/harness/registry.mjs: id, title, needs, notes, charts, unavailable(ctx), run(ctx) -> rows,
 * goals(rows)); `spindle bench --only browser`. The measuring is bench.mjs's.
 *
 * Rows: experiment 'browser'; variant '<chart> <x>' (e.g. 'malloc T=2', 'fs-where a pthread');
 * config = the demo's series id; baseline per chart: malloc -> dlmalloc, fs charts -> the
 * in-program FS; math and spawn latency have no baseline in the same run (their ratios are
 * between thread counts: see goals()).
 */
import { existsSync } from 'node:fs';
import { benchInBrowser, ratios } from './bench.mjs';
import { CHROMIUM } from './chromium.mjs';

export const id = 'browser';
export const title = 'In Chromium: math, malloc and filesystem at T = 1, 2, 4, and thread spawn latency (the demo page\'s experiments)';
export const needs = [];
export const runByDefault = false;
export const notes = [
  'Debian\'s Chromium (headless, playwright-core), the demo page served by `spindle serve`; every figure is the program\'s own measurement.',
  'One warm-up run per configuration and point is discarded (the first run of a module in a page runs V8\'s baseline code until tier-up).',
  'fs: the JS FS baseline is the demo\'s own small in-memory FS on the page\'s main thread, proxied from workers the way '
    + '@napi-rs/wasm-runtime proxies memfs (postMessage + Atomics.wait per call); not memfs itself.',
  'OPFS: measured by the browser-opfs experiment (`spindle bench --only browser-opfs`).',
];
export const charts = [];

const BASELINE = { malloc: 'dlmalloc', 'fs-where': 'inprogram', 'fs-threads': 'inprogram' };

export function unavailable() {
  return existsSync(CHROMIUM) ? undefined : `Chromium is not installed (${CHROMIUM}); tools/setup.sh installs Debian's chromium`;
}

export async function run(ctx) {
  const r = await benchInBrowser({
    size: ctx.quick ? 'small' : 'medium',
    runs: ctx.runs,
    threads: ctx.threadsExplicit ? ctx.threads : [1, 2, 4],
    log: ctx.log,
  });
  const rows = r.rows.map((x) => ({
    experiment: id,
    variant: `${x.chart} ${typeof x.x === 'number' ? `${x.experiment === 'spawn' ? 'k' : 'T'}=${x.x}` : x.x}`,
    config: x.config,
    metric: x.chart.startsWith('spawn') ? x.chart.slice('spawn-'.length) : 'value',
    unit: x.unit,
    runs: x.runs.length,
    min: x.ok ? x.min : NaN,
    median: x.ok ? x.median : NaN,
    baseline: BASELINE[x.chart] ?? x.config,
    ratio_min: NaN,
    ratio_median: NaN,
    ok: x.ok,
    error: x.ok ? undefined : (r.failures.find((f) => f.config === x.config && f.x === x.x)?.error ?? 'failed'),
    note: `${x.label}; load ${x.load}`,
    samples: x.runs,
    source: { experiment: x.experiment, chart: x.chart, x: x.x }, // for goals()
  }));
  for (const row of rows) {
    const base = rows.find((b) => b.variant === row.variant && b.metric === row.metric && b.config === row.baseline);
    if (base?.ok && row.ok) {
      row.ratio_min = row.min / base.min;
      row.ratio_median = row.median / base.median;
    }
  }
  return rows;
}

/** The ratios of bench.mjs (between configurations and between thread counts), one line each. */
export function goals(rows) {
  const back = rows.filter((r) => r.source).map((r) => ({ ...r.source, config: r.config, ok: r.ok, median: r.median }));
  const threads = [...new Set(back.filter((r) => r.chart === 'math').map((r) => r.x))].sort((a, b) => a - b);
  return ratios(back, threads).map((x) => `browser ${x.what}: ${x.ratio} (${x.note})`);
}
