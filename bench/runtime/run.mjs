#!/usr/bin/env node
/**
 * spindle runtime benchmarks (issue 2): one command, every configuration in the same session.
 *
 *   node bench/runtime/run.mjs [--quick] [--runs N] [--out DIR] [--only ID,...]
 *
 * Experiments (one module each in experiments/, each returning rows):
 *   spawn-latency    thread spawn latency with a warm pool, p50/p99, vs @emnapi/wasi-threads
 *   first-output     time to first output of hello world, vs the emnapi stack and node:wasi
 *   optimizing-tier  pure math with and without V8's optimizing tier up front, and native
 *
 * Writes results.json, results.csv and summary.md to DIR (default build/bench/runtime).
 * Needs: runtime/dist (cd runtime && npx tsc -p .), clang-19 (tools/wasi-cc), gcc, and
 * `npm install` in bench/runtime (done here if node_modules is missing).
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem, availableParallelism, platform, release } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPrograms } from './lib/build.mjs';
import { commands } from './lib/configs.mjs';
import { writeResults } from './lib/report.mjs';
import * as spawnLatency from './experiments/spawn-latency.mjs';
import * as firstOutput from './experiments/first-output.mjs';
import * as optimizingTier from './experiments/optimizing-tier.mjs';

const EXPERIMENTS = [spawnLatency, firstOutput, optimizingTier];
const benchDir = dirname(fileURLToPath(import.meta.url));
const repo = resolve(benchDir, '..', '..');

function usage(message) {
  if (message) process.stderr.write(`run.mjs: ${message}\n`);
  process.stderr.write('usage: node bench/runtime/run.mjs [--quick] [--runs N] [--out DIR] [--only '
    + `${EXPERIMENTS.map((e) => e.id).join(',')}]\n`);
  process.exit(message ? 2 : 0);
}

function parseArgs(argv) {
  const o = { quick: false, runs: undefined, out: join(repo, 'build', 'bench', 'runtime'), only: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => argv[++i] ?? usage(`${a} needs a value`);
    if (a === '--quick') o.quick = true;
    else if (a === '--runs') { o.runs = Number(value()); if (!Number.isInteger(o.runs) || o.runs < 1) usage('--runs takes a whole number >= 1'); }
    else if (a === '--out') o.out = resolve(value());
    else if (a === '--only') o.only = value().split(',');
    else if (a === '-h' || a === '--help') usage();
    else usage(`unknown option ${a}`);
  }
  o.runs ??= o.quick ? 3 : 5;
  if (o.only) for (const id of o.only) if (!EXPERIMENTS.some((e) => e.id === id)) usage(`no experiment '${id}'`);
  return o;
}

function loadWarning(when) {
  const load = loadavg()[0], cores = availableParallelism();
  return load > cores * 0.5
    ? `load average ${load.toFixed(2)} on ${cores} cores ${when}: other work is running, figures may be noisy`
    : undefined;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const log = (m) => process.stderr.write(`${m}\n`);
  const spindleCli = join(repo, 'runtime', 'dist', 'cli.js');
  if (!existsSync(spindleCli)) {
    log(`run.mjs: ${spindleCli} is missing; build the runtime first: (cd runtime && npx tsc -p .)`);
    process.exit(1);
  }
  if (!existsSync(join(benchDir, 'node_modules', '@emnapi', 'wasi-threads'))) {
    log('installing the peer stack (npm install in bench/runtime)');
    execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: benchDir, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const started = new Date();
  const t0 = process.hrtime.bigint();
  const warnings = [];
  const w0 = loadWarning('at the start');
  if (w0) { warnings.push(w0); log(`WARNING: ${w0}`); }
  const loadBefore = loadavg()[0];

  // Snapshot the runtime under test: runtime/dist may be rebuilt by someone else during the
  // session, and a half-written dist makes runs fail for reasons that are not the runtime's.
  const snapshot = join(opts.out, 'runtime-dist');
  rmSync(snapshot, { recursive: true, force: true });
  cpSync(dirname(spindleCli), snapshot, { recursive: true });
  const programs = buildPrograms(repo, opts.out, log);
  const ctx = { repo, benchDir, spindleCli: join(snapshot, 'cli.js'), programs, runs: opts.runs, quick: opts.quick, log };
  ctx.commands = commands(ctx);

  const results = [];
  for (const exp of EXPERIMENTS) {
    if (opts.only && !opts.only.includes(exp.id)) continue;
    const e0 = process.hrtime.bigint();
    const rows = await exp.run(ctx);
    results.push({ id: exp.id, rows, goals: exp.goals ? exp.goals(rows) : [], durationS: Number(process.hrtime.bigint() - e0) / 1e9 });
    log(`  ${exp.id}: ${(Number(process.hrtime.bigint() - e0) / 1e9).toFixed(1)} s`);
  }
  const w1 = loadWarning('at the end');
  if (w1) { warnings.push(w1); log(`WARNING: ${w1}`); }
  const session = {
    command: `node bench/runtime/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    started: started.toISOString(),
    durationS: Number(process.hrtime.bigint() - t0) / 1e9,
    runs: opts.runs,
    quick: opts.quick,
    machine: {
      cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memGiB: Math.round(totalmem() / 2 ** 30),
      platform: `${platform()} ${release()}`, node: process.versions.node, v8: process.versions.v8,
      loadBefore, loadAfter: loadavg()[0],
    },
    warnings,
    results,
  };
  writeResults(opts.out, session, EXPERIMENTS);
  log('');
  for (const g of results.flatMap((e) => e.goals)) log(g);
  log(`\nresults: ${join(opts.out, 'summary.md')} (+ results.json, results.csv) in ${session.durationS.toFixed(0)} s`);
  if (results.some((e) => e.rows.some((r) => !r.ok))) process.exitCode = 1;
}

await main();
