/**
 * The pool worker's loop: every worker of a program runs `serve`, from its worker script
 * (worker.ts in browsers, node-worker.ts in Node, or an embedder's: napi/worker.ts, whose
 * InstanceHooks make each thread's instance). A worker owns one slot of the control block
 * for its whole life and serves threads in it one after another:
 *
 *   instantiate a fresh instance  ->  ready  ->  wait for CMD in its slot  ->  run the thread  ->
 *   back on the idle stack  ->  instantiate ... until the program ends (an idle worker then gets
 *   CMD_EXIT and returns, so that it ends on its own thread). With InstanceHooks.reuseInstance
 *   (napi/thread.ts) the worker instantiates once and runs every thread it gets on that instance.
 *
 * The instance for the next thread is created before the worker waits, so a spawn only costs a
 * notify. Whoever created this worker has already put its slot on the idle stack (prewarm,
 * top-up: pool.ts) or written a command into it (growth), so a command may be waiting before the
 * worker even boots.
 */
import { Control, CMD_NONE, CMD_RUN_MAIN, CMD_RUN_OWNER_THREAD } from './control.js';
import { reportFailure, runThread, ThreadFactory, ThreadStdio, type InstanceHooks } from './thread.js';
import type { WorkerInit } from './protocol.js';
import type { Platform } from './platform/types.js';

/**
 * How long the main worker waits before `_start` for the prewarmed pool to boot (pool.ts). The
 * main worker is started first and is up before them; a worker that boots while the program's
 * threads compute takes CPU from them, and a thread handed to a worker still booting starts only
 * once it has (about half of the bursts of 2 x cores threads did). Measured (2 cores, quiet,
 * 7 interleaved rounds, bench/results/real-programs/pool-boot-wait-2026-11-27.md): malloc ring on
 * wasi-libc's dlmalloc T=4/T=2 1.015 (Node 20) and 1.041 (Node 26) by median, against 1.028 and
 * 1.076 without the wait, and 0.92-1.03 vs up to 1.16 on a loaded machine; math T=2 and T=4 5-19%
 * faster. The cost: a threaded program's first output 3-18 ms later by median (Node 26 the most),
 * its exit 4 ms later on average (-6 to +29 ms by median over 14 pairs in 2 quiet sets). The
 * bound keeps a slow boot (a loaded machine, a pool of many) from holding the program back longer.
 */
const PREWARM_WAIT_MS = 250;

/**
 * How long a cold worker (its instance never ran a thread) that reuses its instance waits for a
 * warm worker to take a thread the owner spawned, while another worker runs one (control.ts
 * `handOver`). rolldown's JavaScript starts each bundle's thread 0.5-5 ms before the previous
 * bundle's thread ends (2 cores, loaded), and the same bundle costs ~25-30 ms more CPU on a cold
 * worker (Node 20 and 26). Threads spawned by other threads never wait (rolldown's long-lived
 * one: bundles waited for it). Where no warm worker comes (a burst of long-lived threads the
 * owner starts) each cold worker starts its thread this much later, once.
 */
const HAND_OVER_WAIT_MS = 5;

/**
 * `ready` runs each time this worker has its instance, with whether a command is already waiting,
 * until it returns true: work that should not delay a thread, unless it must (node-worker.ts
 * shares the worker's compiled code with the next workers: platform/node/worker-code.ts).
 */
