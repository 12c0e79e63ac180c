#!/usr/bin/env node
/**
 * The browser benchmarks (issue 6): the demo's three experiments at T = 1, 2, 4 and thread spawn
 * latency with the warm pool, in Debian's Chromium (playwright-core), every configuration measured
 * in the same page and the same run, so the ratios compare like with like.
 *
 *   node bench/browser/run.mjs [--quick] [--runs N] [--size small|medium|full] [--threads 1,2,4] [--out DIR]
 *
 * Default: size medium, 5 runs per point after one warm-up run per configuration and point
 * (discarded: the first run of a module in a page runs V8's baseline code until tier-up);
 * --quick: size small, 3 runs. Runs are interleaved round-robin over the configurations of a
 * point so that load changes hit all of them alike. Every figure is measured inside the program
 * (its own CLOCK_MONOTONIC); nothing here times anything.
 *
 * Writes DIR/results.json and DIR/results.md (default bench/browser/results/) with the command,
 * the machine, the load average before and after each experiment, min and median per point, and
 * the ratios. The OPFS configurations of issue 6 are listed as not available (no OPFS backend yet).
 * Exit status 1 if a configuration has no successful run (failed runs are listed either way).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchInBrowser } from './bench.mjs';
import { repo } from './chromium.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i < 0 ? dflt : argv[i + 1]; };
const quick = argv.includes('--quick');
const SIZE = opt('--size', quick ? 'small' : 'medium');
const RUNS = Number(opt('--runs', quick ? 3 : 5));
const THREADS = opt('--threads', '1,2,4').split(',').map(Number);
const OUT = opt('--out', join(repo, 'bench', 'browser', 'results'));

async function main() {
  const result = {
    command: `node bench/browser/run.mjs ${argv.join(' ')}`.trim(),
    ...await benchInBrowser({ size: SIZE, runs: RUNS, threads: THREADS, log: (s) => process.stderr.write(`bench/browser: ${s}\n`) }),
  };
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(OUT, 'results.md'), markdown(result));
  process.stdout.write(markdown(result));
  if (result.rows.some((r) => !r.ok)) process.exitCode = 1;
}

function markdown(r) {
  const lines = [
    '# Browser benchmarks (Chromium): results', '',
    `Command: \`${r.command}\` (started ${r.started}). Size ${r.size}, ${r.runs} runs per point after ${r.warmup} warm-up run, interleaved.`,
    `Machine: ${r.machine.cpu}, ${r.machine.cores} logical cores; Node ${r.machine.node}; ${r.machine.chromium} (headless, playwright-core).`,
    `Load average (1, 5, 15 min): ${r.load.before} before, ${r.load.after} after. Every figure is the program's own measurement; compare ratios within this run.`,
    '', '## Ratios (medians of this run)', '', '| ratio | value | note |', '|---|---|---|',
    ...r.ratios.map((x) => `| ${x.what} | ${x.ratio} | ${x.note} |`),
    '', '## Points', '', '| experiment | chart | configuration | x | unit | min | median | runs | load during |', '|---|---|---|---|---|---|---|---|---|',
    ...r.rows.map((x) => `| ${x.experiment} | ${x.chart} | ${x.label} | ${x.experiment === 'spawn' ? `k=${x.x}` : typeof x.x === 'number' ? `T=${x.x}` : x.x} | ${x.unit} | ${x.ok ? x.min : 'FAILED'} | ${x.ok ? x.median : 'FAILED'} | ${x.runs.length}${x.failedRuns ? ` (+${x.failedRuns} failed)` : ''} | ${x.load} |`),
    '', '## Not available', '',
    ...r.unavailable.map((u) => `- ${u.experiment} / ${u.config}: ${u.reason}`),
  ];
  if (r.failures.length) lines.push('', '## Failures', '', ...r.failures.map((f) => `- ${f.experiment} ${f.chart ?? ''} ${f.config} x=${f.x}: ${f.error}`));
  return `${lines.join('\n')}\n`;
}

main().catch((e) => { console.error(`bench/browser: ${e.message}`); process.exit(1); });
