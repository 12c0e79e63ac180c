#!/usr/bin/env node
/**
 * `spindle bench`: every experiment in ONE session, so that each ratio compares figures measured
 * under the same conditions.
 *
 *   spindle bench [--quick] [--threads 1,2,4] [--runs N] [--out DIR] [--only ID,...] [--list]
 *   node bench/harness/main.mjs ...   (the same, without the CLI)
 *
 * It sets up the baselines (setup.sh: the emnapi peer stack, wasmtime 46), builds the guests,
 * runs the experiments of registry.mjs with a progress display (stderr), prints the table
 * (stdout), and writes results.json, results.csv, summary.md and charts/*.svg to DIR (default
 * build/bench/report). Every figure is min and median of N runs (+1 warm-up); every run's output
 * is checked before its time counts. Exit status 1 if any configuration FAILED (wrong output,
 * crash), 2 for a usage error; an unavailable configuration does not fail the run.
 *
 * Context given to each experiment's run(ctx): repo, benchDir (bench/runtime, for its hosts),
 * spindleCli (a snapshot of runtime/dist), programs, commands (bench/harness/lib/configs.mjs),
 * runs, quick, threads, threadsExplicit (--threads given), cores, wasmtime ({ exe } or { unavailable }),
 * params (the --param settings, keyed 'experiment.key'; each experiment declares its settings in
 * its `params` export: key -> one-line description), log(message).
 */
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildPrograms } from './lib/build.mjs';
import { commands } from './lib/configs.mjs';
import { loadRegistry } from './registry.mjs';
import { createProgress } from './progress.mjs';
import { loadWarning, machine, sampleLoad, sampleSteal, stealWarning } from './machine.mjs';
import { failureBanner, printReport, writeSession } from './report.mjs';
import { failures, threadsRun } from './rows.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const WASMTIME_VERSION = '46.';
const WORK = join(repo, 'build', 'bench', 'harness');

export const V8_TIER = 'wasm on V8 runs with the optimizing tier (TurboFan) up front: spindle by default, '
  + 'the emnapi peer with node --no-liftoff; the optimizing-tier experiment compares against V8\'s default tiering '
  + '(a thread loop entered once otherwise stays in baseline code)';

const USAGE = `usage: spindle bench [--quick] [--threads 1,2,4] [--runs N] [--out DIR] [--only ID,...|--all] [--param K=V]... [--list]

  --quick        3 runs, fewer thread counts and smaller workloads (a few minutes on 2 cores)
  --threads L    thread counts for the experiments that scale (default 1 .. 2 x cores)
  --runs N       runs per configuration, after one warm-up (default 5; 3 with --quick)
  --out DIR      where results go (default build/bench/report)
  --only IDS     run only these experiments (see --list)
  --all          also run the experiments that only run when named (browsers, fs-native)
  --param K=V    an experiment's own setting, e.g. malloc.workloads=ring,larson (see --list)
  --list         list the experiments and exit
  --from-json F  write summary, CSV and charts again from a results.json (measures nothing)
`;

class UsageError extends Error {}

export function parseArgs(argv, cores = availableParallelism()) {
  const o = { quick: false, runs: undefined, threads: undefined, out: join(repo, 'build', 'bench', 'report'), only: undefined, all: false, list: false, registry: undefined, help: false, params: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => { const v = argv[++i]; if (v === undefined) throw new UsageError(`${a} needs a value`); return v; };
    if (a === '--quick') o.quick = true;
    else if (a === '--runs') { o.runs = Number(value()); if (!Number.isInteger(o.runs) || o.runs < 1) throw new UsageError('--runs takes a whole number >= 1'); }
    else if (a === '--threads') {
      const v = value();
      o.threads = v.split(',').map(Number);
      if (!o.threads.length || o.threads.some((t) => !Number.isInteger(t) || t < 1 || t > 64)) throw new UsageError(`--threads takes a list like 1,2,4 (1..64), got '${v}'`);
    } else if (a === '--out') o.out = resolve(value());
    else if (a === '--only') o.only = value().split(',').filter(Boolean);
    else if (a === '--list') o.list = true;
    else if (a === '--all') o.all = true;
    else if (a === '--param') {
      const v = value();
      const eq = v.indexOf('=');
      if (!/^[a-z][\w-]*\.[a-z][\w-]*$/i.test(v.slice(0, eq))) throw new UsageError(`--param takes EXPERIMENT.KEY=VALUE (e.g. malloc.workloads=ring), got '${v}'`);
      o.params[v.slice(0, eq)] = v.slice(eq + 1);
    }
    else if (a === '--registry') o.registry = resolve(value()); // tests: a module exporting `registry`
    else if (a === '--from-json') o.fromJson = resolve(value());
    else if (a === '-h' || a === '--help') o.help = true;
    else throw new UsageError(`unknown option ${a}`);
  }
  o.given = argv.filter((a) => a.startsWith('--'));
  o.runs ??= o.quick ? 3 : 5;
  o.threads ??= o.quick ? [1, cores, 2 * cores] : Array.from({ length: 2 * cores }, (_, i) => i + 1);
  o.threads = [...new Set(o.threads)].sort((a, b) => a - b);
  return o;
}

