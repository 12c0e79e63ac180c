/**
 * Requires one of spindle's CommonJS bundles on a Node main thread with V8's code cache of it
 * kept across runs in the cache directory (cache-dir.ts): the CLI (cli-start.ts, `cli/`) and
 * spindle/napi (dist/napi/index.cjs, written by scripts/bundle.mjs, `napi/`). Compiling a bundle,
 * then each of its functions the first time it runs, is most of what loading it costs: the CLI's
 * 250 KB ~5 ms of CPU; spindle/napi's ~780 KB took 17-23 ms of CPU to require, 7-12 with the
 * cache (Node 20 and 26), and its functions that loading an addon runs compile from the cache too.
 *
 * The bundle runs as a `vm.Script` inside Node's CommonJS wrapper, so it sees what a module
 * required by Node would (`require` from its own path, `module`, `__filename`, `__dirname`); it
 * is not put in require.cache (its starter is). Unlike Node's module.enableCompileCache (which
 * holds for the whole process), it changes nothing of how the user's own modules compile or where
 * their caches go. Code compiled by a vm.Script may not `import()`
 * (Node 20-26, without --experimental-vm-modules): scripts/bundle.mjs refuses a bundle that does.
 *
 * Entry: `<dir>/<folder>/<key>.bin`, key = the bundle's content hash (computed by bundle.mjs and
 * compiled into the starter), its path, size and modification time, Node's version and arch and
 * this process's V8 options (execArgv, NODE_OPTIONS). V8 checks a cache's V8 version and flags
 * itself, but of the source only its length: another bundle of the same length (a rebuild, or
 * the bundle edited in place after the build) must never run this one's code, hence the hash,
 * size and time. The entry is written at the exit of a run that found none or whose entry V8
 * refused (cut short, garbage, another V8): it then holds the bytecode of every function that run
 * compiled, so the next load compiles almost nothing (spindle/napi after a rolldown bundle:
 * ~0.4-0.55 MB, 12-28 ms of createCachedData at that one exit; never during the run, where it
 * would stall the main thread). A process ended by a signal writes nothing: its next run compiles
 * as before. Not when V8's flags changed during the run (a run that hosted threads on Node 22 sets
 * one, jspi.ts workerJspiFlag): the next run would refuse it. The folder keeps its `keep` newest
 * entries. Without a cache directory (SPINDLE_CACHE_DIR=none) the bundle is required as Node
 * would, and nothing is written.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as V8 from 'node:v8';
import { Script } from 'node:vm';
import { cacheDir, fnv1a, keepNewest, v8Options, writeEntryAtomic } from './cache-dir.js';

/** Node's CommonJS wrapper: the bundle sees what a module required by Node would. */
type ModuleFunction = (exports: object, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;

/**
 * The exports of the CommonJS file `bundle` (an absolute path), run with its code cache from
 * `folder` of the cache directory (see the module note). `build` is the hash of its content.
 */
export function requireWithCodeCache(bundle: string, build: string, folder: string, keep: number): unknown {
  const requireHere = createRequire(bundle);
  const dir = cacheDir();
  if (!dir) return requireHere(bundle);
  const source = readFileSync(bundle, 'utf8');
  const file = join(dir, folder, `${entryKey(bundle, build)}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(file);
  } catch {
    // none yet: written at exit
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData });
  if (!cachedData || script.cachedDataRejected) writeAtExit(script, file, keep, requireHere);
  const module = { exports: {} as unknown };
  (script.runInThisContext() as ModuleFunction)(module.exports as object, requireHere, module, bundle, dirname(bundle));
  return module.exports;
}

/** Writes `script`'s code cache to `file` when the process exits, unless V8's flags changed. */
function writeAtExit(script: Script, file: string, keep: number, requireHere: NodeJS.Require): void {
  const { cachedDataVersionTag } = requireHere('node:v8') as typeof V8;
  const tag = cachedDataVersionTag();
  process.once('exit', () => {
    if (cachedDataVersionTag() !== tag) return;
    if (writeEntryAtomic(file, script.createCachedData())) keepNewest(dirname(file), keep);
  });
}

/** The entry's name: what V8 does not check itself (see the module note), hashed. */
function entryKey(bundle: string, build: string): string {
  let stamp = '';
  try {
    const st = statSync(bundle);
    stamp = `${st.size}\0${st.mtimeMs}`;
  } catch {
    // read a moment ago: the hash alone then
  }
  return `${build}-${process.version}-${process.arch}-${fnv1a(`${bundle}\0${stamp}\0${v8Options()}`)}`;
}
