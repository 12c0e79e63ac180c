/**
 * spindle: run wasm32-wasip1-threads (and plain wasm32-wasip1) programs in Node.js.
 *
 *   import { run } from 'spindle';
 *   const code = await run('prog.wasm', { args: ['x'], env: { K: 'v' } });
 *
 * `load` + `createProgram` are the lower-level handle for embedding (start, kill, options).
 */
import { loadProgram, type LoadedProgram, type ModuleSource } from './load.js';
import { Program, type RunOptions } from './program.js';
import { nodePlatform } from './platform/node/index.js';
import { isWasiImport } from './known-imports.js';

export { Program, SpindleError };
export type { RunOptions, ModuleSource, LoadedProgram };
export type { OutputOption } from './program.js';
export type { FsOptions, HostDirOption, PreloadOption, SaveOption } from './fs/program-fs.js';
export type { SpindleErrorCode } from './errors.js';
import { SpindleError } from './errors.js';

/** Compiles and checks a program (throws SpindleError with a one-line message on bad input). */
export async function load(source: ModuleSource, options: Pick<RunOptions, 'optimize' | 'memory'> = {}): Promise<LoadedProgram> {
  const optimize = options.optimize ?? true;
  // Threaded programs are the long-running, parallel ones: compile them eagerly too.
  return loadProgram(source, isWasiImport, nodePlatform.readFile, options.memory, (threaded) => {
    if (optimize) nodePlatform.preferOptimizingCompiler(threaded);
  });
}

/** A handle on one run of a loaded program: `start()` resolves with the exit code, `kill()` ends it. */
export function createProgram(program: LoadedProgram, options: RunOptions = {}): Program {
  return new Program(program, options, nodePlatform);
}

/** Runs a program to its end; resolves with its exit code. */
export async function run(source: ModuleSource, options: RunOptions = {}): Promise<number> {
  return createProgram(await load(source, options), options).start();
}
