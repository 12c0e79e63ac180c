/**
 * spindle/napi in Node: run napi-rs addons built for wasm32-wasip1-threads on spindle, with
 * emnapi providing Node-API (the one entry of the package that loads anything from outside it).
 *
 *   import { loadNapiSync } from 'spindle/napi';
 *   const oxc = loadNapiSync(readFileSync('parser.wasm32-wasi.wasm'), { dirs: ['.'] });
 *
 * and, as a drop-in for @napi-rs/wasm-runtime 1.x (require() works too: the generated *.wasi.cjs
 * loaders are CommonJS), every name its generated loaders import. See napi/api.ts.
 */
import { readFileSync } from 'node:fs';
import { napiApi, type NapiExports, type NapiOptions } from './api.js';
import { nodeNapi } from './node.js';
import type { WasmInput } from './host.js';
import { SpindleError } from '../errors.js';

export { WASI } from './wasi.js';
export {
  MessageHandler, createContext, createFsProxy, createOnMessage, disposeNapi, emnapiAsyncWorkPlugin, emnapiTSFNPlugin,
  getDefaultContext, napiPoolStats, registerNapiRs,
} from './api.js';
export type { NapiExports, NapiOptions } from './api.js';
export type { NapiHostOptions, NapiInstantiateOptions, NapiSource } from './host.js';
export { SpindleError };

const api = napiApi(nodeNapi, () => {
  const n = Number(process.env.NAPI_RS_ASYNC_WORK_POOL_SIZE ?? process.env.UV_THREADPOOL_SIZE);
  return n > 0 ? n : 4;
});

/** Loads an addon (a path, URL, bytes or compiled module); resolves with its exports. */
export function loadNapi(source: WasmInput | Promise<WasmInput>, options?: NapiOptions): Promise<NapiExports> {
  return api.loadNapi(source, options);
}

/** The same, synchronously (a path or bytes; compiled on this thread). */
export function loadNapiSync(source: string | URL | Uint8Array | ArrayBuffer | WebAssembly.Module, options?: NapiOptions): NapiExports {
  return api.loadNapiSync(typeof source === 'string' || source instanceof URL ? readModule(source) : source, options);
}

function readModule(path: string | URL): Uint8Array {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new SpindleError('ENOENT_MODULE', `cannot read ${String(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; give the path of the addon's .wasm file`);
  }
}

export const instantiateNapiModuleSync = api.instantiateNapiModuleSync;
export const instantiateNapiModule = api.instantiateNapiModule;
