/**
 * The two faces of spindle/napi, for one platform (napi/index.ts Node, napi/browser.ts):
 *
 * - the direct API: `loadNapi(source, options)` / `loadNapiSync` return the addon's exports, as
 *   its generated loader would (after calling the `__napi_register__*` exports napi-rs needs);
 * - the drop-in for @napi-rs/wasm-runtime 1.x, the names its generated loaders import, with the
 *   same signatures: `instantiateNapiModule(Sync)` (emnapi's, on spindle), `WASI`,
 *   `MessageHandler`, `createOnMessage`, `createFsProxy`, `getDefaultContext`, `createContext`,
 *   `emnapiAsyncWorkPlugin`, `emnapiTSFNPlugin`. Redirect the one specifier
 *   '@napi-rs/wasm-runtime' to this module and a generated loader runs on spindle unedited.
 *
 * Platform-free.
 */
import { SpindleError } from '../errors.js';
import { ownEmnapi, withOwnPlugins, emnapiAsyncWorkPlugin, emnapiTSFNPlugin } from './emnapi.js';
import { instantiate, instantiateSync, disposeNapi, napiPoolStats, type NapiHostOptions, type NapiInstantiateOptions, type NapiPlatform, type NapiSource, type WasmInput } from './host.js';
import { memoryFsOf } from './memory-fs.js';

/** The direct API's options: spindle's (files, environment, threads) and two of emnapi's. */
export interface NapiOptions extends Omit<NapiHostOptions, 'memoryMounts'> {
  /** A memory filesystem (`memfs().fs` of spindle/napi/fs), mounted at '/' for the addon. */
  memfs?: unknown;
  /** The emnapi context (default: @emnapi/runtime's default context). */
  context?: unknown;
  /** Threads of emnapi's async work pool (default: UV_THREADPOOL_SIZE, else 4, as the generated loaders). */
  asyncWorkPoolSize?: number;
}

export type NapiExports = Record<string, unknown>;

export interface NapiApi {
  loadNapi(source: WasmInput | Promise<WasmInput>, options?: NapiOptions): Promise<NapiExports>;
  loadNapiSync(source: Uint8Array | ArrayBuffer | WebAssembly.Module, options?: NapiOptions): NapiExports;
  instantiateNapiModuleSync(input: Uint8Array | ArrayBuffer | WebAssembly.Module, options: NapiInstantiateOptions): NapiSource;
  instantiateNapiModule(input: WasmInput | Promise<WasmInput>, options: NapiInstantiateOptions): Promise<NapiSource>;
}

export function napiApi(np: NapiPlatform, poolSizeDefault: () => number): NapiApi {
  const direct = (o: NapiOptions): NapiInstantiateOptions => ({
    context: o.context,
    asyncWorkPoolSize: o.asyncWorkPoolSize ?? poolSizeDefault(),
    beforeInit: registerNapiRs,
  });
  return {
    async loadNapi(source, options = {}) {
      return (await instantiate(np, source, direct(options), hostOptions(options))).napiModule.exports;
    },
    loadNapiSync(source, options = {}) {
      return instantiateSync(np, source, direct(options), hostOptions(options)).napiModule.exports;
    },
    instantiateNapiModuleSync(input, options) {
      if (options?.childThread) return childThread(np, input, options);
      return instantiateSync(np, input, options ?? {}, {});
    },
    instantiateNapiModule(input, options) {
      if (options?.childThread) return Promise.resolve(input).then((i) => childThread(np, i as Uint8Array, options));
      return instantiate(np, input, options ?? {}, {});
    },
  };
}

/** spindle's options from the direct API's: a `memfs` becomes the program's memory mounts. */
function hostOptions(o: NapiOptions): NapiHostOptions {
  const { memfs, context: _c, asyncWorkPoolSize: _a, ...rest } = o;
  if (memfs === undefined) return rest;
  const fs = memoryFsOf(memfs);
  if (!fs) throw new SpindleError('BAD_OPTION', 'the memfs option takes the fs (or vol) that memfs() of spindle/napi/fs returned');
  return { ...rest, memoryMounts: fs.mounts() };
}

/**
 * A thread of emnapi's own thread manager (a generated worker script, e.g. wasi-worker.mjs, that
 * something other than spindle started): emnapi as it is. spindle's own threads never come here.
 */
function childThread(np: NapiPlatform, input: Uint8Array | ArrayBuffer | WebAssembly.Module, options: NapiInstantiateOptions): NapiSource {
  const emnapi = np.emnapiFor(options.context);
  const o = { ...options, plugins: withOwnPlugins(options.plugins, emnapi) };
  return emnapi.core.instantiateNapiModuleSync(input as never, o as never) as unknown as NapiSource;
}

/** What napi-rs's generated loaders do before init: each `__napi_register__*` export registers a class or function. */
export function registerNapiRs({ instance }: { instance: WebAssembly.Instance }): void {
  for (const name of Object.keys(instance.exports)) {
    if (name.startsWith('__napi_register__')) (instance.exports[name] as () => void)();
  }
}

export { disposeNapi, emnapiAsyncWorkPlugin, emnapiTSFNPlugin, napiPoolStats };

/** emnapi's worker-side message handler (used by generated worker scripts; spindle's threads do not need it). */
export const MessageHandler = ownEmnapi.core.MessageHandler;
export const getDefaultContext = ownEmnapi.runtime.getDefaultContext;
export const createContext = ownEmnapi.runtime.createContext;

const NO_PROXY = 'spindle runs an addon\'s threads on its own pool, where every thread reaches the filesystem directly; '
  + '@napi-rs/wasm-runtime\'s filesystem proxy between a worker and the main thread is never used';

/**
 * @napi-rs/wasm-runtime's server side of its filesystem proxy (a generated loader installs it on
 * each worker it creates through emnapi). Under spindle no such worker exists; a request that
 * still arrives (a worker started some other way) is answered with an error, never left waiting.
 */
export function createOnMessage(_fs: unknown): (e: { data?: { __fs__?: { sab: Int32Array } } }) => void {
  return (e) => {
    const request = e?.data?.__fs__;
    if (!request) return;
    const text = new TextEncoder().encode(NO_PROXY);
    const payload = text.subarray(0, Math.min(text.length, request.sab.byteLength - 16));
    new Uint8Array(request.sab.buffer, request.sab.byteOffset + 16, payload.length).set(payload);
    Atomics.store(request.sab, 1, 4); // a string
    Atomics.store(request.sab, 2, payload.length);
    Atomics.store(request.sab, 0, 1); // an error
    Atomics.notify(request.sab, 0);
  };
}

/** @napi-rs/wasm-runtime's client side of that proxy (generated browser worker scripts). */
export function createFsProxy(_memfs: unknown): never {
  throw new SpindleError('BAD_OPTION', NO_PROXY);
}
