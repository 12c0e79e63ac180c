/**
 * The napi host: runs a napi-rs addon built for wasm32-wasip1-threads (a reactor: `_initialize`,
 * `napi_register_wasm_v1`, no `_start`) with emnapi providing Node-API and spindle everything
 * else: WASI preview1 over one fd table and one filesystem for all threads, `thread-spawn` from
 * spindle's pool (synchronous, from any thread, no round trip through the main thread), the
 * output, the exit.
 *
 *   calling thread (the JS main thread)          pool workers (napi/worker.ts)
 *     the addon's instance, created by emnapi      one instance per thread, created by emnapi
 *     (main thread: registers the addon, runs      as a child thread (napi/thread.ts), runs
 *     every call from JS synchronously)            wasi_thread_start(tid, arg)
 *     ThreadMessages: emnapi's messages  <------   each worker's port to the owner (browsers;
 *                                                  Node: the workers the owner started), else
 *                                                  BroadcastChannels (Node): 'async-send', ...
 *
 * `NapiSession` wraps emnapi's `instantiateNapiModule(Sync)`: the caller's options go to emnapi
 * unchanged, except that spindle answers `wasi` (its own imports), the thread manager's options
 * (`onCreateWorker`, `reuseWorker`: emnapi never creates a worker) and `plugins` (emnapi's own
 * plugins for the markers @napi-rs/wasm-runtime exports). Inside emnapi's `overwriteImports`, once
 * the caller's own has chosen the shared memory, the program starts (`Program.startReactorSync`)
 * and its imports are merged in.
 *
 * Platform-free: the Node and browser entries (napi/index.ts, napi/browser.ts) give the platform,
 * the worker script and the emnapi pair.
 */
import { SpindleError } from '../errors.js';
import { isWasiImport } from '../known-imports.js';
import { loadProgram, loadProgramSync, readModuleSource, type GuardRewrite, type LoadedProgram } from '../load.js';
import type { PoolStats } from '../control.js';
import { defaultThreads, Program, type OutputOption } from '../program.js';
import type { FsOptions } from '../fs/program-fs.js';
import { memoryMountsOf, type MemoryMounts } from '../fs/memory-mounts.js';
import { MemFs } from '../fs/memfs.js';
import type { Platform, WorkerHandle } from '../platform/types.js';
import type { WorkerInit } from '../protocol.js';
import { newSharedBuffer } from '../shared-buffer.js';
import { withOwnPlugins, type Emnapi } from './emnapi.js';
import { importedMemory, mergeImports, reactorWasi } from './imports.js';
import { ThreadMessages } from './owner.js';
import type { NapiEmbed } from './thread.js';

/** What spindle itself takes: the program's files, environment, output and threads. */
export interface NapiHostOptions extends FsOptions {
  /** argv[1..] (argv[0] is the file name). */
  args?: readonly string[];
  env?: Readonly<Record<string, string>> | readonly string[];
  /** Default: the host's fd in Node ('inherit'), the console in browsers. */
  stdout?: OutputOption;
  stderr?: OutputOption;
  /** Pool workers started ahead of the first spawn (default: 2 x cores, as Program). */
  threads?: number;
  /** Most threads alive at once; past it thread-spawn fails with EAGAIN (default 512). */
  maxThreads?: number;
  /** The shared memory (default: the one the loader's overwriteImports gives, else a new one). */
  memory?: WebAssembly.Memory;
  /** Memory mounts made before the addon (a `memfs()` volume): these are the program's. */
  memoryMounts?: MemoryMounts;
  /** Called when any thread calls proc_exit or traps (default: the entry's, napi/index.ts). */
  onExit?: (code: number) => void;
}

/** The part of emnapi's (and @napi-rs/wasm-runtime's) instantiate options that spindle reads. */
export interface NapiInstantiateOptions {
  context?: unknown;
  filename?: string;
  plugins?: readonly unknown[];
  wasi?: unknown;
  childThread?: boolean;
  overwriteImports?: (importObject: WebAssembly.Imports) => WebAssembly.Imports | void;
  beforeInit?: (source: { instance: WebAssembly.Instance; module: WebAssembly.Module }) => void;
  [option: string]: unknown;
}

