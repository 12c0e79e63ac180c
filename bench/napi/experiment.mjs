/**
 * The napi experiment of `spindle bench` (`--only napi`): napi-rs packages built for wasm32-wasi
 * on their stock loader (@napi-rs/wasm-runtime: emnapi + @emnapi/wasi-threads, node:wasi in
 * Node, @tybys/wasm-util over memfs on the page's thread in browsers) vs spindle/napi, through
 * both of its routes (dropin: the packages' own loaders with '@napi-rs/wasm-runtime' replaced by
 * spindle's; direct: spindle/napi's API), in one session:
 *
 *   rolldown   rolldown 1.3.2 bundles a generated project (project.mjs: 12 features x 20 modules,
 *              TypeScript and JavaScript, extension-less imports, JSON, dynamic imports), read
 *              through WASI: in Node from a host directory (the stock loader: node:wasi with the
 *              filesystem root preopened; spindle direct: the project directory only), in
 *              Chromium from a memory filesystem (stock: memfs on the page's thread, every call
 *              from a rolldown thread proxied there; spindle: its memory FS, reached directly)
 *              (`--param napi.project=big`: in Node also a real project, bigproject/: those
 *              files plus real npm packages, ~724 directories looked up per bundle)
 *   oxc        @oxc-parser/binding-wasm32-wasi parses the 300+ files of tests/napi/corpus.mjs
 *              with parseSync, then with parse() all in flight (the addon's threads)
 *
 * Node: one process per run (tests/napi/work.mjs), Node 20 (the harness's Node) and Node 26.
 * Browsers: a fresh browser per run (tools/browsers; tests/napi/pages.mjs), Chromium by default,
 * `--param napi.engines=chromium,firefox` for Firefox ESR too.
 * Metrics: job_ms (the job once the binding is loaded; rolldown: per bundle, the mean of `repeat`
 * bundles in one process or page), first_ms (rolldown: the first of them, on code V8 has not yet
 * optimized), load_ms (loading the binding), cpu_ms (Node: the process's CPU time, all threads,
 * loading included; job_cpu_ms and load_cpu_ms the same over the job, per bundle, and over
 * loading), peak_rss_mb (Node: the process's maxRSS; browsers: the
 * peak resident memory of the page's content process, VmHWM). Every run's output is checked: its digest must equal the stock loader's.
 * Needs: bash tests/napi/setup.sh (fixtures), Chromium (tools/browsers/setup.sh); Node 26 comes
 * from tools/node-lines.sh.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, withRatios } from '../harness/lib/measure.mjs';
import { expectChecksum } from '../harness/rows.mjs';
import { min, median } from '../harness/lib/stats.mjs';
import { launch, missing, repo, ENGINE_NAMES } from '../../tools/browsers/index.mjs';
import { makeProject } from './project.mjs';
import { makeBigProject } from './bigproject/index.mjs';

export const id = 'napi';
export const title = 'napi-rs packages (rolldown, oxc-parser): the stock @napi-rs/wasm-runtime loader vs spindle/napi, Node and Chromium';
export const needs = [];
export const runByDefault = false;
export const notes = [
  'Configurations: stock (the packages\' own loaders on @napi-rs/wasm-runtime 1.2.x, the baseline), dropin (the same loaders, @napi-rs/wasm-runtime replaced by spindle/napi), direct (spindle/napi\'s loadNapi).',
  'rolldown: a generated project of 266 files; Node reads it from a host directory, Chromium from a memory filesystem (stock: memfs on the page\'s thread, every call from a rolldown thread proxied there).',
  'oxc: 300+ files, parseSync then parse() with every file in flight. Every run\'s output digest equals the stock loader\'s or the run fails.',
  'Steady state: one uncounted warm-up run per configuration comes first, which (in Node) leaves spindle\'s growth-guard rewrite of each binding in ~/.cache/spindle, so every counted spindle run loads it from there, as a user\'s second run does.',
];
export const charts = [
  { file: 'napi-job.svg', kind: 'bars', title: 'napi-rs packages: job time (lower is better)', metric: 'job_ms' },
];
export const params = {
  engines: 'browser engines (default chromium; chromium,firefox for Firefox ESR too; none for Node only)',
  lines: 'Node lines (default 20,26: the harness\'s Node and Node 26; none for the browsers only)',
  jobs: 'jobs (default rolldown,oxc)',
  repeat: 'rolldown bundles per run (default 3; 1 with --quick)',
  project: 'rolldown\'s project in Node: generated (default: the 266 files below), big (bench/napi/bigproject: those plus @mui/material, date-fns, lodash-es and rxjs from npm, installed once into build/bench/napi-big; Node only), or both',
  features: 'feature folders of the generated project (default 12)',
  perFeature: 'modules per feature folder (default 20)',
};

const napi = join(repo, 'tests', 'napi');
const CONFIGS = ['stock', 'dropin', 'direct'];
const METRICS = [{ key: 'job_ms', unit: 'ms' }, { key: 'load_ms', unit: 'ms' }, { key: 'peak_rss_mb', unit: 'MB' }];
/** rolldown also reports its first bundle apart (code not yet optimized by V8's tiers). */
const BUNDLE_METRICS = [METRICS[0], { key: 'first_ms', unit: 'ms' }, ...METRICS.slice(1)];
const metricsOf = (job) => (job === 'bundle' ? BUNDLE_METRICS : METRICS);
/**
 * Node also reports the process's CPU time (user + system, every thread, loading included): the
 * work done, which a loaded machine inflates far less than wall time.
 */
