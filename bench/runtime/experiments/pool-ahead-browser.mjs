/**
 * The pool-ahead experiment in browsers (issue 17 item 3, browser path: platform/browser creates
 * every worker on the owner): math and malloc (ring, spindle-alloc) at T = cores and 2 x cores,
 * where cores is the page's navigator.hardwareConcurrency, with the runtime's default options,
 * in Chromium (`--param pool-ahead-browser.engines=chromium,firefox`).
 *
 * Each run is a fresh page load of the served run.html (`spindle serve`, tools/browsers) that runs
 * one program through `run()` without a `threads` option; the figure is the program's own time
 * (math: create .. join; malloc: the workload). Configurations: spindle (this runtime) and
 * spindle-before (an older checkout's CLI serving its own runtime, `--param
 * pool-ahead-browser.before=DIR`), interleaved run by run after one warm-up round.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { BINARIES, ENGINE_NAMES, launchForThreads, serve } from '../../../tools/browsers/index.mjs';
import { min, median, ratio } from '../../harness/lib/stats.mjs';
import { parseLine } from '../../harness/lib/measure.mjs';

export const id = 'pool-ahead-browser';
export const title = 'Pool ahead of demand in browsers: T = 2 x cores vs T = cores (math, malloc), default options';
export const needs = ['programs'];
export const runByDefault = false;
export const params = {
  before: 'a built checkout of an older commit (DIR with runtime/dist/cli.js and runtime/web): the spindle-before configuration',
  engines: 'engines, comma-separated: chromium, firefox (default chromium)',
  iters: 'math iterations in total (default 200000000; 50000000 with --quick)',
  pairs: 'malloc/free pairs in total (default 2000000; 500000 with --quick)',
};
export const notes = [
  'A fresh page per run (run.html through `spindle serve`), default options: the pool the runtime prewarms by itself.',
  'cores = the page\'s navigator.hardwareConcurrency; the figure is the program\'s own time, read from its output.',
];
export const charts = [];

function engines(ctx) {
  const list = String(ctx.params?.[`${id}.engines`] ?? 'chromium').split(',').map((e) => e.trim()).filter(Boolean);
  for (const e of list) if (!['chromium', 'firefox'].includes(e)) throw new Error(`${id}.engines: '${e}' is not chromium or firefox`);
  return list;
}

export function unavailable(ctx) {
  const absent = engines(ctx).filter((e) => !existsSync(BINARIES[e])).map((e) => `${ENGINE_NAMES[e]} (${BINARIES[e]})`);
  return absent.length ? `not installed: ${absent.join(', ')}; bash tools/browsers/setup.sh installs Debian's browsers` : undefined;
}

/** The served programs (paths under the repository, which `spindle serve` serves). */
const MALLOC = '/build/bench/browser/c_spindle.wasm';

async function runPage(page, url, wasm, args) {
  const q = new URLSearchParams({ wasm });
  for (const a of args) q.append('arg', a);
  await page.goto(`${url}run.html?${q}`);
  const r = await page.waitFor(() => window.spindleResult, null, { timeoutMs: 300_000 });
  if (r.error || r.code !== 0) throw new Error(`${wasm} ${args.join(' ')}: ${JSON.stringify(r).slice(0, 300)}`);
  return r.stdout;
}

export async function run(ctx) {
  if (!existsSync(join(ctx.repo, MALLOC))) throw new Error(`${MALLOC.slice(1)} is not built: run bash bench/browser/build.sh`);
  const rows = [];
  for (const engine of engines(ctx)) rows.push(...await runEngine(ctx, engine));
  return rows;
}

