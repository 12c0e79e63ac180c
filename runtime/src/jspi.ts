/**
 * JSPI (JavaScript Promise Integration): a wasm stack that suspends in a call of an import until
 * the Promise it returned settles, while its JS thread runs other code. The one place that knows
 * which form the engine has; host-worker.ts, thread.ts and wait-hook.ts ask for a `Suspension`
 * and never see the difference:
 *
 * - the standard form, `WebAssembly.Suspending` and `WebAssembly.promising`: without flags in
 *   Node 24 and 26, Chromium and Firefox (checked 2026-11-27);
 * - the earlier form (V8 12.4: Node 22, in workers started after the V8 flag
 *   `--experimental-wasm-jspi` was set at run time, WORKER_JSPI_FLAGS): `new
 *   WebAssembly.Function(type, f, {suspending: 'first'})` is an import whose FIRST parameter is a
 *   `WebAssembly.Suspender` (externref) and `new WebAssembly.Function(type, export, {promising:
 *   'first'})` an export wrapper that creates one and passes it first. A program's imports
 *   cannot pass it, so each Suspension holds a small instance with a mutable externref global
 *   (`suspenderScopeModule`; both modules' shapes: wasm-module-bytes.ts): its entry stores the
 *   suspender there and calls the thread's start through a table; each suspending import is a
 *   wrapper (`suspenderWrapperModule`, one module per signature) with the import's own
 *   signature that passes `global.get` first, and an id: one suspending function per
 *   signature dispatches on it (creating one costs ~0.35 ms on V8 12.4). Hence the rules: one
 *   call through a Suspension's `run` at a time (a thread factory runs one thread at a time),
 *   and suspending imports made per factory, not per thread.
 *
 * Node 20 (V8 11.3) has the earlier form under `--experimental-wasm-stack-switching`, but a
 * process that sets it at run time crashes at the next garbage collection of any isolate
 * started before (docs/known-issues/node20-stack-switching-flag.md): not in WORKER_JSPI_FLAGS.
 * Given at start, every context has it, and threads are hosted as on Node 22: the CLI adds it
 * (START_JSPI_FLAGS) when it restarts Node for a threaded program anyway (compile-policy.ts).
 */
import { compiledOnce, suspenderScopeModule, suspenderWrapperModule, type Signature, type ValueType } from './wasm-module-bytes.js';

export type { Signature };

interface StandardJspi {
  Suspending: new (f: (...args: any[]) => unknown) => WebAssembly.ImportValue;
  promising<A extends unknown[]>(f: (...args: A) => unknown): (...args: A) => Promise<unknown>;
}

interface FunctionType { parameters: ValueType[]; results: ValueType[] }
interface SuspenderJspi {
  Suspender: new () => unknown;
  Function: new (type: FunctionType, f: unknown, usage?: { suspending?: 'first'; promising?: 'first' }) => (...args: any[]) => any;
}

/** Whether this engine has the standard JSPI. */
export function hasJspi(): boolean {
  const w = WebAssembly as unknown as Partial<StandardJspi>;
  return typeof w.Suspending === 'function' && typeof w.promising === 'function';
}

/** Whether this engine has the earlier JSPI (a Suspender as first parameter). */
function hasSuspenderJspi(): boolean {
  const w = WebAssembly as unknown as Partial<SuspenderJspi>;
  return typeof w.Suspender === 'function' && typeof w.Function === 'function';
}

/**
 * V8 versions whose workers get the earlier JSPI when this flag is set in the running process
 * (by any thread; workers started before keep what they had), with its type reflection (`type()`
 * on Table, Memory, Global, Tag) and nothing else we could measure (docs/threads-beyond-the-pool.md
 * item 7): Node 22's V8 12.4.
 */
const WORKER_JSPI_FLAGS: ReadonlyArray<readonly [v8Prefix: string, flag: string]> = [['12.4.', '--experimental-wasm-jspi']];

/**
 * The V8 flag that gives workers started after it JSPI, where this engine lacks it and a flag set
 * at run time is known to give it safely; undefined elsewhere.
 */
export function workerJspiFlag(): string | undefined {
  return jspiFlagOf(WORKER_JSPI_FLAGS);
}

/**
 * V8 versions with the earlier JSPI behind a flag that is safe only at process start (set at run
 * time it crashes the process): Node 20's V8 11.3. Measured cost of the flag to a run that hosts
 * nothing: 1.00-1.03x by min (bench/results/threads-jspi-node20-flag-2026-11-27/flag-at-start).
 */
const START_JSPI_FLAGS: ReadonlyArray<readonly [v8Prefix: string, flag: string]> = [['11.3.', '--experimental-wasm-stack-switching']];

/**
 * The V8 flag a Node process must be started with for its workers to have JSPI, where this engine
 * lacks it and setting it at run time is unsafe; undefined elsewhere (and in browsers).
 */
export function startJspiFlag(): string | undefined {
  return jspiFlagOf(START_JSPI_FLAGS);
}