export function serve(init: WorkerInit, platform: Platform, hooks?: InstanceHooks, ready?: (commandWaiting: boolean) => boolean): void {
  const ctl = new Control(init.control);
  const stdio = new ThreadStdio(init, platform);
  const factory = new ThreadFactory(init, platform, stdio, hooks);
  const cmdWord = ctl.slotWord(init.slot, 0);
  let thread;
  // Whether this worker's instance has run a thread (with reuseInstance: its JavaScript is warm).
  let warm = false;
  for (let first = true; ; first = false) {
    try {
      if (thread === undefined || !hooks?.reuseInstance) thread = factory.instantiate();
    } catch (e) {
      reportFailure(stdio, ctl, `cannot instantiate the program: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    // Ready, then back on the idle stack, only once the next instance exists, so a spawn never
    // lands on a worker that is still instantiating while another one is ready. (The creator of
    // this worker put the slot on the stack, or commanded it, before the first round.)
    ctl.markReady(init.slot, warm);
    if (!first) { ctl.pushIdle(init.slot); ctl.endPreparing(); }
    if (ready?.(Atomics.load(ctl.words, cmdWord) !== CMD_NONE)) ready = undefined;
    while (Atomics.load(ctl.words, cmdWord) === CMD_NONE) Atomics.wait(ctl.words, cmdWord, CMD_NONE);
    ctl.markBusy(init.slot);
    if (Atomics.load(ctl.words, cmdWord) === CMD_RUN_MAIN) ctl.waitIdleBooted(PREWARM_WAIT_MS);
    if (ctl.exited) return;
    const cmd = Atomics.load(ctl.words, cmdWord);
    const tid = ctl.words[ctl.slotWord(init.slot, 1)]!;
    const arg = ctl.words[ctl.slotWord(init.slot, 2)]!;
    const pages = ctl.words[ctl.slotWord(init.slot, 4)]!;
    Atomics.store(ctl.words, cmdWord, CMD_NONE);
    // A cold worker that reuses its instance passes its thread on to a warm one if one is about
    // to be idle (control.ts `handOver`), and goes back on the idle stack.
    if (hooks?.reuseInstance && !warm && cmd === CMD_RUN_OWNER_THREAD && ctl.handOver(tid, arg, pages, HAND_OVER_WAIT_MS)) {
      ctl.beginPreparing();
      continue;
    }
    refreshMemoryView(init.memory, pages);
    if (hooks?.reuseInstance) warm = true;
    if (!runThread(thread, ctl, stdio, cmd === CMD_RUN_MAIN ? 0 : tid, arg)) {
      hooks?.programEnded?.(ctl.waitExitCode());
      return;
    }
    ctl.beginPreparing();
  }
}

/** Instance hooks of a worker script, made once the worker has its WorkerInit (napi/worker.ts). */
export type HooksFor = (init: WorkerInit) => InstanceHooks | undefined | Promise<InstanceHooks | undefined>;

/**
 * Starts serving from an ES module worker script: in Node with the worker's `workerData`, in a
 * browser module worker with the WorkerInit its owner posts right after creating it.
 */
export async function bootPoolWorker(hooksFor?: HooksFor): Promise<void> {
  if (typeof process !== 'undefined' && process.versions?.node) {
    const { workerData } = await import('node:worker_threads');
    const { nodePlatform } = await import('./platform/node/index.js');
    const init = workerData as WorkerInit;
    serve(init, nodePlatform, await hooksFor?.(init));
  } else {
    // The handler is set before any await: a message that arrives while no handler is set is
    // dropped once the module has been evaluated.
    const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<WorkerInit>) => void) | null };
    const platform = import('./platform/browser/pool-worker-platform.js');
    scope.onmessage = (e) => {
      scope.onmessage = null;
      Promise.all([platform, hooksFor?.(e.data)])
        .then(([{ poolWorkerPlatform }, hooks]) => serve(e.data, poolWorkerPlatform, hooks))
        .catch((err: unknown) => {
          // A rejection would only reach the console; thrown from a task it becomes the
          // Worker's error event, which the main thread turns into an exit with a message.
          setTimeout(() => { throw err; });
        });
    };
  }
}

/**
 * Makes this worker's view of the shared memory cover `pages` (what the spawner saw when it
 * handed over the thread: the thread's stack and TLS lie below). The instance was created before
 * the spawn, and V8 tells other threads of a growth lazily: normally by an interrupt every
 * isolate then sharing the memory gets, but a worker that received the memory while it grew
 * misses that one. Its atomics and bulk operations check bounds against its own view, so a
 * thread started on a stale view trapped ("memory access out of bounds" in pthread_cond_wait,
 * 1 of 512 threads). `memory.grow(0)` refreshes this isolate's view (and interrupts every other
 * isolate), so it runs only when the view is short.
 */
function refreshMemoryView(memory: WebAssembly.Memory | null, pages: number): void {
  if (memory && memory.buffer.byteLength < pages * 65536) memory.grow(0);
}