/** What emnapi's instantiate returns (`napiModule` is emnapi's addon module: `.exports`). */
export interface NapiSource {
  instance: WebAssembly.Instance;
  module: WebAssembly.Module;
  napiModule: { exports: Record<string, unknown>; emnapi: { addSendListener(worker: unknown): boolean } };
  [key: string]: unknown;
}

/** What a platform entry gives the host. */
export interface NapiPlatform {
  /** The owner's platform (browsers: one whose workers run napi/worker.ts). */
  readonly platform: Platform;
  /** Node: the file: URL of napi/worker.js. */
  readonly workerScript?: string;
  /** Node: pool workers do not keep the process alive (a library's threads). */
  readonly detached: boolean;
  /** The emnapi pair that goes with a loader's context (default: spindle's own). */
  emnapiFor(context: unknown): Emnapi;
  /** Spindle's options for a loader's `wasi` option (its preopens, env, output). */
  hostOptionsFor(wasi: unknown): NapiHostOptions;
  /** What happens when the program ends while the addon is in use (Node: the process exits). */
  onExit(code: number): void;
  /** Defaults for options not given (Node: the process's environment). */
  readonly defaults: NapiHostOptions;
  /** The thread guards' rewrite (Node: kept across runs, platform/node/guard-cache.ts). */
  readonly guardRewrite?: GuardRewrite;
  /**
   * Node: each pool worker that `platformFor`'s workers do not cover (those started by workers)
   * posts emnapi's messages on a channel of its own (napi/owner.ts).
   */
  readonly ownChannels?: boolean;
  /**
   * The owner's platform for one addon, whose pool workers post emnapi's messages to their
   * parent, the owner, which hands them to `receive` (no BroadcastChannel). Browsers: every pool
   * worker (the owner creates them all); its pool takes the `spares` started by `warm` first.
   * Node: the workers the owner starts.
   */
  platformFor?(receive: (message: unknown) => void, spares?: Spares): Platform;
  /**
   * Starts pool workers for a pool of `count` before the addon is compiled, so that they boot
   * meanwhile; `release` ends those the pool did not take. Browsers: all `count`, once the addon
   * is read (napi/browser.ts); Node: the first one, when the load begins, also for the
   * synchronous instantiate (`warmSync`; napi/node.ts).
   */
  warm?(count: number): Spares;
  /** Node: `warm` serves the synchronous instantiate too (its workers boot on their own threads). */
  readonly warmSync?: boolean;
  /**
   * The owner's thread may not wait (a page's): its instance must be the program's first, so pool
   * workers instantiate only once it exists (`NapiEmbed.ownerInstance`, napi/thread.ts says why).
   */
  readonly ownerInstanceFirst?: boolean;
  /**
   * Node: the most pool workers earlier runs of an addon had busy at once, by its cache key
   * (`LoadedProgram.cacheKey`), and recording this run's (platform/node/pool-demand.ts).
   */
  readonly poolDemand?: {
    read(key: string): number | undefined;
    /** Records `peak()` at exit; the returned function takes it at once (the program ended). */
    keepAtExit(key: string, peak: () => number): () => void;
  };
}

/** Pool workers started ahead of their program (`NapiPlatform.warm`), taken by `platformFor`'s pool. */
export interface Spares {
  /** Browsers: a started worker if one is left, else a new one. */
  newWorker?(name: string): Worker;
  /** Node: a started worker made the worker of `init`, or undefined when none is left. */
  adopt?(init: WorkerInit, onFailure: (message: string) => void): WorkerHandle | undefined;
  /** Ends the spares no pool took. */
  release(): void;
}

const NAPI_MODULES = new Set(['env', 'napi', 'emnapi']);

/** Imports a napi-rs addon may have: WASI, thread-spawn, and Node-API from env/napi/emnapi. */
function isNapiImport(module: string, name: string): boolean {
  return isWasiImport(module, name) || NAPI_MODULES.has(module);
}

export type WasmInput = Uint8Array | ArrayBuffer | WebAssembly.Module | string | URL | Response;

