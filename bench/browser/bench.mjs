/**
 * The measuring part of the browser benchmarks (the `spindle bench` experiment, experiment.mjs): builds the programs, serves a snapshot of the
 * runtime with `spindle serve`, opens the demo page in one engine of tools/browsers (Chromium,
 * Firefox ESR, WebKitGTK) and measures every configuration
 * of its experiments through window.spindleDemo, then thread spawn latency.
 *
 *   benchInBrowser({ engine, size, runs, threads, log }) -> { engine, browser, started, size, runs, warmup, threads, machine, load, rows, ratios, failures, unavailable }
 *
 * Per point: one warm-up run per configuration (discarded: the first run of a module in a page
 * runs V8's baseline code until tier-up), then `runs` runs interleaved round-robin over the
 * configurations, so that load changes hit all of them alike. Every figure is the program's own
 * measurement (its CLOCK_MONOTONIC); nothing here times anything.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchForThreads, repo, serve } from '../../tools/browsers/index.mjs';

const SPAWN_K = [1, 2];

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
const round = (x) => (Number.isFinite(x) ? Number(x.toPrecision(4)) : null);

export async function benchInBrowser({ engine = 'chromium', size: SIZE, runs: RUNS, threads: THREADS, log }) {
  const b = spawnSync('bash', [join(repo, 'bench', 'browser', 'build.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (b.status !== 0) throw new Error('bench/browser/build.sh failed');
  const started = new Date().toISOString();
  const loadBefore = load();
  // A snapshot of the runtime (dist/ and web/, which `spindle serve` serves): a rebuild of
  // runtime/dist during the run cannot mix two versions in one page.
  const snapshot = mkdtempSync(join(tmpdir(), 'spindle-bench-browser-'));
  for (const d of ['dist', 'web']) cpSync(join(repo, 'runtime', d), join(snapshot, d), { recursive: true });
  const server = await serve(repo, { cli: join(snapshot, 'dist', 'cli.js') });
  const url = server.url;
  let browser;
  const rows = [];
  const failures = [];
  try {
    browser = await launchForThreads(engine);
    const page = await browser.newPage();
    await page.goto(`${url}demo/?size=${SIZE}`);
    await page.waitFor(() => document.body.dataset.ready === 'true' || document.getElementById('error').textContent, null, { timeoutMs: 120_000 });
    const error = await page.evaluate(() => document.getElementById('error').textContent);
    if (error) throw new Error(`the demo page reports: ${error}`);
    const experiments = await page.evaluate(() => window.spindleDemo.EXPERIMENTS.map((e) => ({
      id: e.id, charts: e.charts.map((c) => ({ id: c.id, x: c.x, yLabel: c.yLabel, series: c.series.map((s) => ({ id: s.id, label: s.label, only: s.only })) })),
    })));
    const measure = (...a) => page.evaluate((a) => window.spindleDemo.measure(...a), a);

    for (const e of experiments) {
      const loadAt = [load()];
      for (const c of e.charts) {
        for (const x of c.x === 'threads' ? THREADS : c.x) {
          const series = c.series.filter((s) => !s.only || s.only.includes(x));
          const values = new Map(series.map((s) => [s.id, []]));
          const failed = new Set();
          log(`${e.id}/${c.id} ${c.x === 'threads' ? `T=${x}` : x} (load ${load()})`);
          for (let r = -1; r < RUNS; r++) { // r = -1: warm-up
            for (const s of series) {
              if (failed.has(s.id)) continue;
              try {
                const m = await measure(e.id, c.id, s.id, x, SIZE);
                if (r >= 0) values.get(s.id).push(m.value);
              } catch (err) {
                failed.add(s.id);
                failures.push({ experiment: e.id, chart: c.id, config: s.id, x, error: firstLine(err) });
              }
            }
          }
          for (const s of series) {
            const v = values.get(s.id);
            rows.push({ experiment: e.id, chart: c.id, config: s.id, label: s.label, x, unit: c.yLabel, ok: !failed.has(s.id),
              runs: v, min: round(Math.min(...v)), median: round(median(v)) });
          }
        }
      }
      loadAt.push(load());
      rows.filter((r) => r.experiment === e.id).forEach((r) => { r.load = loadAt.join(' -> '); });
    }

    const spawnLoad = [load()];
    for (const k of SPAWN_K) {
      log(`spawn latency k=${k} (load ${load()})`);
      // A run that fails (e.g. the guest's "clock went backwards across threads" check: see
      // README) is recorded and the next one tried; the row holds the runs that completed.
      const p50 = [], p99 = [];
      let failed = 0;
      for (let r = -1; r < RUNS; r++) {
        try {
          const m = await page.evaluate((a) => window.spindleDemo.spawnLatency(...a), [k, SIZE]);
          if (r >= 0) { p50.push(m.p50_ns / 1000); p99.push(m.p99_ns / 1000); }
        } catch (err) {
          failed++;
          failures.push({ experiment: 'spawn', config: 'spindle', x: k, error: firstLine(err) });
        }
      }
      for (const [metric, v] of [['p50', p50], ['p99', p99]]) {
        rows.push({ experiment: 'spawn', chart: `spawn-${metric}`, config: 'spindle', label: `spindle warm pool, ${metric}`, x: k,
          unit: `${metric} spawn latency (us)`, ok: v.length > 0, failedRuns: failed, runs: v, min: round(Math.min(...v)), median: round(median(v)) });
      }
    }
    spawnLoad.push(load());
    rows.filter((r) => r.experiment === 'spawn').forEach((r) => { r.load = spawnLoad.join(' -> '); });
  } finally {
    await browser?.close();
    server.close();
    rmSync(snapshot, { recursive: true, force: true });
  }

  const result = {
    engine,
    browser: browser.version,
    started,
    size: SIZE, runs: RUNS, warmup: 1, threads: THREADS,
    machine: machine(),
    load: { before: loadBefore, after: load() },
    rows,
    ratios: ratios(rows, THREADS),
    failures,
    unavailable: [
      { experiment: 'fs', config: 'opfs-mount', reason: 'measured by the browser-opfs experiment: spindle bench --only browser-opfs (memory mount vs OPFS mount vs a SyncAccessHandle per operation)' },
    ],
  };
  return result;
}

function machine() {
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version };
}

/** The first line of a page error, without the driver's prefix (playwright: "page.evaluate: Error: "). */
function firstLine(err) {
  return err.message.replace(/^page\.evaluate: Error: /, '').replace(/^Error: /, '').split('\n')[0];
}