const CPU = { key: 'cpu_ms', unit: 'ms' };
/** The same for the job alone (rolldown: per bundle), and for loading the binding. */
const JOB_CPU = { key: 'job_cpu_ms', unit: 'ms' };
const LOAD_CPU = { key: 'load_cpu_ms', unit: 'ms' };

export function unavailable() {
  for (const p of [join(napi, 'stock', 'node_modules', 'rolldown'), join(repo, 'runtime', 'examples', 'napi', 'node_modules', 'spindle'), join(napi, 'web', 'node_modules', 'vite')]) {
    if (!existsSync(p)) return `${p} is missing: run bash tests/napi/setup.sh`;
  }
  return undefined;
}

export async function run(ctx) {
  const param = (k, d) => Number(ctx.params?.[`napi.${k}`] ?? d);
  const repeat = param('repeat', ctx.quick ? 1 : 3);
  const dir = mkdtempSync(join(tmpdir(), 'spindle-napi-bench-'));
  try {
    const files = makeProject(join(dir, 'project'), { features: param('features', 12), perFeature: param('perFeature', 20) });
    ctx.log(`  napi: project of ${files.length} files`);
    const rows = [];
    const jobs = String(ctx.params?.['napi.jobs'] ?? 'rolldown,oxc').split(',').filter(Boolean);
    const lines = [];
    for (const major of String(ctx.params?.['napi.lines'] ?? '20,26').split(',').filter((l) => l && l !== 'none')) {
      // Node 26 (any line but the harness's): tools/node-lines.sh installs it (pinned, checked) and prints its path.
      const harness = process.versions.node.split('.')[0];
      const node = major === harness ? process.execPath : execFileSync('bash', [join(repo, 'tools', 'node-lines.sh'), major], { encoding: 'utf8' }).trim();
      lines.push([`Node ${major}`, node]);
    }
    const projects = String(ctx.params?.['napi.project'] ?? 'generated');
    if (!['generated', 'big', 'both'].includes(projects)) throw new Error(`napi.project must be generated, big or both, not ${projects}`);
    const big = projects !== 'generated' && jobs.includes('rolldown') && lines.length ? bigProject(ctx) : undefined;
    const bundle = (project) => ['bundle', '--project', project, '--repeat', String(repeat)];
    for (const [line, node] of lines) {
      if (jobs.includes('rolldown') && projects !== 'big') rows.push(...await nodeJob(ctx, `rolldown, ${line}`, node, bundle(join(dir, 'project')), [...BUNDLE_METRICS, CPU, JOB_CPU, LOAD_CPU]));
      if (big) rows.push(...await nodeJob(ctx, `rolldown, real project, ${line}`, node, bundle(big), [...BUNDLE_METRICS, CPU, JOB_CPU, LOAD_CPU]));
      if (jobs.includes('oxc')) rows.push(...await nodeJob(ctx, `oxc, ${line}`, node, ['parse'], [...METRICS, CPU, JOB_CPU, LOAD_CPU]));
    }
    const engines = String(ctx.params?.['napi.engines'] ?? 'chromium').split(',').filter((e) => e && e !== 'none');
    for (const engine of engines) {
      const why = await missing(engine);
      if (why) { ctx.log(`  napi: ${why}`); continue; }
      rows.push(...await browserJobs(ctx, engine, dir, join(dir, 'project'), repeat, jobs));
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The real project (bigproject/), in the build folder: written each run, its packages installed once. */
function bigProject(ctx) {
  const dir = join(repo, 'build', 'bench', 'napi-big');
  ctx.log(`  napi: real project in ${dir} (npm ci from the registry the first time, ~112 MB)`);
  return makeBigProject(dir);
}

/** One Node variant: stock, dropin, direct interleaved; the digest must be the stock loader's. */
async function nodeJob(ctx, variant, node, args, metrics) {
  let reference;
  const check = (route) => (r) => {
    const j = JSON.parse(r.stdout.trim().split('\n').pop());
    if (route === 'stock') reference ??= j.digest;
    expectChecksum(j.digest, reference, 'the stock loader');
    if (j.asyncDigest !== undefined) expectChecksum(j.asyncDigest, reference, 'the stock loader (parse())');
    return { job_ms: j.jobMs, first_ms: j.firstMs, load_ms: j.loadMs, peak_rss_mb: j.maxRssKb / 1024, cpu_ms: j.cpuMs,
      job_cpu_ms: j.jobCpuMs, load_cpu_ms: j.loadCpuMs };
  };
  return measure(ctx, {
    experiment: id, variant, baseline: 'stock', metrics, timeoutMs: 600_000,
    configs: CONFIGS.map((route) => ({ config: route, cmd: [node, [join(napi, 'work.mjs'), route, ...args]], check: check(route) })),
  });
}

/** One engine: rolldown and oxc, each run in a fresh browser (for its peak memory), interleaved. */
async function browserJobs(ctx, engine, dir, projectDir, repeat, jobNames) {
  const pages = await import(join(napi, 'pages.mjs'));
  const out = join(dir, `pages-${engine}`);
  pages.buildPages(out, { projectDir });
  const server = await pages.serve(out);
  const name = ENGINE_NAMES[engine];
  const jobs = [[`rolldown, ${name}`, 'bundle'], [`oxc, ${name}`, 'parse']].filter(([v]) => jobNames.includes(v.split(',')[0]));
  const state = new Map();
  for (const [variant, job] of jobs) {
    for (const c of CONFIGS) state.set(`${variant}|${c}`, { values: Object.fromEntries(metricsOf(job).map((m) => [m.key, []])), error: undefined });
  }
  const reference = new Map();
  try {
    for (let round = -1; round < ctx.runs; round++) {
      for (const [variant, job] of jobs) {
        for (const route of CONFIGS) {
          const s = state.get(`${variant}|${route}`);
          if (s.error) continue;
          try {
            const { result, peakKb } = await inFreshBrowser(engine, (browser) => pages.runJob(browser, server.url, route, job, 600_000, { repeat }));
            if (route === 'stock' && !reference.has(variant)) reference.set(variant, result.digest);
            expectChecksum(result.digest, reference.get(variant), 'the stock loader');
            if (result.asyncDigest !== undefined) expectChecksum(result.asyncDigest, reference.get(variant), 'the stock loader (parse())');
            if (round < 0) continue;
            s.values.job_ms.push(result.jobMs);
            if (s.values.first_ms) s.values.first_ms.push(result.firstMs);
            s.values.load_ms.push(result.loadMs);
            s.values.peak_rss_mb.push(peakKb / 1024);
          } catch (e) {
            s.error = e instanceof Error ? e.message.split('\n')[0] : String(e);
            ctx.log(`  FAILED napi ${variant} ${route}: ${s.error}`);
          }
        }
      }
    }
  } finally {
    server.stop();
  }
  const rows = [];
  for (const [variant, job] of jobs) {
    for (const route of CONFIGS) {
      const s = state.get(`${variant}|${route}`);
      for (const m of metricsOf(job)) {
        const v = s.error ? [] : s.values[m.key];
        rows.push({ experiment: id, variant, config: route, metric: m.key, unit: m.unit, runs: v.length, min: min(v), median: median(v),
          baseline: 'stock', ratio_min: NaN, ratio_median: NaN, ok: !s.error, error: s.error ?? '', note: '', samples: v });
      }
    }
  }
  return withRatios(rows);
}

/** How each engine's content processes (where a page, its workers and its wasm memory live) are named. */
const CONTENT = { chromium: '--type=renderer', firefox: '-contentproc' };

/**
 * Runs `f(browser)` in a browser of its own (tools/browsers); returns its result and the peak
 * resident memory (VmHWM, KB) of the largest content process this process started meanwhile.
 */
async function inFreshBrowser(engine, f) {
  const browser = await launch(engine);
  try {
    const result = await f(browser);
    return { result, peakKb: contentPeakKb(CONTENT[engine]) };
  } finally {
    await browser.close();
  }
}

/** The largest VmHWM among this process's descendants whose command line has `marker`. */
function contentPeakKb(marker) {
  const procs = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const ppid = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1]);
      const hwm = Number(/^VmHWM:\s*(\d+)/m.exec(status)?.[1]);
      return { pid: Number(pid), ppid, cmd, hwm };
    } catch { return undefined; }
  }).filter(Boolean);
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!mine.has(p.pid) && mine.has(p.ppid)) { mine.add(p.pid); grew = true; }
  }
  let peak = NaN;
  for (const p of procs) if (p.pid !== process.pid && mine.has(p.pid) && p.cmd.includes(marker) && !(peak >= p.hwm)) peak = p.hwm;
  return peak;
}