/** emnapi's instantiateNapiModuleSync on spindle. */
export function instantiateSync(np: NapiPlatform, input: Uint8Array | ArrayBuffer | WebAssembly.Module, options: NapiInstantiateOptions, host: NapiHostOptions): NapiSource {
  // Node: the pool's first worker boots while the addon is rewritten and compiled (np.warm).
  const spares = np.warmSync ? np.warm?.(poolSize(np, options, host)) : undefined;
  try {
    const loaded = loadProgramSync(input instanceof WebAssembly.Module || input instanceof Uint8Array ? input : new Uint8Array(input),
      isNapiImport, undefined, 'reactor', fileName(options), np.guardRewrite);
    const session = new NapiSession(np, loaded, options, host, spares);
    return session.finish(() => session.emnapi.core.instantiateNapiModuleSync(loaded.module, session.emnapiOptions() as never) as unknown as NapiSource);
  } finally {
    spares?.release();
  }
}

/** emnapi's instantiateNapiModule on spindle (compiles asynchronously: browsers need that). */
export async function instantiate(np: NapiPlatform, input: WasmInput | Promise<WasmInput>, options: NapiInstantiateOptions, host: NapiHostOptions): Promise<NapiSource> {
  let source = await input;
  if (typeof Response !== 'undefined' && source instanceof Response) {
    if (!source.ok) throw new SpindleError('ENOENT_MODULE', `cannot fetch ${source.url}: HTTP ${source.status}; check the URL`);
    source = new Uint8Array(await source.arrayBuffer());
  }
  const read = await readModuleSource(source as Exclude<WasmInput, Response>, np.platform.readFile);
  // The pool's first workers start now, once the addon is read (their scripts would compete with
  // the download), so that they boot while it is rewritten and compiled.
  const spares = np.warm?.(poolSize(np, options, host));
  try {
    const loaded = await loadProgram(read, isNapiImport, undefined, 'reactor', np.guardRewrite);
    // Memory mounts asked for by path: made now (the memory-FS module compiles asynchronously).
    const mounts = host.memoryMounts ? undefined : (host.mounts ?? np.hostOptionsFor(options.wasi).mounts);
    if (mounts?.length) host = { ...host, memoryMounts: memoryMountsOf(await MemFs.create({ mounts, readFile: np.platform.readFile })) };
    const session = new NapiSession(np, loaded, options, host, spares);
    return await session.finishAsync(async () => await session.emnapi.core.instantiateNapiModule(loaded.module, session.emnapiOptions() as never) as unknown as NapiSource);
  } finally {
    spares?.release();
  }
}

function fileName(options: NapiInstantiateOptions): string {
  return typeof options.filename === 'string' && options.filename ? options.filename.split(/[\\/]/).pop()! : 'addon.wasm';
}

/**
 * Spindle's addon programs by their exports object (`disposeNapi`). One map per JavaScript realm,
 * not per copy of this module (in Node, spindle/napi's CommonJS file and the ES modules a program
 * may also import: memory-fs.ts says why there are two).
 */
const sessions: WeakMap<object, SessionHandle> = ((globalThis as Record<symbol, unknown>)[Symbol.for('spindle.napi.sessions')] ??= new WeakMap()) as WeakMap<object, SessionHandle>;

interface SessionHandle { dispose(): Promise<void>; poolStats(): PoolStats }

function sessionOf(exports: object): SessionHandle {
  const s = sessions.get(exports);
  if (!s) throw new SpindleError('BAD_OPTION', 'not the exports of an addon loaded by spindle/napi');
  return s;
}

/** Ends the program behind an addon's exports: its pool workers stop; the addon can no longer be used. */
export function disposeNapi(exports: object): Promise<void> {
  return sessionOf(exports).dispose();
}

/**
 * The pool counters of the program behind an addon's exports (Program.poolStats): workers
 * started, spawns that grew the pool, the most workers busy at once so far, ...
 */
export function napiPoolStats(exports: object): PoolStats {
  return sessionOf(exports).poolStats();
}

