/**
 * spindle in browsers: run wasm32-wasip1-threads (and plain wasm32-wasip1) programs in a page.
 *
 *   import { run } from 'spindle';          // the "browser" export condition (bundlers)
 *   import { run } from '/spindle/browser.js'; // or as a plain ES module, no bundler
 *   const code = await run('/prog.wasm', { args: ['x'], stdout: (bytes) => ..., stderr: ... });
 *
 * Same API as the Node entry (index.ts), with a browser's rules:
 * - The page must be cross-origin isolated and able to share wasm memory (checked by creating a
 *   shared WebAssembly.Memory, not by looking for the global SharedArrayBuffer):
 *   `load` and `run` throw SpindleError NOT_ISOLATED otherwise, naming the two headers to send.
 * - `_start` always runs on a worker: the page's main thread may not block (Atomics.wait is
 *   forbidden there), so `runOnCallingThread` is refused.
 * - A string source is a URL, relative to the page.
 * - stdout/stderr default to the console (console.log / console.error, one call per line); pass
 *   callbacks to receive the bytes. stdin defaults to empty input.
 *
 * Nothing reachable from this module imports `node:*`.
 */
import { loadProgram, readModuleSource, type LoadedProgram, type ModuleSource } from './load.js';
import { Program, type OutputOption, type RunOptions } from './program.js';
import { browserPlatform } from './platform/browser/index.js';
import { isWasiImport } from './known-imports.js';
import { isOpfsImport } from './fs/opfs-imports.js';
import { SpindleError } from './errors.js';
import { sharedBufferConstructor, sharingProblem } from './shared-buffer.js';

export { Program, SpindleError };
export type { RunOptions, ModuleSource, LoadedProgram, OutputOption };
export type { SpindleErrorCode } from './errors.js';

/** Compiles and checks a program (throws SpindleError with a one-line message on bad input). */
export async function load(source: ModuleSource, options: Pick<RunOptions, 'memory'> = {}): Promise<LoadedProgram> {
  checkIsolated();
  const read = await readModuleSource(source, browserPlatform.readFile);
  return loadProgram(read, (m, n) => isWasiImport(m, n) || isOpfsImport(m, n), options.memory);
}

/** A handle on one run of a loaded program: `start()` resolves with the exit code, `kill()` ends it. */
export function createProgram(program: LoadedProgram, options: RunOptions = {}): Program {
  checkIsolated();
  if (options.runOnCallingThread) {
    throw new SpindleError('BAD_OPTION', 'runOnCallingThread is not available in browsers: the page\'s main thread may not block, '
      + 'so _start always runs on a worker; remove the option');
  }
  return new Program(program, {
    ...options,
    stdout: sink(options.stdout, (line) => console.log(line)),
    stderr: sink(options.stderr, (line) => console.error(line)),
    stdin: options.stdin === undefined || options.stdin === 'inherit' ? '' : options.stdin,
  }, browserPlatform);
}

/** Runs a program to its end; resolves with its exit code. */
export async function run(source: ModuleSource, options: RunOptions = {}): Promise<number> {
  return createProgram(await load(source, options), options).start();
}

/**
 * Throws NOT_ISOLATED when this page (or worker) cannot share memory between threads. Asks what
 * the engine can do (cross-origin isolation; a shared WebAssembly.Memory created and posted),
 * never whether the global `SharedArrayBuffer` is named (see shared-buffer.ts).
 */
function checkIsolated(): void {
  if (globalThis.crossOriginIsolated !== true) {
    throw new SpindleError('NOT_ISOLATED', 'this page is not cross-origin isolated, so it cannot share memory with workers '
      + '(no SharedArrayBuffer); serve it with the headers "Cross-Origin-Opener-Policy: same-origin" and '
      + '"Cross-Origin-Embedder-Policy: require-corp" (`spindle serve` does), over https or on localhost');
  }
  const problem = sharingProblem();
  if (problem === 'no shared memory' || sharedBufferConstructor() === null) {
    throw new SpindleError('NOT_ISOLATED', 'this page is cross-origin isolated, but this browser cannot create a shared '
      + 'WebAssembly.Memory, which threads need; use a browser with WebAssembly threads (Chromium, Firefox, Safari)');
  }
  if (problem === 'not transferable') {
    throw new SpindleError('NOT_ISOLATED', 'this page is cross-origin isolated, but this browser cannot pass shared memory to '
      + 'workers (postMessage of a shared WebAssembly.Memory throws DataCloneError), so threads cannot run: WebKitGTK and WPE '
      + 'do not enable SharedArrayBuffer (WebKit bug 317847) unless the browser runs with JSC_useSharedArrayBuffer=1 in its '
      + 'environment; Chromium, Firefox and Safari can');
  }
}

/** A callback as given; 'inherit' (or nothing) becomes line-buffered console output. */
function sink(option: OutputOption | undefined, log: (line: string) => void): OutputOption {
  if (typeof option === 'function') return option;
  return consoleLines(log);
}

/**
 * Decodes UTF-8 chunks and logs whole lines. A partial last line is logged on its own after a
 * short quiet time (a prompt without a newline, or the program's last bytes before its exit).
 */
function consoleLines(log: (line: string) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    timer = undefined;
    if (pending) log(pending);
    pending = '';
  };
  return (chunk) => {
    const lines = (pending + decoder.decode(chunk, { stream: true })).split('\n');
    pending = lines.pop()!;
    for (const line of lines) log(line);
    if (timer) clearTimeout(timer);
    if (pending) timer = setTimeout(flush, 50);
  };
}
