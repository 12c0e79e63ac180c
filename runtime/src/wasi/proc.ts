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
 *   With more threads contending than cores (T=4 on 2 cores), every sleeper woke every ~70 us to
 *   try the lock again, and each wake that won it moved the lock and the allocator's state to
 *   another core: T=4 cost 1.13x T=2 (bench/results/real-programs/run-2122). So a sleep taken
 *   while another thread of the program also sleeps in sched_yield asks for twice the previous
 *   one (20, 40, 80 ... us, at most SLEEP_MAX_MS), until the run ends or this thread sleeps
 *   alone again. A thread that yields alone, or at T=2 (one thread backs off while the other
 *   holds the lock), never sleeps longer than before. Measured on the shared 2-core machine
 *   (CPU idle 0-50%, runs at nice -19), malloc ring 1M pairs, 7 sets of 10-30 interleaved rounds:
 *   T=4/T=2 by median 0.97-1.06 against 1.02-1.22 for the fixed sleep in the same sets (T=4
 *   median 1-12% lower in 6 of the 7, T=2 unchanged). Caps of 0.16 and 0.3 ms did about as well
 *   in the sets that had them; spins of 0, 64 or 4096 loads and fixed sleeps of 50 or 100 us
 *   did not separate from noise.
 *
 * Thread rules: per-thread state in this module (each thread runs in its own worker), except on a
 * host worker (host-worker.ts), whose hosted threads share `backoff.last`: there one thread's
 * yield may count as the previous yield of another's run, which then suspends for one turn of the
 * event loop (yieldHosted) rather than spin. Shared between threads: the program's count of
 * threads sleeping in sched_yield (`shareYieldWords`: a word of the control block, changed with
 * Atomics.add/sub around each sleep).
 */
import { ERRNO_INVAL, ERRNO_NOTSUP, ERRNO_SUCCESS, SIGNAL_MAX } from './constants.js';
import { fail } from './errno.js';
import { sharedBufferConstructor } from '../shared-buffer.js';
import type { WasiHost } from './host.js';

/** Atomic loads of the backoff's spin: a short delay in place of a sched_yield system call. */
const SPINS = 512;
/** Yields less than this apart (ms) count as one run: the same lock still held. */
const RUN_GAP_MS = 0.05;
/** What a sleep asks for first (ms); the OS makes it ~50-80 us. */
const SLEEP_MS = 0.02;
/** The longest sleep (ms), reached after 6 sleeps in a row that each found another thread asleep. */
const SLEEP_MAX_MS = 1;

/**
 * Per thread (each thread runs in its own worker, so module state is the thread's own). The cell
 * to sleep on is made at the first sleep, from the context's shared buffer constructor (none in a
 * page that is not cross-origin isolated: then the backoff only spins). `sleepMs` is what the
 * next sleep of this run asks for.
 */
const backoff = { cell: undefined as Int32Array | undefined, last: -Infinity, sleepMs: SLEEP_MS, canSleep: true };

/** [0]: threads of the program sleeping in sched_yield now (unset: this thread counts alone). */
let sleepers: Int32Array | undefined;

/**
 * Shares the program's yield word (the control block's YIELD_SLEEPERS, seen by every thread),
 * once per worker (thread.ts ThreadFactory).
 */
export function shareYieldWords(words: Int32Array): void {
  sleepers = words;
}

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
 * What sched_yield does: the first yield of a run spins; each later one (within RUN_GAP_MS of
 * the previous) sleeps, twice as long as the previous sleep when another thread was asleep in
 * sched_yield at the same time (see the file comment). A thread that may not block (a page's main
 * thread: Atomics.wait throws there) only spins.
 */
function yieldBackoff(): void {
  const now = performance.now();
  if (now - backoff.last >= RUN_GAP_MS) {
    backoff.sleepMs = SLEEP_MS;
    spin();
  } else if (backoff.canSleep) {
    sleep();
  } else {
    spin();
  }
  backoff.last = performance.now();
}

function spin(): void {
  for (let i = 0; i < SPINS; i++) Atomics.load(spinCell, 0); // an atomic load is never optimized away
}

function sleep(): void {
  const cell = sleepCell();
  if (!cell) return spin();
  const ms = backoff.sleepMs;
  const others = sleepers ? Atomics.add(sleepers, 0, 1) : 0;
  backoff.sleepMs = others > 0 ? Math.min(2 * ms, SLEEP_MAX_MS) : SLEEP_MS;
  try {
    Atomics.wait(cell, 0, 0, ms);
  } catch {
    backoff.canSleep = false; // a thread that may not block
  } finally {
    if (sleepers) Atomics.sub(sleepers, 0, 1);
  }
}

/**
 * sched_yield of a hosted thread (host-worker.ts: its sched_yield is a suspending
 * import, and other threads share its worker). The first yield of a run spins, as yieldBackoff
 * does; a later one suspends the thread until the worker's event loop has run the rest of its
 * work once (setImmediate): its lock's holder may be a co-hosted thread that can only run then.
 */
function yieldHosted(): number | Promise<number> {
  const now = performance.now();
  const again = now - backoff.last < RUN_GAP_MS;
  backoff.last = now;
  if (!again) { spin(); return ERRNO_SUCCESS; }
  return new Promise((resolve) => setImmediate(() => { backoff.last = performance.now(); resolve(ERRNO_SUCCESS); }));
}

/** proc_exit: the one import that must stay outside the errno guard. */
export function procExit(host: WasiHost) {
  return (code: number): never => host.exit(code >>> 0);
}

/** proc_raise and sched_yield (guarded like every other import). */
export function procFunctions(suspending = false) {
  return {
    proc_raise: (signal: number): number => {
      if (signal < 0 || signal > SIGNAL_MAX) fail(ERRNO_INVAL);
      return fail(ERRNO_NOTSUP);
    },
    sched_yield: (): number | Promise<number> => {
      if (suspending) return yieldHosted();
      yieldBackoff();
      return ERRNO_SUCCESS;
    },
  };
}
