/**
 * The Node side of the napi host: the platform (pool workers run napi/worker.js, unref'd: an
 * addon's threads never keep the process alive, as the generated loaders arrange), what a
 * loader's `wasi` option means, and which emnapi pair goes with a loader's context.
 *
 * Finding the pair: a generated loader creates its context with its own `@emnapi/runtime` (a
 * CommonJS facade, so it is in `require.cache`) and pins `@emnapi/core` of the same version. The
 * runtime copy whose `Context` made the context is looked up in `require.cache`; its core is the
 * same-version `@emnapi/core` beside it (npm's layout) or the one the requiring loader resolves.
 * Without a match, spindle's own pair.
 *
 * Pool workers import that pair by URL only when it is not of spindle's own version: a pair of the
 * same version is the same code, and a worker then runs the copy bundled into its own script
 * (dist/napi-worker.cjs) instead of requiring the loader's ES modules (the drop-in's pool workers:
 * 1,398 vs 1,495 ms of process CPU for load + 3 rolldown bundles on Node 26;
 * bench/results/napi-2026-11-27-node26/notes.md). Only the calling thread's values live in a
 * context, so a worker's emnapi needs no more than the same code. On the calling thread too, such a
 * pair runs on spindle's own core with the loader's runtime (the one that made the context): a core
 * takes its context as an object and imports no runtime.
 */
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, parse, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodePlatform, startSpareWorker, type SpareWorker } from '../platform/node/index.js';
import type { Platform } from '../platform/types.js';
import { cachedGuardThreads } from '../platform/node/guard-cache.js';
import { rememberDemandAtExit, rememberedDemand } from '../platform/node/pool-demand.js';
import { boundCompileCacheAtExit } from '../platform/node/worker-code.js';
import { ownEmnapi, type Emnapi, type EmnapiCore, type EmnapiRuntime } from './emnapi.js';
import type { NapiHostOptions, NapiPlatform, Spares } from './host.js';
import type { NapiEmbed } from './thread.js';
import { hostOptionsOfWasi, WASI } from './wasi.js';

const require = createRequire(import.meta.url);

/**
 * The pool worker script: the one-file CommonJS bundle of napi/node-worker.ts when the build made
 * it (scripts/bundle.mjs: a worker boots on ~45 ms less CPU than from ES modules), else the ES module.
 */
const NAPI_WORKER = [new URL('../napi-worker.cjs', import.meta.url), new URL('./node-worker.js', import.meta.url)].find((u) => existsSync(u))!;
const RUNTIME_DIR = new RegExp(`\\${sep}@emnapi\\${sep}runtime\\${sep}`);

interface CachedModule { filename: string; exports: unknown; children?: CachedModule[] }

const pairs = new Map<EmnapiRuntime, Emnapi>();

/** The emnapi pair whose runtime created `context`, else spindle's own. */
export function emnapiOfContext(context: unknown): Emnapi {
  if (context === undefined || context === null || context instanceof ownEmnapi.runtime.Context) return ownEmnapi;
  for (const [runtime, pair] of pairs) if (context instanceof runtime.Context) return pair;
  const modules = Object.values(require.cache) as CachedModule[];
  for (const m of modules) {
    if (!RUNTIME_DIR.test(m.filename)) continue;
    const runtime = m.exports as EmnapiRuntime;
    let made = false;
    try { made = typeof runtime?.Context === 'function' && context instanceof runtime.Context; } catch { /* an exotic module */ }
    if (!made) continue;
    const pair = pairOf(m, runtime, modules);
    if (pair) { pairs.set(runtime, pair); return pair; }
  }
  return ownEmnapi;
}

function pairOf(runtimeModule: CachedModule, runtime: EmnapiRuntime, modules: CachedModule[]): Emnapi | undefined {
  const runtimeDir = packageDir(runtimeModule.filename);
  if (!runtimeDir) return undefined;
  const version = versionOf(runtimeDir);
  // npm's nested layout: <binding>/node_modules/@emnapi/{core,runtime}.
  const anchors = [join(dirname(runtimeDir), 'core', 'package.json')];
  // Or wherever the module that required this runtime resolves @emnapi/core.
  for (const parent of modules) {
    if (parent.children?.some((c) => c.filename.startsWith(runtimeDir + sep)) && !parent.filename.startsWith(runtimeDir + sep)) anchors.push(parent.filename);
  }
  for (const anchor of anchors) {
    if (!existsSync(anchor)) continue;
    try {
      const r = createRequire(anchor);
      const coreFile = r.resolve('@emnapi/core');
      const coreDir = packageDir(coreFile);
      if (!coreDir || versionOf(coreDir) !== version) continue;
      // A core takes its context as an object and calls its methods (it imports no runtime), so
      // the loader's pair of spindle's own version runs on spindle's own core, the same code: no
      // second copy of @emnapi/core's ES modules to load (12-16 ms of CPU, Node 20 and 26).
      const ownVersion = version === ownEmnapi.runtime.version && version === ownEmnapi.core.version;
      if (ownVersion) return { core: ownEmnapi.core, runtime, plugins: ownEmnapi.plugins };
      const pluginsFile = r.resolve('@emnapi/core/plugins');
      const plugins = r(pluginsFile) as { asyncWork: Emnapi['plugins'][0]; tsfn: Emnapi['plugins'][0] };
      boundCompileCacheAtExit(); // the workers load this pair with Node's compile cache (napi/node-worker.ts)
      return {
        core: r(coreFile) as EmnapiCore,
        runtime,
        plugins: [plugins.asyncWork, plugins.tsfn],
        urls: { core: pathToFileURL(coreFile).href, runtime: pathToFileURL(runtimeModule.filename).href, plugins: pathToFileURL(pluginsFile).href },
      };
    } catch { /* not resolvable from there */ }
  }
  return undefined;
}