/** One addon on spindle: its emnapi pair, its program, the channel from its threads. */
class NapiSession {
  readonly emnapi: Emnapi;
  private readonly messages: ThreadMessages;
  private readonly platform: Platform;
  private readonly host: NapiHostOptions;
  private program: Program | undefined;
  private instance: WebAssembly.Instance | undefined;
  private disposed = false;
  /** Takes this program's peak for the pool-demand record now (NapiPlatform.poolDemand). */
  private settleDemand: (() => void) | undefined;
  /** NapiEmbed.ownerInstance: set to 1 once the owner's instance exists (NapiPlatform.ownerInstanceFirst). */
  private readonly ownerInstance: Int32Array | undefined;

  constructor(private readonly np: NapiPlatform, private readonly loaded: LoadedProgram, private readonly options: NapiInstantiateOptions, host: NapiHostOptions,
    spares?: Spares) {
    this.emnapi = np.emnapiFor(options.context);
    this.messages = new ThreadMessages(np.ownChannels ? np.platform.cpuCount() : np.platformFor ? 'ports' : 0);
    this.platform = np.platformFor?.((message) => this.messages.receive(message), spares) ?? np.platform;
    this.host = hostOptionsOf(np, options, host);
    this.ownerInstance = np.ownerInstanceFirst ? new Int32Array(newSharedBuffer(4)) : undefined;
  }

  /** The options given to emnapi (see the module note). */
  emnapiOptions(): Record<string, unknown> {
    const o = this.options;
    return {
      ...o,
      context: this.context(),
      filename: o.filename ?? this.loaded.name,
      plugins: withOwnPlugins(o.plugins ?? this.emnapi.plugins, this.emnapi),
      wasi: reactorWasi(() => this.ownerInstantiated()),
      reuseWorker: false,
      onCreateWorker: ({ type }: { type: string }) => {
        throw new SpindleError('BAD_MODULE', `emnapi asked for a worker of its own (${type}): spindle runs an addon's threads on its pool, `
          + 'and emnapi\'s JavaScript multi-thread async work is not supported; build the addon with emnapi\'s C async work (napi-rs does by default)');
      },
      overwriteImports: (io: WebAssembly.Imports) => this.imports(io),
      beforeInit: (source: { instance: WebAssembly.Instance; module: WebAssembly.Module }) => {
        this.instance = source.instance;
        // The addon's calls run on this thread: on a page's, its waits must spin (wait-hook.ts).
        this.program!.callerInstance(source.instance.exports);
        o.beforeInit?.(source);
      },
    };
  }

  /**
   * The caller's context if it belongs to the emnapi copy that runs the addon (a core must run
   * with a context of its own runtime), else that copy's default context.
   */
  private context(): unknown {
    const given = this.options.context;
    return given instanceof this.emnapi.runtime.Context ? given : this.emnapi.runtime.getDefaultContext();
  }

  /** The caller's overwriteImports first (it may choose the memory), then the program starts. */
  private imports(io: WebAssembly.Imports): WebAssembly.Imports {
    const given = this.options.overwriteImports?.(io);
    const theirs = given && typeof given === 'object' ? given : io;
    const memory = importedMemory(theirs) ?? this.host.memory ?? newMemory(this.loaded);
    const h = this.host;
    this.program = new Program(this.loaded, {
      args: h.args, argv0: this.loaded.name, env: h.env, stdout: h.stdout, stderr: h.stderr, stdin: '',
      threads: h.threads ?? this.rememberedThreads(), maxThreads: h.maxThreads, memory,
      dirs: h.dirs, mounts: h.memoryMounts ? h.memoryMounts.guests : h.mounts, preload: h.preload, save: h.save,
    }, this.platform);
    // The pool's first workers (Program's default: 2 x cores) find their channels open, unless
    // they post to the owner (platformFor): then only the spares for workers that workers start.
    this.messages.openAhead(this.np.platformFor ? 0 : h.threads ?? defaultThreads(this.platform));
    const embed: NapiEmbed = {
      urls: this.emnapi.urls, channel: this.messages.name, own: this.messages.own, filename: this.loaded.name, ownerInstance: this.ownerInstance?.buffer as SharedArrayBuffer | undefined,
    };
    const spindle = this.program.startReactorSync({ workerScript: this.np.workerScript, detached: this.np.detached, embed, memory: h.memoryMounts });
    return mergeImports(theirs, spindle, this.messages.envOverrides(() => this.table()));
  }

