/**
 * The compile policy: the V8 flags a program's Node process should start with, chosen from the
 * program's shape. Measured per Node line and module size (bench/hosts, README "Compile policy"):
 *
 *   shape                                  flags                  why
 *   threaded, code <= EAGER_CODE_BYTES     --no-liftoff           V8 has no on-stack replacement for
 *                                          --no-wasm-lazy-        wasm: a thread's long loop, entered
 *                                            compilation          once, would run baseline code for its
 *                                                                 whole life (math 2-2.5x slower on Node
 *                                                                 20-26); compiled before _start, on
 *                                                                 V8's background threads, none of it
 *                                                                 happens inside the program's time
 *   threaded, code <= LARGE_CODE_BYTES     --no-liftoff           the same tier, each function compiled
 *                                                                 when first called (compiling all of a
 *                                                                 larger module ahead would cost more
 *                                                                 than the functions a run calls)
 *   threaded, larger code                  none                   every function the program calls would
 *                                                                 first be compiled by the optimizing
 *                                                                 tier: large programs call thousands
 *                                                                 once (start several times slower);
 *                                                                 their hot code is called often and
 *                                                                 tiers up by itself
 *   single-threaded                        none                   V8's default tiering starts large
 *                                                                 modules fastest (lazy, baseline first),
 *                                                                 as node:wasi, and the CLI needs no
 *                                                                 second Node process
 *   --optimize (choice 'optimize')         --no-liftoff           the user's program has long loops
 *                                                                 entered once (any size, threads or not)
 *   --no-optimize (choice 'baseline')      none                   the user asked for V8's default tiering
 *
 * Flags are process-wide and V8 supports them only at process start: changing the wasm tiering
 * flags with `v8.setFlagsFromString` after start-up made Node 24 print nothing and exit 0, and
 * Node 26 abort. So the runtime never changes them. The CLI starts Node again with the flags a
 * program needs (relaunch.ts) when the process lacks them; an embedder of the library starts
 * `node` with them itself (`nodeFlagsFor` says which).
 * `--no-wasm-lazy-compilation` is asked for small modules only: eager compilation starts large
 * modules up to 5x slower. It is safe on Node 24+ only because the runtime keeps the event loop
 * alive while V8 compiles (`compileKeepingAlive` below; never-silent.test.mjs).
 */

import { startJspiFlag } from './jspi.js';
import { isWasm, readImports } from './wasm-imports.js';

/** What the policy looks at. */
export interface ProgramShape {
  /** The module imports wasi.thread-spawn. */
  usesThreads: boolean;
  /** Bytes of the module's code section (its function bodies); absent when unknown (a module
   * given already compiled): then the optimizing tier, compiled lazily. */
  codeBytes?: number;
}

/**
 * How the user wants the program compiled: 'auto' by its shape (the CLI's default), 'optimize'
 * the optimizing tier for every function called (`--optimize`), 'baseline' V8's default tiering
 * (`--no-optimize`). `true` and `false` mean 'auto' and 'baseline' (the former boolean option).
 */
export type TierChoice = 'auto' | 'optimize' | 'baseline' | boolean;

/**
 * Above this much code a threaded program keeps V8's default tiering. With --no-liftoff every
 * function a program calls is first compiled by the optimizing tier, on the calling thread: on
 * the generated 20,000-function module (bench/hosts/large-module.mjs, 5.4 MB of code, every
 * function called once) that cost ~1.0 s more CPU than default tiering (0.5 s vs 1.5 s, Node 20),
 * about 0.2 s per MB of code run. At 2 MiB the worst case (every function run) stays near 0.4 s;
 * small threaded programs (math, malloc_bench: 30-60 KB of code) keep their optimized loops.
 */
export const LARGE_CODE_BYTES = 2 * 1024 * 1024;

/**
 * Up to this much code a threaded program is compiled whole by the optimizing tier before it
 * starts (V8's background threads): the math program (31 KB of code) then spends the same time in
 * its threads as under the previous policy, for ~20-40 ms more CPU at start than compiling lazily.
 */
export const EAGER_CODE_BYTES = 256 * 1024;

/** The V8 flags (Node command-line options) a process running `shape` should start with. */
export function nodeFlagsFor(shape: ProgramShape, choice: TierChoice = 'auto'): readonly string[] {
  const c = choice === true ? 'auto' : choice === false ? 'baseline' : choice;
  if (c === 'baseline') return [];
  if (c === 'optimize') return ['--no-liftoff'];
  if (!shape.usesThreads) return [];
  const code = shape.codeBytes;
  if (code === undefined) return ['--no-liftoff'];
  if (code <= EAGER_CODE_BYTES) return ['--no-liftoff', '--no-wasm-lazy-compilation'];
  return code <= LARGE_CODE_BYTES ? ['--no-liftoff'] : [];
}

/** The flags of `wanted` that this process was not started with (`execArgv`: process.execArgv). */
export function missingFlags(wanted: readonly string[], execArgv: readonly string[]): string[] {
  return wanted.filter((f) => !execArgv.includes(f));
}

/**
 * The flags the CLI restarts Node with for `shape` (none: no restart): the compile policy's
 * missing flags and, only when that restart happens anyway for a threaded program that may host
 * threads (`hostThreads` not false), the flag that gives this engine's workers JSPI at start
 * (jspi.ts startJspiFlag: Node 20). Never a restart for that flag alone: it would cost every
 * threaded run a Node start-up for threads beyond the pool that most programs never have.
 */
export function relaunchFlags(shape: ProgramShape, choice: TierChoice, execArgv: readonly string[],
  hostThreads: boolean | undefined): string[] {
  const missing = missingFlags(nodeFlagsFor(shape, choice), execArgv);
  const jspi = startJspiFlag();
  if (missing.length && shape.usesThreads && hostThreads !== false && jspi && !execArgv.includes(jspi)) missing.push(jspi);
  return missing;
}

/** The shape of a module's bytes; bytes that are not a readable module count as single-threaded
 * (loading them then fails with the reason). */
export function shapeOf(bytes: Uint8Array): ProgramShape {
  try {
    if (!isWasm(bytes)) return { usesThreads: false };
    const summary = readImports(bytes);
    return { usesThreads: summary.all.some((i) => i.module === 'wasi' && i.name === 'thread-spawn'), codeBytes: summary.codeBytes };
  } catch {
    return { usesThreads: false };
  }
}

/**
 * `WebAssembly.compile` that keeps the event loop alive until it settles. V8 compiles on
 * background threads and settles the promise from a task; a pending compile alone does not keep
 * Node's event loop alive, so with nothing else pending (the CLI) Node 24 and 26 exited with
 * status 0 before an eager compile finished. (Harmless in browsers.)
 */
export async function compileKeepingAlive(bytes: Uint8Array): Promise<WebAssembly.Module> {
  const keepAlive = setInterval(() => {}, 1 << 30);
  try {
    return await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
  } finally {
    clearInterval(keepAlive);
  }
}