/** The directory of the package.json that names the package a file belongs to. */
function packageDir(file: string): string | undefined {
  for (let d = dirname(file); d !== dirname(d); d = dirname(d)) {
    const p = join(d, 'package.json');
    if (!existsSync(p)) continue;
    try {
      if (typeof JSON.parse(readFileSync(p, 'utf8')).name === 'string') return d;
    } catch { return undefined; }
  }
  return undefined;
}

function versionOf(dir: string): string | undefined {
  try { return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version; } catch { return undefined; }
}

/**
 * The owner's platform for one addon: each worker it starts posts emnapi's messages to it, its
 * parent (`NapiEmbed.toOwner`), and `receive` gets them from the Worker object (napi/thread.ts).
 * The first workers it starts are the `spares` (`warm`) while any is left.
 */
function ownerPlatform(receive: (message: unknown) => void, spares?: Spares): Platform {
  return {
    ...nodePlatform,
    startWorker(init, onFailure) {
      const own = { ...init, embed: { ...(init.embed as NapiEmbed), toOwner: true } };
      const worker = spares?.adopt?.(own, onFailure) ?? nodePlatform.startWorker(own, onFailure);
      worker.onMessage?.(receive);
      return worker;
    },
  };
}

/**
 * Pool workers started when the load begins, before the addon is rewritten and compiled: at most
 * SPARES of a pool of `count`, the rest start with the program as before. The first thread an
 * addon spawns often comes while it loads (rolldown's, which then runs its first bundle), and the
 * prewarmed workers, started after the compile, were often still booting then: rolldown's first
 * bundle started 0-30 ms late on a quiet machine and up to ~120 ms late on a loaded one
 * (bench/results/napi-2026-11-28-first). A spare has booted by then. One, not the pool: spares
 * boot beside the load's own work on 2 cores, so each more lengthens the load by about its boot.
 */
function warm(count: number): Spares {
  const started: SpareWorker[] = [];
  for (let i = 0; i < Math.min(count, SPARES); i++) started.push(startSpareWorker(NAPI_WORKER.href));
  return {
    adopt: (init, onFailure) => {
      for (let s = started.shift(); s; s = started.shift()) {
        const handle = s.adopt(init, onFailure);
        if (handle) return handle;
      }
      return undefined;
    },
    release: () => { for (const s of started.splice(0)) s.release(); },
  };
}

/** Pool workers started ahead of the compile (`warm`). */
const SPARES = 1;

/**
 * What a loader's `wasi` means: spindle's `WASI`, its options; another host's (every generated
 * Node loader passes a `node:wasi` preopening the root of the current directory, with
 * process.env): its settings cannot be read back, so that preopen and the environment.
 */
function hostOptionsFor(wasi: unknown): NapiHostOptions {
  if (wasi instanceof WASI) return hostOptionsOfWasi(wasi, true);
  if (isWasiInstance(wasi)) {
    const root = parse(process.cwd()).root;
    return { dirs: [{ host: root, guest: root }] };
  }
  return {};
}

/** Another host's WASI object (node:wasi's, not imported here: loading it prints an experimental warning). */
function isWasiInstance(wasi: unknown): boolean {
  return typeof wasi === 'object' && wasi !== null && typeof (wasi as { initialize?: unknown }).initialize === 'function';
}

export const nodeNapi: NapiPlatform = {
  platform: nodePlatform,
  workerScript: NAPI_WORKER.href,
  detached: true,
  emnapiFor: emnapiOfContext,
  hostOptionsFor,
  // A native addon that calls exit() or crashes ends the process; so does this one. The
  // message (a trap, naming the thread) is on stderr already.
  onExit: (code) => process.exit(code),
  defaults: { env: Object.entries(process.env).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`) },
  // An addon of 1 MiB or more (rolldown's is 12 MB) has its thread-guard rewrite kept across
  // runs, as the CLI's programs (README: SPINDLE_CACHE_DIR).
  guardRewrite: (bytes) => cachedGuardThreads(bytes),
  // Such an addon's next run prewarms as many pool workers as its runs had busy at once.
  poolDemand: { read: (key) => rememberedDemand(key), keepAtExit: rememberDemandAtExit },
  platformFor: ownerPlatform,
  warm,
  warmSync: true,
  // The workers that workers start post on BroadcastChannels. Node hands a channel's message to
  // every other instance of its name, also on a worker whose JavaScript never runs again (idle or
  // running a thread): there it queues, unread.
  ownChannels: true,
};