/**
 * The goals, from the medians of one run (job time, ratio to the stock loader): rolldown in
 * Chromium from a memory mount at least 2x faster than the stock loader's memfs; in Node no slower.
 */
export function goals(rows) {
  const ratio = (variant, config, metric = 'job_ms') => rows.find((r) => r.variant === variant && r.config === config && r.metric === metric)?.ratio_median;
  const goal = (label, value, op, target) => {
    if (!Number.isFinite(value)) return `napi ${label}: not measured (goal ${op} ${target})`;
    const met = op === '<=' ? value <= target : value >= target;
    return `napi ${label}: ${value.toFixed(2)}x the stock loader's time (goal ${op} ${target}): ${met ? 'met' : 'NOT met'}`;
  };
  const out = [];
  for (const config of ['dropin', 'direct']) {
    out.push(goal(`rolldown in Chromium from a memory mount, ${config}`, ratio('rolldown, Chromium', config), '<=', 0.5));
    out.push(goal(`rolldown in Chromium from a memory mount, ${config}, first bundle`, ratio('rolldown, Chromium', config, 'first_ms'), '<=', 0.5));
    for (const line of ['Node 20', 'Node 26']) {
      for (const job of ['rolldown', 'oxc']) out.push(goal(`${job} in ${line}, ${config}`, ratio(`${job}, ${line}`, config), '<=', 1));
      // The real project (--param napi.project=big) only when it ran: the goal is set on
      // the generated one; this says whether it holds where users are.
      const real = ratio(`rolldown, real project, ${line}`, config);
      if (real !== undefined) out.push(goal(`rolldown on a real project in ${line}, ${config}`, real, '<=', 1));
    }
  }
  return out;
}