  /**
   * The pool to prewarm when the caller chose none: as many workers as earlier runs of this addon
   * had busy at once (NapiPlatform.poolDemand), at most the default; undefined (the default,
   * 2 x cores) without a record.
   */
  private rememberedThreads(): number | undefined {
    const key = this.loaded.cacheKey;
    const demand = key === undefined ? undefined : this.np.poolDemand?.read(key);
    return demand === undefined ? undefined : Math.min(demand, defaultThreads(this.platform));
  }

  /** The owner's instance exists (or never will: `abandon`): pool workers may instantiate. */
  private ownerInstantiated(): void {
    const word = this.ownerInstance;
    if (!word || Atomics.load(word, 0) === 1) return;
    Atomics.store(word, 0, 1);
    Atomics.notify(word, 0);
  }

  private table(): WebAssembly.Table {
    return this.instance!.exports.__indirect_function_table as WebAssembly.Table;
  }

  finish(instantiate: () => NapiSource): NapiSource {
    let source;
    try {
      source = instantiate();
    } catch (e) {
      this.abandon();
      throw e;
    }
    return this.started(source);
  }

  /**
   * As emnapi's asynchronous instantiate, which resolves once its worker pool has loaded the
   * module: resolves once spindle's prewarmed pool workers have booted, so that booting them does
   * not take CPU time from the addon's first calls (rolldown's first bundle on 2 cores).
   */
  async finishAsync(instantiate: () => Promise<NapiSource>): Promise<NapiSource> {
    let source;
    try {
      source = await instantiate();
    } catch (e) {
      this.abandon();
      throw e;
    }
    this.started(source);
    await this.program!.poolBooted();
    return source;
  }

  private started(source: NapiSource): NapiSource {
    const key = this.loaded.cacheKey;
    if (key !== undefined) this.settleDemand = this.np.poolDemand?.keepAtExit(key, () => this.program!.poolStats().peakBusy);
    source.napiModule.emnapi.addSendListener(this.messages.port);
    sessions.set(source.napiModule.exports, this);
    void this.program!.ended().then((code) => {
      this.messages.close();
      if (!this.disposed) (this.host.onExit ?? ((c: number) => this.np.onExit(c)))(code);
    });
    return source;
  }

  /** Instantiation failed: nothing may stay running. */
  private abandon(): void {
    this.disposed = true;
    this.ownerInstantiated();
    this.messages.close();
    this.program?.kill(1);
  }

  poolStats(): PoolStats {
    return this.program!.poolStats();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.settleDemand?.();
    this.program!.kill(0);
    await this.program!.ended();
  }
}

/** spindle's options for one addon: the platform's defaults, then the loader's `wasi`, then the caller's. */
function hostOptionsOf(np: NapiPlatform, options: NapiInstantiateOptions, host: NapiHostOptions): NapiHostOptions {
  return { ...np.defaults, ...np.hostOptionsFor(options.wasi), ...definedOnly(host) };
}

/** The pool workers an addon's program starts ahead (`threads`, else the platform's default): what `np.warm` prepares for. */
function poolSize(np: NapiPlatform, options: NapiInstantiateOptions, host: NapiHostOptions): number {
  return hostOptionsOf(np, options, host).threads ?? defaultThreads(np.platform);
}

/** The shared memory the module asks for, when no loader made one. */
function newMemory(loaded: LoadedProgram): WebAssembly.Memory {
  const m = loaded.memory;
  if (!m || !m.shared || m.maximum === undefined) {
    throw new SpindleError('MEMORY_NOT_SHARED', `${loaded.name} does not import a shared memory with a maximum; a napi-rs addon built for wasm32-wasip1-threads does`);
  }
  return new WebAssembly.Memory({ initial: m.initial, maximum: m.maximum, shared: true } as WebAssembly.MemoryDescriptor);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