/** `flags`' flag for this process's V8 version, where the engine lacks JSPI; undefined elsewhere (and in browsers). */
function jspiFlagOf(flags: ReadonlyArray<readonly [v8Prefix: string, flag: string]>): string | undefined {
  if (hasJspi() || hasSuspenderJspi()) return undefined;
  const v8 = typeof process === 'undefined' ? undefined : process.versions?.v8;
  return v8 ? flags.find(([prefix]) => v8.startsWith(prefix))?.[1] : undefined;
}

/**
 * Whether workers started by this process can have JSPI: the engine's own, the earlier form given
 * at start (`node --experimental-wasm-stack-switching` on Node 20: every context has it), or
 * through workerJspiFlag.
 */
export function jspiForWorkers(): boolean {
  return hasJspi() || hasSuspenderJspi() || workerJspiFlag() !== undefined;
}

/** The engine's JSPI for one thread at a time (see the file comment). */
export interface Suspension {
  /**
   * An import value of type `sig` that calls `f` and, when `f` returns a Promise, suspends the
   * calling wasm stack until it settles (its value is the import's result; a rejection, or a
   * throw, propagates as an exception). The earlier form keeps `f` for the worker's life: make
   * them per thread factory (which threads reuse), not per thread.
   */
  suspending(f: (...args: any[]) => unknown, sig: Signature): WebAssembly.ImportValue;
  /** Calls `start` (a wasm export (i32, i32) -> ()) on a stack that may suspend; its Promise settles at its end. */
  run(start: (a: number, b: number) => void, a: number, b: number): Promise<unknown>;
}

/** A Suspension for this engine. Call only where it has JSPI (a host worker: jspiForWorkers). */
export function suspension(): Suspension {
  if (hasJspi()) {
    const w = WebAssembly as unknown as StandardJspi;
    return { suspending: (f) => new w.Suspending(f), run: (start, a, b) => settle(() => w.promising(start)(a, b)) };
  }
  if (hasSuspenderJspi()) return new SuspenderScope();
  throw new Error('this JS engine has no JSPI (WebAssembly.Suspending)');
}

/**
 * Per signature, for this thread (a worker): the wrapper module and ONE suspending import that
 * calls `targets[id]`. A suspending `WebAssembly.Function` costs ~0.35 ms to create on V8 12.4
 * (a wrapper compiled per function; a plain one 5 us), so each is made once per type, not per
 * import.
 */
const bySignature = new Map<string, { module: WebAssembly.Module; dispatch: unknown }>();
/** The scope module (wasm-module-bytes.ts), compiled once per thread. */
const scopeModule = compiledOnce(suspenderScopeModule);
/** The functions behind the suspending imports made so far, by id (never released: see `suspending`). */
const targets: ((...args: any[]) => unknown)[] = [];

class SuspenderScope implements Suspension {
  private readonly table: WebAssembly.Table;
  private readonly global: WebAssembly.Global;
  private readonly enter: (a: number, b: number) => Promise<unknown>;

  constructor() {
    const w = WebAssembly as unknown as SuspenderJspi;
    const { enter, s, t } = new WebAssembly.Instance(scopeModule()).exports;
    this.global = s as WebAssembly.Global;
    this.table = t as WebAssembly.Table;
    this.enter = new w.Function({ parameters: ['i32', 'i32'], results: ['externref'] }, enter, { promising: 'first' });
  }

  /** Each call keeps `f` for the life of the worker: call it per thread factory, not per thread. */
  suspending(f: (...args: any[]) => unknown, sig: Signature): WebAssembly.ImportValue {
    const key = sig.map((ts) => ts.join(',')).join('->');
    let entry = bySignature.get(key);
    if (!entry) {
      const w = WebAssembly as unknown as SuspenderJspi;
      const [params, results] = sig;
      // V8 passes the function the import's parameters after the suspender (it keeps that one).
      const dispatch = new w.Function({ parameters: ['externref', 'i32', ...params], results: [...results] },
        (id: number, ...args: unknown[]) => targets[id]!(...args), { suspending: 'first' });
      bySignature.set(key, entry = { module: new WebAssembly.Module(suspenderWrapperModule(sig)), dispatch });
    }
    const id = new WebAssembly.Global({ value: 'i32', mutable: false }, targets.push(f) - 1);
    return new WebAssembly.Instance(entry.module, { h: { s: this.global, id, f: entry.dispatch } as WebAssembly.ModuleImports }).exports.w!;
  }

  run(start: (a: number, b: number) => void, a: number, b: number): Promise<unknown> {
    this.table.set(0, start as unknown as WebAssembly.ExportValue);
    // V8 11.3 (Node 20) returns a call that never suspended as its plain result, not a Promise.
    return settle(() => Promise.resolve(this.enter(a, b)));
  }
}

/** `call()`'s Promise, or a rejected one when it throws. */
function settle(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return call();
  } catch (e) {
    return Promise.reject(e);
  }
}