/** The ratios the issue asks for, each from medians of the same run (rows: { experiment, chart, config, x, ok, median }). */
export function ratios(rows, THREADS) {
  const med = (experiment, chart, config, x) => rows.find((r) => r.experiment === experiment && r.chart === chart
    && r.config === config && r.x === x && r.ok)?.median;
  const out = [];
  const add = (what, a, b, note) => { if (a && b) out.push({ what, ratio: round(a / b), note }); };
  const t1 = THREADS[0];
  for (const t of THREADS.slice(1)) {
    add(`math: time T=${t} / T=${t1}`, med('math', 'math', 'spindle', t), med('math', 'math', 'spindle', t1), 'perfect scaling: 1/T up to the cores');
    for (const c of ['dlmalloc', 'spindle-alloc']) {
      add(`malloc ${c}: time T=${t} / T=${t1}`, med('malloc', 'malloc', c, t), med('malloc', 'malloc', c, t1), '< 1: scales');
    }
  }
  for (const t of THREADS) {
    add(`malloc T=${t}: dlmalloc / spindle-alloc`, med('malloc', 'malloc', 'dlmalloc', t), med('malloc', 'malloc', 'spindle-alloc', t), '> 1: spindle-alloc faster');
  }
  const w = (config, where) => med('fs', 'fs-where', config, where);
  add('fs in-program: pthread / program main thread', w('inprogram', 'a pthread'), w('inprogram', 'program main thread'), 'goal <= 1.1');
  add('fs JS FS: proxied from a worker / direct on the page main thread', w('jsfs-proxied', 'program main thread'), w('jsfs-page', 'program main thread'), 'the cost of the proxy');
  add('fs pthread: JS FS proxied / in-program', w('jsfs-proxied', 'a pthread'), w('inprogram', 'a pthread'), 'goal >= 30');
  add('fs main: JS FS on the page main thread / in-program on the program main thread', w('jsfs-page', 'program main thread'), w('inprogram', 'program main thread'), 'WasmFS: 2x');
  for (const t of THREADS) {
    add(`fs T=${t}: JS FS proxied / in-program (per operation)`, med('fs', 'fs-threads', 'jsfs-proxied', t), med('fs', 'fs-threads', 'inprogram', t), '> 1: in-program faster');
  }
  for (const t of THREADS.slice(1)) {
    for (const c of ['inprogram', 'jsfs-proxied']) {
      add(`fs ${c}: throughput T=${t} / T=${t1}`, med('fs', 'fs-threads', c, t1), med('fs', 'fs-threads', c, t), '> 1: scales');
    }
  }
  return out;
}

