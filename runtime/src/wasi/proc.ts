/**
 * proc_exit, proc_raise, sched_yield.
 *
 * - proc_exit hands the code to `host.exit`, which never returns: it throws to unwind the wasm
 *   stack. That exception must reach the runtime core untouched, so `preview1.ts` does NOT wrap
 *   proc_exit in the errno guard (see the rule there). The exit code is the u32 the guest passed;
 *   what a code >= 126 means (wasmtime traps on those) is the core's decision.
 * - proc_raise is ENOTSUP, as in wasmtime (an invalid signal number is EINVAL). wasi-libc never
 *   calls it: its raise()/abort() are emulated in the program. The host contract therefore has no raise.
 * - sched_yield backs off (yieldBackoff below). JS has no way to yield an OS thread without
 *   sleeping: Atomics.wait with a 0 timeout does not yield, and a positive timeout sleeps ~50-80 us
 *   (timer slack). But returning at once is worse: the spin locks that call sched_yield between
 *   rounds of compare-and-swap (wasi-libc's dlmalloc) then hammer the lock's cache line while its
 *   holder tries to release it. Measured (malloc ring, wasi-libc's dlmalloc, 4M pairs, 2 cores):
 *   a no-op took 770-880 ms at T=2 where node:wasi's real sched_yield took 354-455 ms; a short
 *   spin, with a sleep when the same thread yields again within 50 us (its lock holder is most
 *   likely not running: more threads than cores), took 274-317 ms at T=2 and 321-425 at T=4 when
 *   it slept at the 4th yield of a run. At 1M pairs, sleeping at the 4th, 2nd or 1st yield after
 *   the first: T=4 median 107 / 74-87 / 67 ms, T=2 74 / 65-72 / 62 ms: sleep at once.
 *
 * Thread rules: none.
 */
import { ERRNO_INVAL, ERRNO_NOTSUP, ERRNO_SUCCESS, SIGNAL_MAX } from './constants.js';
import { fail } from './errno.js';
import { sharedBufferConstructor } from '../shared-buffer.js';
import type { WasiHost } from './host.js';

/** Atomic loads of the backoff's spin: a short delay in place of a sched_yield system call. */
const SPINS = 512;
/** Yields less than this apart (ms) count as one run: the same lock still held. */
const RUN_GAP_MS = 0.05;
/** At this many yields in a run after its first, sleep: the lock's holder needs the CPU. */
const RUN_BEFORE_SLEEP = 1;
/** How long that sleep asks for (ms); the OS makes it ~50-80 us. */
const SLEEP_MS = 0.02;

/**
 * Per thread (each thread runs in its own worker, so module state is the thread's own). The cell
 * to sleep on is made at the first sleep, from the context's shared buffer constructor (none in a
 * page that is not cross-origin isolated: then the backoff only spins).
 */
const backoff = { cell: undefined as Int32Array | undefined, last: -Infinity, run: 0, canSleep: true };

/** What the spin reads (not shared: any context has one). */
const spinCell = new Int32Array(1);

/** The cell Atomics.wait sleeps on, or undefined when this context cannot have one. */
function sleepCell(): Int32Array | undefined {
  if (backoff.cell) return backoff.cell;
  const Shared = sharedBufferConstructor();
  if (!Shared) backoff.canSleep = false;
  else backoff.cell = new Int32Array(new Shared(4));
  return backoff.cell;
}

/**
 * What sched_yield does: a short spin, or a short sleep once this thread has yielded
 * RUN_BEFORE_SLEEP more times within RUN_GAP_MS of each other (see the file comment). A thread that may not block (a page's
 * main thread: Atomics.wait throws there) only spins.
 */
function yieldBackoff(): void {
  const now = performance.now();
  backoff.run = now - backoff.last < RUN_GAP_MS ? backoff.run + 1 : 0;
  if (backoff.run >= RUN_BEFORE_SLEEP && backoff.canSleep) {
    backoff.run = 0;
    const cell = sleepCell();
    try {
      if (cell) Atomics.wait(cell, 0, 0, SLEEP_MS);
    } catch {
      backoff.canSleep = false; // a thread that may not block
    }
  } else {
    for (let i = 0; i < SPINS; i++) Atomics.load(spinCell, 0); // an atomic load is never optimized away
  }
  backoff.last = performance.now();
}

/** proc_exit: the one import that must stay outside the errno guard. */
export function procExit(host: WasiHost) {
  return (code: number): never => host.exit(code >>> 0);
}

/** proc_raise and sched_yield (guarded like every other import). */
export function procFunctions() {
  return {
    proc_raise: (signal: number): number => {
      if (signal < 0 || signal > SIGNAL_MAX) fail(ERRNO_INVAL);
      return fail(ERRNO_NOTSUP);
    },
    sched_yield: (): number => {
      yieldBackoff();
      return ERRNO_SUCCESS;
    },
  };
}
