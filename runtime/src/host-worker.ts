/**
 * A host worker (docs/threads-beyond-the-pool.md): one per core, all started by the first spawn
 * beyond the pool where workers have JSPI (the engine's own, or Node 22's behind a flag set at
 * that spawn: jspi.ts), each running on its one JS thread the threads it takes from the queue
 * (host-queue.ts). Each thread has its own instance of the preemptible compile (preempt.ts) and
 * runs `wasi_thread_start` through its factory's Suspension (jspi.ts: `promising`); where it would
 * block, it suspends instead and the worker's event loop runs the others:
 *
 * - memory.atomic.wait32/64: the thread guards route every wait through the instance's wait hook
 *   (thread-guards.ts, file comment 3); here the hook awaits Atomics.waitAsync on the same address
 *   (one waiter list with the instructions and Atomics.wait on other workers), or the program's end;
 * - poll_oneoff's and sched_yield's sleeps, a read of an empty stdin pipe (thread.ts
 *   `suspendingPreview1`);
 * - a loop that has run BUDGET iterations (preempt.ts) yields when another thread shares the worker.
 *
 * A thread cannot leave its worker once it runs (a wasm stack, suspended or not, cannot move
 * between isolates). Only wasm frames lie between `promising` and each suspending import: the
 * runtime's imports never call back into wasm, and a program with instance hooks (an embedder
 * whose imports may, napi/) is never hosted (program.ts), so no suspension crosses a JS frame
 * (which would trap with SuspendError).
 *
 * Ending: when the program ends, a hosted wait throws ExitSignal (as proc_exit unwinds), the
 * worker stops taking threads and returns; the owner terminates it with the other workers.
 *
 * Thread rules: everything here runs on the host worker's own thread.
 */
import { Control, STATE, STATE_EXITED } from './control.js';
import { ExitSignal } from './errors.js';
import { HostQueue, type HostedThread } from './host-queue.js';
import { ARMED_EXPORT, preemptible, YIELD_EXPORT } from './preempt.js';
import type { Suspension } from './jspi.js';
import type { Platform } from './platform/types.js';
import type { WorkerInit } from './protocol.js';
import { reportFailure, reportTrap, ThreadFactory, ThreadStdio } from './thread.js';
import { fillWaitHook, RESULTS, waitHookFunctions, type WaitHookFunctions } from './wait-hook.js';
import { compiledOnce, funcrefModule, type Signature } from './wasm-module-bytes.js';

const NO_VALUES: Signature = [[], []];
/** The preemption hook's yield as a wasm function: `y` () -> (), the import `h.y`; compiled once per thread. */
const yieldTrampoline = compiledOnce(() => funcrefModule([['y', NO_VALUES]]));

const ENDED = Symbol('ended');

/** Serves the host worker until the program ends. */
export async function serveHosted(init: WorkerInit, platform: Platform): Promise<void> {
  const ctl = new Control(init.control);
  const stdio = new ThreadStdio(init, platform);
  stdio.hosted = true;
  const rewritten = preemptible(new Uint8Array(init.hosting!.bytes).slice());
  if (rewritten.unchanged) {
    reportFailure(stdio, ctl, `cannot run threads beyond the pool on a host worker: the program cannot be made preemptible (${rewritten.unchanged}); `
      + 'run it with --no-host-threads');
    return;
  }
  const module = new WebAssembly.Module(rewritten.bytes as Uint8Array<ArrayBuffer>);
  const hostInit: WorkerInit = { ...init, module };
  const queue = new HostQueue(init.hosting!.queue);
  const ended = endOf(ctl);
  // A pending waitAsync does not keep a worker alive: this does, until the program ends.
  const alive = setInterval(() => { /* keep the event loop alive */ }, 1 << 30);
  const host = new Host(ctl, stdio, hostInit, platform, ended, queue);
  try {
    for (;;) {
      const seq = queue.seq;
      for (let t = queue.pop(); t; t = queue.pop()) host.start(t);
      if (ctl.exited) break;
      if (await Promise.race([queue.changed(seq), ended]) === ENDED) break;
    }
  } finally {
    clearInterval(alive);
  }
}

/** Resolves with ENDED once the program's exit is published. */
async function endOf(ctl: Control): Promise<typeof ENDED> {
  for (;;) {
    const state = Atomics.load(ctl.words, STATE);
    if (state === STATE_EXITED) return ENDED;
    const w = Atomics.waitAsync(ctl.words, STATE, state);
    if (w.async) await w.value;
  }
}

