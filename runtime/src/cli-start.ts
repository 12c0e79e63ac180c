#!/usr/bin/env node
/**
 * The `spindle` command's first file (dist/cli.cjs, the package's "bin"; scripts/bundle.mjs
 * builds it). `spindle check`, `bench` and `serve` are ES modules beside it (from tsc), imported
 * here; everything else goes to the CLI (dist/cli-bundle.cjs: cli.ts and the runtime in one
 * CommonJS file), run with V8's code cache of that file kept across runs in the cache directory
 * (`cli/`; platform/node/bundle-cache.ts says how). Compiling the 250 KB bundle, then each of its
 * functions the first time it runs, cost a hello world ~5 ms of its ~15 ms of CPU over bare Node
 * (Node 20; Node 26 alike). Code compiled by a vm.Script may not `import()` (Node 20-26, without
 * --experimental-vm-modules): hence the subcommands here.
 *
 * This file stays small and loads nothing of the runtime: it is compiled at every start.
 */
import { writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireWithCodeCache } from './platform/node/bundle-cache.js';

/** The bundle's file name, beside this file, and the hash of its content (scripts/bundle.mjs). */
declare const __SPINDLE_CLI_BUNDLE__: string;
declare const __SPINDLE_CLI_BUILD__: string;

/** Entries kept in `cli/` (~180 KB each). */
const CLI_ENTRIES = 16;

/** Runs the CLI bundle, with its code cache when there is a cache directory. */
function runBundle(): void {
  requireWithCodeCache(join(dirname(fileURLToPath(import.meta.url)), __SPINDLE_CLI_BUNDLE__), __SPINDLE_CLI_BUILD__, 'cli', CLI_ENTRIES);
}

function fail(message: string, status: number): never {
  writeSync(2, `spindle: error: ${message}\n`);
  process.exit(status);
}

function print(s: string): void {
  writeSync(1, s);
}

async function subcommand(name: string, args: string[]): Promise<void> {
  if (name === 'check') process.exit(await (await import('./check.js')).checkCommand(args, print));
  if (name === 'bench') return (await import('./bench.js')).benchCommand(args, fail);
  return (await import('./serve.js')).serveCommand(args, print, fail);
}

const [name, ...args] = process.argv.slice(2);
if (name === 'check' || name === 'bench' || name === 'serve') void subcommand(name, args);
else runBundle();
