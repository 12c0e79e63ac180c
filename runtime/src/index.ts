/**
 * spindle: run wasm32-wasip1-threads (and plain wasm32-wasip1) programs in Node.js.
 *
 *   import { run } from 'spindle';
 *   const code = await run('prog.wasm', { args: ['x'], env: { K: 'v' } });
 *
 * `load` + `createProgram` are the lower-level handle for embedding (start, kill, options).
 */
import { loadProgram, readModuleSource, type LoadedProgram, type ModuleSource, type NamedBytes } from './load.js';
import { Program, type RunOptions } from './program.js';
import { nodePlatform } from './platform/node/index.js';
import { cachedGuardThreads } from './platform/node/guard-cache.js';
import { isWasiImport } from './known-imports.js';

export { Program, SpindleError };
export type { RunOptions, ModuleSource, LoadedProgram, NamedBytes };
export { nodeFlagsFor } from './compile-policy.js';
export type { OutputOption } from './program.js';
export type { FsOptions, HostDirOption, PreloadOption, SaveOption } from './fs/program-fs.js';
export type { SpindleErrorCode } from './errors.js';
export type { PoolStats } from './control.js';
import { SpindleError } from './errors.js';

/**
 * Compiles and checks a program (throws SpindleError with a one-line message on bad input).
 * V8's flags are left as the process was started: for a threaded program with long-running
 * threads, start Node with `nodeFlagsFor(program)` (`--no-liftoff` up to 2 MiB of code; README, "Compile policy").
 * A threaded module of 1 MiB or more has its thread-guard rewrite kept across runs
 * (platform/node/guard-cache.ts; SPINDLE_CACHE_DIR=none turns that off).
 */
export async function load(source: ModuleSource, options: Pick<RunOptions, 'memory'> = {}): Promise<LoadedProgram> {
  return loadProgram(await readModuleSource(source, nodePlatform.readFile), isWasiImport, options.memory, 'command', cachedGuardThreads);
}

/** A handle on one run of a loaded program: `start()` resolves with the exit code, `kill()` ends it. */
export function createProgram(program: LoadedProgram, options: RunOptions = {}): Program {
  return new Program(program, options, nodePlatform);
}

/** Runs a program to its end; resolves with its exit code. */
export async function run(source: ModuleSource, options: RunOptions = {}): Promise<number> {
  return createProgram(await load(source, options), options).start();
}
