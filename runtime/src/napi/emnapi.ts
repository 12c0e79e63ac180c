/**
 * The emnapi copy a napi host runs with: @emnapi/core (Node-API in JavaScript: the `env`, `napi`
 * and `emnapi` imports, the instantiation, the thread-side message handler) and the
 * @emnapi/runtime whose `Context` holds the JavaScript values. A copy is a pair of one version:
 * a core must run with a context of its own runtime, and the 2.0.0 prereleases are not
 * compatible with each other. spindle's own pair is its dependency (used by the direct API and
 * by bundlers); in Node, a generated loader that created its context from its own
 * @emnapi/runtime gets the core of that pair (napi/node.ts finds it), and the pool workers import
 * the same pair through `urls` when its version is not spindle's own.
 *
 * Only napi/ imports packages from outside spindle (scripts/check-layers.mjs checks it).
 */
import * as ownCore from '@emnapi/core';
import * as ownRuntime from '@emnapi/runtime';
import { asyncWork, tsfn } from '@emnapi/core/plugins';

export type EmnapiCore = typeof ownCore;
export type EmnapiRuntime = typeof ownRuntime;
export type EmnapiContext = ReturnType<EmnapiRuntime['createContext']>;
/** An emnapi plugin factory (called with the core's plugin context). */
export type PluginFactory = import('@emnapi/core').PluginFactory;

/** Where a pool worker imports a pair from (file: URLs, Node). */
export interface EmnapiUrls {
  readonly core: string;
  readonly runtime: string;
  readonly plugins: string;
}

export interface Emnapi {
  readonly core: EmnapiCore;
  readonly runtime: EmnapiRuntime;
  /** The core's JavaScript async-work and threadsafe-function plugins (@emnapi/core/plugins). */
  readonly plugins: readonly PluginFactory[];
  /**
   * A pair of another version than spindle's own: where pool workers import it from (absent:
   * they run spindle's own copy; napi/node.ts).
   */
  readonly urls?: EmnapiUrls;
}

export const ownEmnapi: Emnapi = { core: ownCore, runtime: ownRuntime, plugins: [asyncWork, tsfn] };

/** Imports a pair in a pool worker (Node: the loader's pair, by URL; else spindle's own). */
export async function importEmnapi(urls: EmnapiUrls | undefined): Promise<Emnapi> {
  if (!urls) return ownEmnapi;
  const [core, runtime, plugins] = await Promise.all([import(urls.core), import(urls.runtime), import(urls.plugins)]);
  return { core, runtime, plugins: [plugins.asyncWork, plugins.tsfn], urls };
}

/**
 * A pair in a pool worker from `load` (Node: `require` of the files behind `urls`, which the main
 * thread required: CommonJS, or ES modules through require(esm); napi/node-worker.ts); spindle's
 * own without `urls`.
 */
export function loadEmnapi(urls: EmnapiUrls | undefined, load: (url: string) => unknown): Emnapi {
  if (!urls) return ownEmnapi;
  const plugins = load(urls.plugins) as { asyncWork: PluginFactory; tsfn: PluginFactory };
  return { core: load(urls.core) as EmnapiCore, runtime: load(urls.runtime) as EmnapiRuntime, plugins: [plugins.asyncWork, plugins.tsfn], urls };
}

const MARK = Symbol('spindle.napi.plugin');

/**
 * The plugins @napi-rs/wasm-runtime exports for the generated loaders to pass in `plugins`. They
 * are markers: a napi host replaces them with the plugins of the core it runs (`withOwnPlugins`);
 * called by some other emnapi core directly, they are spindle's own pair's plugins.
 */
export const emnapiAsyncWorkPlugin = markPlugin(asyncWork, 0);
export const emnapiTSFNPlugin = markPlugin(tsfn, 1);

function markPlugin(own: unknown, index: number): PluginFactory {
  const f: PluginFactory = (ctx) => (own as PluginFactory)(ctx);
  Object.defineProperty(f, MARK, { value: index });
  return f;
}

/** `plugins` with the markers replaced by `emnapi`'s own plugins; other plugins kept as given. */
export function withOwnPlugins(plugins: readonly unknown[] | undefined, emnapi: Emnapi): unknown[] {
  return (plugins ?? []).map((p) => {
    const index = typeof p === 'function' ? (p as unknown as Record<symbol, unknown>)[MARK] : undefined;
    return typeof index === 'number' ? emnapi.plugins[index] : p;
  });
}
