/**
 * How a napi-rs addon's instance gets its imports, on every thread: emnapi builds the Node-API
 * imports (`env`, `napi`, `emnapi`, bound to that thread's instance), spindle gives WASI preview1,
 * `wasi.thread-spawn` and the shared memory, and `mergeImports` puts them together the way the
 * generated loaders do (the Node-API functions are imported from `env` as well as from `napi` and
 * `emnapi`). Also what emnapi is given as its `wasi` option: spindle provides the imports itself,
 * so that object only runs `_initialize`.
 *
 * Platform-free: used by the calling thread (napi/host.ts) and by pool workers (napi/thread.ts).
 */
import { SpindleError } from '../errors.js';

/** The WASI object emnapi expects (`WASIInstance`): imports come from spindle, not from it. */
export interface ReactorWasi {
  getImportObject(): WebAssembly.Imports;
  initialize(instance: { exports: WebAssembly.Exports }): void;
  start(instance: unknown): number;
}

/**
 * emnapi's `wasi` option for a reactor. emnapi calls `initialize` once the instance exists: on the
 * calling thread that runs `_initialize` (the module's constructors); on a pool worker emnapi
 * passes an instance whose `_initialize` does nothing, since constructors run once per program.
 * `instantiated` runs first (the calling thread: napi/host.ts lets pool workers instantiate).
 */
export function reactorWasi(instantiated?: () => void): ReactorWasi {
  return {
    getImportObject: () => ({}),
    initialize(instance) {
      instantiated?.();
      const init = instance.exports._initialize;
      if (typeof init === 'function') (init as () => void)();
    },
    start() {
      throw new SpindleError('BAD_MODULE', 'a napi-rs addon is a library module (it has no _start); spindle calls _initialize instead');
    },
  };
}

/**
 * emnapi's import object `io` with spindle's (`spindle`: WASI preview1, `wasi.thread-spawn`, the
 * memory under its import name) and `env` extended by `napi` and `emnapi` (as every generated
 * loader's `overwriteImports` does). `envOverrides` replaces emnapi functions that need a worker
 * object of emnapi's own thread manager (napi/owner.ts).
 */
export function mergeImports(io: WebAssembly.Imports, spindle: WebAssembly.Imports, envOverrides: WebAssembly.ModuleImports = {}): WebAssembly.Imports {
  const out: WebAssembly.Imports = { ...io };
  for (const [module, fields] of Object.entries(spindle)) out[module] = { ...(out[module] ?? {}), ...fields };
  out.env = { ...io.env, ...io.napi, ...io.emnapi, ...envOverrides, ...(spindle.env ?? {}) };
  return out;
}

/** The shared memory among spindle's imports (a napi-rs addon imports `env.memory`). */
export function importedMemory(spindle: WebAssembly.Imports): WebAssembly.Memory | undefined {
  for (const fields of Object.values(spindle)) {
    for (const v of Object.values(fields)) if (v instanceof WebAssembly.Memory) return v;
  }
  return undefined;
}

/**
 * A pool thread's exports: `wasi_thread_start` ends normally when emnapi unwinds the thread
 * (`_emnapi_unwind` throws the string 'unwind', as Emscripten's pthread exit does).
 */
export function threadExports(exports: WebAssembly.Exports): WebAssembly.Exports {
  const start = exports.wasi_thread_start as ((tid: number, arg: number) => void) | undefined;
  if (typeof start !== 'function') return exports;
  const wrapped = (tid: number, arg: number): void => {
    try {
      start(tid, arg);
    } catch (e) {
      if (e !== 'unwind') throw e;
    }
  };
  return { ...exports, wasi_thread_start: wrapped };
}
