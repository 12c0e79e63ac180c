#!/usr/bin/env node
/**
 * The `spindle` command's first file (dist/cli.cjs, the package's "bin"; scripts/bundle.mjs
 * builds it). `spindle check`, `bench` and `serve` are ES modules beside it (from tsc), imported
 * here; everything else goes to the CLI (dist/cli-bundle.cjs: cli.ts and the runtime in one
 * CommonJS file), run with V8's code cache of that file kept across runs in the cache directory
 * (cache-dir.ts, `cli/`). Compiling the 250 KB bundle, then each of its functions the first time
 * it runs, cost a hello world ~5 ms of its ~15 ms of CPU over bare Node (Node 20; Node 26 alike).
 * The cache is written at the exit of a run that found none: it holds the bytecode of every
 * function that run compiled, so the next start compiles almost nothing.
 *
 * Entry: `<dir>/cli/<key>.bin`, key = the bundle's content hash (compiled in here by
 * bundle.mjs), its path, Node's version and arch and this process's V8 options (execArgv,
 * NODE_OPTIONS). V8 checks a cache's V8 version and flags itself, but of the source only its
 * length: another bundle of the same length must never run this one's code, hence the content
 * hash. A cache V8 refuses anyway is replaced at exit, unless V8's flags changed during the run. `cli/` keeps the CLI_ENTRIES newest
 * entries (a bench snapshot, a rebuild, another Node line each make one). Without a cache directory
 * (SPINDLE_CACHE_DIR=none) the bundle is required as Node would. Code compiled by a vm.Script
 * may not `import()` (Node 20-26, without --experimental-vm-modules): hence the subcommands here.
 *
 * This file stays small and loads nothing of the runtime: it is compiled at every start.
 */
import { readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as V8 from 'node:v8';
import type * as Vm from 'node:vm';
import { cacheDir, fnv1a, keepNewest, v8Options, writeEntryAtomic } from './platform/node/cache-dir.js';

/** The bundle's file name, beside this file, and the hash of its content (scripts/bundle.mjs). */
declare const __SPINDLE_CLI_BUNDLE__: string;
declare const __SPINDLE_CLI_BUILD__: string;

/** Entries kept in `cli/` (~180 KB each). */
const CLI_ENTRIES = 16;

const bundle = join(dirname(fileURLToPath(import.meta.url)), __SPINDLE_CLI_BUNDLE__);
const requireHere = createRequire(bundle);

/** Node's CommonJS wrapper: the bundle sees what a module required by Node would. */
type ModuleFunction = (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;

/** Runs the CLI bundle, with its code cache when there is a cache directory. */
function runBundle(): void {
  const dir = cacheDir();
  if (!dir) {
    requireHere(bundle);
    return;
  }
  const vm = requireHere('node:vm') as typeof Vm;
  const file = join(dir, 'cli', `${entryKey()}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(file);
  } catch {
    // none yet: written at exit
  }
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`;
  const script = new vm.Script(source, { filename: bundle, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    // V8 stamps a cache with its flags, and a run that hosted threads on Node 22 set one
    // (jspi.ts workerJspiFlag): a cache written then would be refused by the next run.
    const { cachedDataVersionTag } = requireHere('node:v8') as typeof V8;
    const tag = cachedDataVersionTag();
    process.once('exit', () => {
      if (cachedDataVersionTag() !== tag) return;
      if (writeEntryAtomic(file, script.createCachedData())) keepNewest(dirname(file), CLI_ENTRIES);
    });
  }
  const module = { exports: {} };
  (script.runInThisContext() as ModuleFunction)(module.exports, requireHere, module, bundle, dirname(bundle));
}

/** The entry's name: what V8 does not check itself (see the module note), hashed. */
function entryKey(): string {
  return `${__SPINDLE_CLI_BUILD__}-${process.version}-${process.arch}-${fnv1a(`${bundle}\0${v8Options()}`)}`;
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