/** The threads of this worker. */
class Host {
  /** Threads started and not yet ended: a budget yield suspends only when another one exists (or waits in the queue). */
  private live = 0;
  /**
   * Factories of ended threads, for the next ones: as a pool worker keeps one for all its threads,
   * so what a thread's WASI host holds beyond its life (host directories kept open by the fd
   * table's cache) is bounded by the threads alive at once, not by the threads ever started.
   */
  private readonly free: ThreadFactory[] = [];
  /** Per factory, its threads' hook functions: made once (a suspending import may cost ~0.35 ms: jspi.ts). */
  private readonly hooks = new WeakMap<ThreadFactory, { waits: WaitHookFunctions; y: WebAssembly.ExportValue }>();
  private readonly yieldFn: () => undefined | Promise<void>;

  constructor(private readonly ctl: Control, private readonly stdio: ThreadStdio, private readonly init: WorkerInit,
    private readonly platform: Platform, private readonly ended: Promise<typeof ENDED>, private readonly queue: HostQueue) {
    // A turn of the event loop when another thread runs here, or waits in the queue: a thread
    // that spins alone on a worker would otherwise keep it from taking the next queued thread,
    // the one it may be waiting for (every other host worker being as busy).
    this.yieldFn = () => (this.live > 1 || queue.waiting ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined);
  }

  /** Instantiates `t`'s instance and runs it until its first suspension (or its end). */
  start(t: HostedThread): void {
    let exports: WebAssembly.Exports;
    const factory = this.free.pop() ?? new ThreadFactory(this.init, this.platform, this.stdio, undefined, true);
    try {
      exports = factory.instantiate().instance.exports;
    } catch (e) {
      this.free.push(factory);
      this.queue.release();
      reportFailure(this.stdio, this.ctl, `cannot instantiate the program: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    const memory = this.init.memory;
    if (memory && memory.buffer.byteLength < t.pages * 65536) memory.grow(0); // as pool-worker.ts refreshMemoryView
    this.hook(exports, factory);
    factory.wasiHost.threadId = t.tid;
    this.live++;
    factory.suspension!.run(exports.wasi_thread_start as (tid: number, arg: number) => void, t.tid, t.arg).then(() => undefined, (e: unknown) => {
      if (!(e instanceof ExitSignal)) reportTrap(this.stdio, this.ctl, t.tid, e);
    }).finally(() => { this.live--; this.free.push(factory); this.queue.release(); });
  }

  /** Fills the instance's wait hook and preemption hook with suspending functions (its factory's), and arms them. */
  private hook(exports: WebAssembly.Exports, factory: ThreadFactory): void {
    let fns = this.hooks.get(factory);
    if (!fns) {
      const jspi: Suspension = factory.suspension!, memory = factory.wasiHost.memory;
      const waits = waitHookFunctions((addr, size, expected, timeoutNs) => this.wait(memory, addr, size, expected, timeoutNs), (f, sig) => jspi.suspending(f, sig));
      const { y } = new WebAssembly.Instance(yieldTrampoline(), { h: { y: jspi.suspending(this.yieldFn, NO_VALUES) } }).exports;
      this.hooks.set(factory, fns = { waits, y: y! });
    }
    fillWaitHook(exports, fns.waits);
    const yields = exports[YIELD_EXPORT], armed = exports[ARMED_EXPORT];
    if (yields instanceof WebAssembly.Table && armed instanceof WebAssembly.Global) {
      yields.set(0, fns.y);
      armed.value = 1;
    }
  }

  /**
   * A wait of a hosted thread: the result of the instruction (0 woken, 1 not equal, 2 timed out),
   * at once when it need not wait, else a Promise of it; ExitSignal once the program has ended.
   */
  private wait(memory: WebAssembly.Memory, addr: number, size: 4 | 8, expected: number | bigint, timeoutNs: bigint): number | Promise<number> {
    if (this.ctl.exited) throw new ExitSignal(this.ctl.exitCode);
    const view = size === 4 ? new Int32Array(memory.buffer) : new BigInt64Array(memory.buffer);
    const timeout = timeoutNs < 0n ? Infinity : Number(timeoutNs) / 1e6;
    const w = Atomics.waitAsync(view as Int32Array, addr / size, expected as number, timeout);
    if (!w.async) return RESULTS[w.value]!;
    return Promise.race([w.value, this.ended]).then((r) => {
      if (r === ENDED) throw new ExitSignal(this.ctl.exitCode);
      return RESULTS[r]!;
    });
  }
}