/** wasmtime 46 from build/bench/bin (installed by setup.sh), else `wasmtime` on PATH if it is 46. */
function findWasmtime() {
  const tried = [];
  for (const exe of [join(repo, 'build', 'bench', 'bin', 'wasmtime'), 'wasmtime']) {
    const r = spawnSync(exe, ['--version'], { encoding: 'utf8' });
    const v = (r.stdout ?? '').trim();
    if (r.status === 0 && v.startsWith(`wasmtime ${WASMTIME_VERSION}`)) return { exe, version: v };
    tried.push(`${exe}: ${r.error ? r.error.code : v || `exit ${r.status}`}`);
  }
  return { unavailable: `wasmtime 46 could not be installed or found (bench/harness/setup.sh; tried ${tried.join('; ')})` };
}

async function prepare(selected, opts, log) {
  const needs = new Set(selected.flatMap((e) => e.needs ?? []));
  const ctx = {
    repo, benchDir: join(repo, 'bench', 'runtime'), runs: opts.runs, quick: opts.quick, threads: opts.threads,
    threadsExplicit: opts.given.includes('--threads'),
    cores: availableParallelism(), log, wasmtime: { unavailable: 'not needed' }, programs: {},
    params: opts.params,
  };
  if (needs.has('peers') || needs.has('wasmtime')) {
    execFileSync('bash', [join(here, 'setup.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  if (needs.has('wasmtime')) ctx.wasmtime = findWasmtime();
  if (needs.has('programs') || needs.has('peers')) {
    const cli = join(repo, 'runtime', 'dist', 'cli.js');
    if (!existsSync(cli)) throw new UsageError(`${relative(process.cwd(), cli)} is missing: build the runtime first: (cd runtime && npx tsc -p .)`);
    // Snapshot the runtime under test: runtime/dist may be rebuilt during the session. Built
    // programs and the snapshot live in build/bench/harness, never in the results directory.
    const snapshot = join(WORK, `runtime-dist-${process.pid}`);
    ctx.cleanup = () => rmSync(snapshot, { recursive: true, force: true });
    rmSync(snapshot, { recursive: true, force: true });
    cpSync(dirname(cli), snapshot, { recursive: true });
    // What users run: the package's "bin" (dist/cli.cjs, the CommonJS bundle). The snapshot's
    // package.json keeps dist's ES modules (bench.js, the cli.js shim) modules: without one,
    // Node would first try each as CommonJS.
    const runtimePackage = JSON.parse(readFileSync(join(repo, 'runtime', 'package.json'), 'utf8'));
    writeFileSync(join(snapshot, 'package.json'), JSON.stringify({ type: runtimePackage.type }));
    ctx.spindleCli = join(snapshot, relative('dist', runtimePackage.bin.spindle));
    try {
      ctx.programs = buildPrograms(repo, WORK, log);
    } catch (e) {
      throw new UsageError(`could not build the benchmark programs (bench/programs with tools/wasi-cc and gcc): ${e.message.split('\n')[0]}; `
        + 'run tools/setup.sh first');
    }
  }
  ctx.commands = commands(ctx);
  return ctx;
}

/**
 * --from-json FILE: writes the summary, CSV and charts again from a session's results.json (the
 * goals recomputed from its rows), e.g. after a change to the charts; measures nothing.
 */
function rerender(opts, registry) {
  const metrics = new Set(['min', 'median', 'ratio_min', 'ratio_median']);
  const session = JSON.parse(readFileSync(opts.fromJson, 'utf8'), (k, v) => (v === null && metrics.has(k) ? NaN : v));
  for (const e of session.results) {
    const entry = registry.find((x) => x.id === e.id);
    if (entry?.goals && e.rows.length) e.goals = entry.goals(e.rows);
  }
  const out = argvHas(opts, '--out') ? opts.out : dirname(opts.fromJson);
  const charts = writeSession(out, session, registry);
  process.stdout.write(`rewrote ${join(out, 'summary.md')}, results.json, results.csv and ${charts.length} charts\n`);
  return 0;
}

const argvHas = (opts, flag) => opts.given.includes(flag);

export async function main(argv) {
  const opts = parseArgs(argv);
  if (opts.help) { process.stdout.write(USAGE); return 0; }
  const registry = opts.registry ? (await import(pathToFileURL(opts.registry).href)).registry : await loadRegistry(repo);
  if (opts.list) {
    for (const e of registry) {
      const when = e.runByDefault === false ? '  [only with --only or --all]' : '';
      process.stdout.write(`${e.id.padEnd(16)} ${e.title}${when}${e.unavailable?.({ repo, params: {} }) ? '  [not available here]' : ''}\n`);
      for (const [k, doc] of Object.entries(e.params ?? {})) process.stdout.write(`${''.padEnd(18)}--param ${e.id}.${k}=...  ${doc}\n`);
    }
    return 0;
  }
  if (opts.fromJson) return rerender(opts, registry);
  for (const id of opts.only ?? []) if (!registry.some((e) => e.id === id)) throw new UsageError(`no experiment '${id}' (see --list)`);
  for (const key of Object.keys(opts.params)) {
    const [eid, k] = key.split('.');
    if (!registry.find((e) => e.id === eid)?.params?.[k]) throw new UsageError(`--param ${key}: experiment '${eid}' has no setting '${k}' (see --list)`);
  }
  // Without --only: every experiment except those that run only when named (runByDefault: false).
  const selected = registry.filter((e) => (opts.only ? opts.only.includes(e.id) : opts.all || e.runByDefault !== false));

  const started = new Date();
  const t0 = process.hrtime.bigint();
  const load = sampleLoad();
  const steal = sampleSteal();
  const progress = createProgress({ total: selected.length });
  const log = (m) => progress.log(m);
  log(`spindle bench: ${selected.map((e) => e.id).join(', ')}; ${opts.runs} runs (+1 warm-up); threads ${opts.threads.join(',')}${opts.given.includes('--threads') ? '' : ' (where an experiment does not fix its own)'}; `
    + `load average ${loadavg()[0].toFixed(2)} on ${availableParallelism()} cores`);
  const ctx = await prepare(selected, opts, log);
  const prepareS = Number(process.hrtime.bigint() - t0) / 1e9;
  if (ctx.wasmtime.exe) log(`wasmtime: ${ctx.wasmtime.version} (${ctx.wasmtime.exe})`);
  else if (selected.some((e) => e.needs?.includes('wasmtime'))) log(`wasmtime unavailable: ${ctx.wasmtime.unavailable}`);

  const results = [];
  for (const e of selected) {
    progress.step(e.id);
    const e0 = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - e0) / 1e9;
    const why = e.unavailable?.(ctx);
    if (why) {
      log(`${e.id}: ${why}`);
      results.push({ id: e.id, rows: [], goals: [], unavailable: why, durationS: 0 });
      continue;
    }
    try {
      const rows = await e.run(ctx);
      results.push({ id: e.id, rows, goals: e.goals ? e.goals(rows) : [], durationS: seconds() });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log(`FAILED ${e.id}: ${message}`);
      results.push({ id: e.id, rows: [], goals: [], error: message, durationS: seconds() });
    }
    log(`${e.id}: ${seconds().toFixed(1)} s`);
  }
  progress.done();
  ctx.cleanup?.();

  const loadSummary = load.stop();
  const stealSummary = steal.stop();
  const m = machine();
  const warnings = [loadWarning(loadSummary, m.cpus), stealWarning(stealSummary)].filter(Boolean);
  const session = {
    command: `spindle bench ${argv.filter((a, i) => a !== '--registry' && argv[i - 1] !== '--registry').join(' ')}`.trim(),
    started: started.toISOString(),
    durationS: Number(process.hrtime.bigint() - t0) / 1e9,
    prepareS,
    runs: opts.runs, quick: opts.quick, threads: threadsRun(results, opts.threads),
    machine: m, load: loadSummary, steal: stealSummary, v8Tier: V8_TIER,
    wasmtime: ctx.wasmtime.exe ? ctx.wasmtime.version : ctx.wasmtime.unavailable,
    warnings,
    results,
  };
  printReport(session, registry);
  const charts = writeSession(opts.out, session, registry);
  process.stderr.write(failureBanner(results));
  const r = relative(process.cwd(), opts.out);
  const rel = r === '' ? '.' : r.startsWith('..') ? opts.out : r;
  process.stdout.write(`spindle bench finished in ${session.durationS.toFixed(0)} s (load average max ${loadSummary.max.toFixed(2)} on ${m.cpus} cores)\n`);
  process.stdout.write(`results: ${join(rel, 'summary.md')}, ${join(rel, 'results.json')}, ${join(rel, 'results.csv')}\n`);
  process.stdout.write(`charts:  ${charts.length ? charts.map((c) => join(rel, c.file)).join(' ') : '(none)'}\n`);
  return failures(results).length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`spindle bench: ${e.message}\n${USAGE}`);
    process.exitCode = 2;
  }
}