async function runEngine(ctx, engine) {
  const iters = String(ctx.params?.[`${id}.iters`] ?? (ctx.quick ? 50_000_000 : 200_000_000));
  const pairs = String(ctx.params?.[`${id}.pairs`] ?? (ctx.quick ? 500_000 : 2_000_000));
  const beforeDir = ctx.params?.[`${id}.before`];
  const MATH = `/${relative(ctx.repo, ctx.programs['math.wasm'])}`;
  // A snapshot of this runtime's dist/ and web/ (run.html), which `spindle serve` serves: a
  // rebuild of runtime/dist during the session cannot mix two versions in one page.
  const snapshot = mkdtempSync(join(tmpdir(), 'spindle-bench-pool-'));
  const servers = {};
  let browser;
  try {
    for (const d of ['dist', 'web']) cpSync(join(ctx.repo, 'runtime', d), join(snapshot, d), { recursive: true });
    servers.spindle = await serve(ctx.repo, { cli: join(snapshot, 'dist', 'cli.js') });
    const errors = {};
    if (beforeDir) {
      const cli = join(resolve(beforeDir), 'runtime', 'dist', 'cli.js');
      if (existsSync(cli)) servers['spindle-before'] = await serve(ctx.repo, { cli });
      else errors['spindle-before'] = `${cli} does not exist`;
    }
    browser = await launchForThreads(engine);
    const samples = {};
    const page = await browser.newPage();
    await page.goto(`${servers.spindle.url}run.html`);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const points = ['math', 'malloc'].flatMap((kind) => [cores, 2 * cores].map((t) => ({ kind, t })));
    ctx.log(`${id} ${engine}: ${browser.version}, hardwareConcurrency ${cores}`);
    for (let round = -1; round < ctx.runs; round++) {
      for (const p of points) {
        for (const [config, server] of Object.entries(servers)) {
          const key = `${config}|${p.kind} T=${p.t}`;
          if (errors[key]) continue;
          try {
            const out = p.kind === 'math'
              ? parseLine(await runPage(page, server.url, MATH, [String(p.t), iters]), 'math ')
              : parseLine(await runPage(page, server.url, MALLOC, ['ring', String(p.t), pairs]), 'RESULT ');
            if (Number(out.threads) !== p.t) throw new Error(`ran ${out.threads} threads, expected ${p.t}`);
            if (round >= 0) (samples[key] ??= []).push(Number(p.kind === 'math' ? out.elapsed_ms : out.ms));
          } catch (e) {
            errors[key] = e instanceof Error ? e.message : String(e);
            ctx.log(`  FAILED ${id} ${engine} ${key}: ${errors[key]}`);
          }
        }
      }
    }
    const rows = [];
    for (const p of points) {
      for (const config of ['spindle', 'spindle-before']) {
        const key = `${config}|${p.kind} T=${p.t}`;
        const v = samples[key] ?? [];
        const error = errors[key] ?? errors[config] ?? (config === 'spindle-before' && !beforeDir ? `unavailable: no older checkout given (--param ${id}.before=DIR)` : '');
        rows.push({ experiment: id, variant: `${engine} ${p.kind} T=${p.t}`, config, metric: 'compute', unit: 'ms', runs: v.length,
          min: min(v), median: median(v), baseline: 'spindle-before', ratio_min: NaN, ratio_median: NaN, ok: !error && v.length > 0,
          error, note: `${browser.version}, default options, hardwareConcurrency ${cores}`, samples: v });
      }
    }
    for (const r of rows) {
      const base = rows.find((b) => b.variant === r.variant && b.config === 'spindle-before');
      if (r.ok && base?.ok) { r.ratio_min = ratio(r.min, base.min); r.ratio_median = ratio(r.median, base.median); }
    }
    return rows;
  } finally {
    await browser?.close();
    for (const s of Object.values(servers)) s.close();
    rmSync(snapshot, { recursive: true, force: true });
  }
}

/** Issue 17 item 3 in browsers: time(2 x cores) / time(cores) <= 1.1, per engine and workload. */
export function goals(rows) {
  const out = [];
  const variants = [...new Set(rows.map((r) => r.variant))];
  for (const config of ['spindle', 'spindle-before']) {
    for (const v of variants) {
      const m = /^(\S+) (\S+) T=(\d+)$/.exec(v);
      const t = Number(m[3]);
      const hi = rows.find((r) => r.variant === `${m[1]} ${m[2]} T=${2 * t}` && r.config === config);
      const lo = rows.find((r) => r.variant === v && r.config === config);
      if (!hi?.ok || !lo?.ok) continue;
      const r = hi.median / lo.median;
      out.push(`${m[1]} ${m[2]}, ${config}: time T=${2 * t} / T=${t} = ${r.toFixed(2)} (${hi.median.toFixed(0)} / ${lo.median.toFixed(0)} ms)`
        + (config === 'spindle' ? `: ${r <= 1.1 ? 'MET' : 'NOT MET'} (goal <= 1.1)` : ''));
    }
  }
  return out;
}
