/**
 * spindle/napi in browsers (the "browser" export condition): run napi-rs addons built for
 * wasm32-wasip1-threads in a cross-origin isolated page, emnapi providing Node-API. The page's
 * thread runs the addon's instance (every call from JS); the threads it spawns run on spindle's
 * pool workers (napi/worker.ts), which this entry creates, so bundlers see the worker script.
 *
 *   import { loadNapi } from 'spindle/napi';
 *   import { memfs } from 'spindle/napi/fs';
 *   const { fs } = memfs({ '/src/main.js': '...' });
 *   const rolldown = await loadNapi(wasmUrl, { memoryMounts: fs.mounts() });
 *
 * Also the drop-in for @napi-rs/wasm-runtime (napi/api.ts). Files: memory mounts only (memfs()).
 */
import { browserPlatformWith, type NewWorker } from '../platform/browser/index.js';
import { SpindleError } from '../errors.js';
import { napiApi, type NapiExports, type NapiOptions } from './api.js';
import { ownEmnapi } from './emnapi.js';
import type { NapiPlatform, WasmInput } from './host.js';
import { hostOptionsOfWasi, WASI } from './wasi.js';

export { WASI };
export {
  MessageHandler, createContext, createFsProxy, createOnMessage, disposeNapi, emnapiAsyncWorkPlugin, emnapiTSFNPlugin,
  getDefaultContext, napiPoolStats, registerNapiRs,
} from './api.js';
export type { NapiExports, NapiOptions } from './api.js';
export type { NapiHostOptions, NapiInstantiateOptions, NapiSource } from './host.js';
export { SpindleError };

const newWorker: NewWorker = (name) => new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name });

/**
 * Pool workers started once the addon is read, before it is rewritten and compiled (host.ts
 * `warm`): a pool worker's script loads and evaluates meanwhile, then waits for its WorkerInit
 * (pool-worker.ts), which the pool posts when it takes the worker instead of creating one. Rolldown in Chromium:
 * the four prewarmed workers booted after the compile, ~110-170 ms of the load
 * (bench/results/napi-2026-11-27-load). A spare whose script failed to load is replaced by a new
 * worker, whose own error event then reports it; spares not taken are terminated.
 */
function warm(count: number): { newWorker: NewWorker; release(): void } {
  const spares: { worker: Worker; failed: boolean }[] = [];
  for (let i = 0; i < count; i++) {
    let worker: Worker;
    try { worker = newWorker('spindle napi pool'); } catch { break; } // the pool reports it when it creates one
    const spare = { worker, failed: false };
    worker.onerror = (e) => { e.preventDefault(); spare.failed = true; };
    spares.push(spare);
  }
  return {
    newWorker: (name) => {
      for (let s = spares.shift(); s; s = spares.shift()) {
        if (!s.failed) { s.worker.onerror = null; return s.worker; }
        s.worker.terminate();
      }
      return newWorker(name);
    },
    release: () => { for (const s of spares.splice(0)) s.worker.terminate(); },
  };
}

const browserNapi: NapiPlatform = {
  platform: browserPlatformWith(newWorker),
  // Each pool worker posts emnapi's messages to its parent, the page (napi/thread.ts): a worker's
  // instance of a shared BroadcastChannel would queue every other thread's, unread, for good.
  platformFor: (receive, spares) => browserPlatformWith(spares?.newWorker ?? newWorker, receive),
  warm,
  // A page's thread may not wait, so its instance must come first; a worker of the page's may.
  ownerInstanceFirst: !isWorkerScope(),
  detached: false,
  emnapiFor: () => ownEmnapi,
  hostOptionsFor: (wasi) => (wasi instanceof WASI ? hostOptionsOfWasi(wasi, false) : {}),
  // A page cannot exit: the trap or exit is on the console; the addon can no longer be used.
  onExit: (code) => console.error(`spindle: the napi addon's program ended with status ${code}; reload the page to use it again`),
  defaults: {},
};

const api = napiApi(browserNapi, () => 4);

/** True on a worker's thread (a dedicated worker of the page's, say), false on the page's. */
function isWorkerScope(): boolean {
  const scope = (globalThis as { WorkerGlobalScope?: abstract new () => unknown }).WorkerGlobalScope;
  return scope !== undefined && globalThis instanceof scope;
}

function checkIsolated(): void {
  if (globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function') return;
  throw new SpindleError('NOT_ISOLATED', 'this page is not cross-origin isolated, so it cannot share memory with workers '
    + '(no SharedArrayBuffer); serve it with the headers "Cross-Origin-Opener-Policy: same-origin" and '
    + '"Cross-Origin-Embedder-Policy: require-corp", over https or on localhost');
}

/** Loads an addon (a URL, bytes, a Response or a compiled module); resolves with its exports. */
export function loadNapi(source: WasmInput | Promise<WasmInput>, options?: NapiOptions): Promise<NapiExports> {
  checkIsolated();
  return api.loadNapi(source, options);
}

/** Synchronously, from bytes or a compiled module (browsers refuse to compile a large module synchronously on the page's thread). */
export function loadNapiSync(source: Uint8Array | ArrayBuffer | WebAssembly.Module, options?: NapiOptions): NapiExports {
  checkIsolated();
  return api.loadNapiSync(source, options);
}

export const instantiateNapiModuleSync: typeof api.instantiateNapiModuleSync = (input, options) => { checkIsolated(); return api.instantiateNapiModuleSync(input, options); };
export const instantiateNapiModule: typeof api.instantiateNapiModule = (input, options) => { checkIsolated(); return api.instantiateNapiModule(input, options); };
