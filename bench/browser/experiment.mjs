/**
 * The browser benchmarks as a `spindle bench` experiment (the module shape of
 * bench/harness/registry.mjs: id, title, needs, notes, charts, unavailable(ctx), run(ctx) -> rows,
 * goals(rows)); `spindle bench --only browser`. The measuring is bench.mjs's.
 *
 * Engines: `--param browser.engines=chromium,firefox,webkit` (default all three, one after the
 * other; tools/browsers). Ratios are within one engine's run.
 *
 * Rows: experiment 'browser'; variant '<engine> <chart> <x>' (e.g. 'firefox malloc T=2');
 * config = the demo's series id; baseline per chart: malloc -> dlmalloc, fs charts -> the
 * in-program FS; math and spawn latency have no baseline in the same run (their ratios are
 * between thread counts: see goals()).
 */
import { benchInBrowser, ratios } from './bench.mjs';
import { existsSync } from 'node:fs';
import { BINARIES, ENGINE_NAMES, ENGINES } from '../../tools/browsers/index.mjs';

export const id = 'browser';
export const title = 'In Chromium, Firefox ESR and WebKitGTK: math, malloc and filesystem at T = 1, 2, 4, and thread spawn latency (the demo page\'s experiments)';
export const needs = [];
export const runByDefault = false;
export const notes = [
  'Debian\'s Chromium, Firefox ESR and WebKitGTK (tools/browsers; WebKitGTK with JSC_useSharedArrayBuffer=1, without which it cannot post shared memory to workers), the demo page served by `spindle serve`; every figure is the program\'s own measurement.',
  'Engines run one after the other; ratios compare configurations within one engine\'s run.',
  'One warm-up run per configuration and point is discarded (the first run of a module in a page runs V8\'s baseline code until tier-up).',
  'fs: the JS FS baseline is the demo\'s own small in-memory FS on the page\'s main thread, proxied from workers the way '
    + '@napi-rs/wasm-runtime proxies memfs (postMessage + Atomics.wait per call); not memfs itself.',
  'OPFS: measured by the browser-opfs experiment (`spindle bench --only browser-opfs`).',
];
export const charts = [];
export const params = { engines: `engines to measure in, comma-separated (default ${ENGINES.join(',')})` };

const BASELINE = { malloc: 'dlmalloc', 'fs-where': 'inprogram', 'fs-threads': 'inprogram' };

/** The engines asked for (`--param browser.engines=...`); an unknown name is an error. */
function engines(ctx) {
  const list = String(ctx.params?.['browser.engines'] ?? ENGINES.join(',')).split(',').map((e) => e.trim()).filter(Boolean);
  for (const e of list) if (!ENGINES.includes(e)) throw new Error(`browser.engines: unknown engine '${e}' (one of ${ENGINES.join(', ')})`);
  return list;
}

export function unavailable(ctx) {
  const absent = engines(ctx).filter((e) => !existsSync(BINARIES[e])).map((e) => `${ENGINE_NAMES[e]} (${BINARIES[e]})`);
  return absent.length ? `not installed: ${absent.join(', ')}; bash tools/browsers/setup.sh installs Debian's browsers` : undefined;
}

export async function run(ctx) {
  const rows = [];
  for (const engine of engines(ctx)) rows.push(...await runEngine(ctx, engine));
  return rows;
}

async function runEngine(ctx, engine) {
  const r = await benchInBrowser({
    engine,
    size: ctx.quick ? 'small' : 'medium',
    runs: ctx.runs,
    threads: ctx.threadsExplicit ? ctx.threads : [1, 2, 4],
    log: (s) => ctx.log(`${engine}: ${s}`),
  });
  const rows = r.rows.map((x) => ({
    experiment: id,
    variant: `${engine} ${x.chart} ${typeof x.x === 'number' ? `${x.experiment === 'spawn' ? 'k' : 'T'}=${x.x}` : x.x}`,
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
    note: `${x.label}; ${r.browser}; load ${x.load}`,
    samples: x.runs,
    source: { engine, experiment: x.experiment, chart: x.chart, x: x.x }, // for goals()
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

/** The ratios of bench.mjs (between configurations and between thread counts), one line each, per engine. */
export function goals(rows) {
  const back = rows.filter((r) => r.source).map((r) => ({ ...r.source, config: r.config, ok: r.ok, median: r.median }));
  return [...new Set(back.map((r) => r.engine))].flatMap((engine) => {
    const mine = back.filter((r) => r.engine === engine);
    const threads = [...new Set(mine.filter((r) => r.chart === 'math').map((r) => r.x))].sort((a, b) => a - b);
    return ratios(mine, threads).map((x) => `browser ${ENGINE_NAMES[engine]} ${x.what}: ${x.ratio} (${x.note})`);
  });
}
