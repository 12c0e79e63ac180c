/**
 * The wait hook of the calling thread (thread-guards.ts, file comment 3). In Node's calling-thread
 * mode `_start` runs on the embedder's own thread, which nothing can stop from outside: when
 * another thread ends the program (exit(), a trap) while this one blocks in a wasm wait (main in
 * pthread_join), the wait would never return. With the hook installed, this instance's waits run
 * here instead: the same futex wait (Atomics.wait on the same memory: one waiter list with the
 * wasm instructions), in slices of SLICE_MS, and between slices a check of the program's end,
 * which unwinds the thread with ExitSignal as its own proc_exit would.
 *
 * Semantics kept from the instructions: the result (0 woken, 1 not equal, 2 timed out), the
 * timeout in ns (negative: none), a trap on an unaligned address (bounds: the wrapper refreshed
 * this thread's view before calling, and Atomics.wait throws RangeError past the end).
 *
 * Thread rules: installed on, and called on, the thread that owns the instance only.
 */
import type { Control } from './control.js';
import { ExitSignal } from './errors.js';
import { HOOKED_EXPORT, HOOKS_EXPORT } from './thread-guards.js';
import { compiledOnce, funcrefModule, type Signature } from './wasm-module-bytes.js';

/** How long a hooked wait sleeps before it looks at the program's state again (ms). */
const SLICE_MS = 5;

/**
 * How long a spinning wait (installSpinWaitHook) spins before it returns as woken when the value
 * did not change (ms): a notify that changes nothing is seen no later than this.
 */
const SPIN_SLICE_MS = 2;

export const RESULTS: Record<string, number> = { ok: 0, 'not-equal': 1, 'timed-out': 2 };

/** The types of memory.atomic.wait32 and wait64: (address, expected, timeout in ns) -> result. */
const W32: Signature = [['i32', 'i32', 'i64'], ['i32']];
const W64: Signature = [['i32', 'i64', 'i64'], ['i32']];

/**
 * The hook's two functions as wasm functions (the only kind its funcref table holds): `w32` and
 * `w64`, each the import of the same name from `h`. Compiled once per thread: a host worker makes
 * the hook's functions per thread factory.
 */
const trampolines = compiledOnce(() => funcrefModule([['w32', W32], ['w64', W64]]));

/**
 * A wait as the hook calls it: the instruction's address (aligned), operand size, expected value
 * and timeout in ns (negative: none); its result (0 woken, 1 not equal, 2 timed out), or a Promise
 * of it (a hosted thread's wait, made a suspending import by `wrap`: jspi.ts).
 */
export type HookedWait = (addr: number, size: 4 | 8, expected: number | bigint, timeoutNs: bigint) => number | Promise<number>;

/**
 * Routes the waits of `exports` (an instance of a rewritten module) through `wait`: puts it in the
 * hook's table (each import first made an import value by `wrap`) and turns the hook on. An
 * unaligned address traps before `wait` is called, as the instruction does. Returns false when
 * the module has no hook (no wait, or not rewritten). Also used by host-worker.ts (`wrap` gets
 * each import's wasm type, which the earlier JSPI needs: jspi.ts).
 */
export function setWaitHook(exports: WebAssembly.Exports, wait: HookedWait, wrap: (f: (...args: any[]) => unknown, sig: Signature) => unknown = (f) => f): boolean {
  if (!hasWaitHook(exports)) return false;
  return fillWaitHook(exports, waitHookFunctions(wait, wrap));
}

/** Whether `exports` has the wait hook (a rewritten module with a wait). */
export function hasWaitHook(exports: WebAssembly.Exports): boolean {
  return exports[HOOKS_EXPORT] instanceof WebAssembly.Table && exports[HOOKED_EXPORT] instanceof WebAssembly.Global;
}

/** The hook's two functions for `wait` (setWaitHook), for instances that share them (host-worker.ts: per thread factory). */
export interface WaitHookFunctions { w32: WebAssembly.ExportValue; w64: WebAssembly.ExportValue }

/** Puts `fns` in the hook's table of `exports` and turns the hook on; false when it has none. */
export function fillWaitHook(exports: WebAssembly.Exports, fns: WaitHookFunctions): boolean {
  if (!hasWaitHook(exports)) return false;
  const table = exports[HOOKS_EXPORT] as WebAssembly.Table;
  table.set(0, fns.w32);
  table.set(1, fns.w64);
  (exports[HOOKED_EXPORT] as WebAssembly.Global).value = 1;
  return true;
}

/** setWaitHook's two functions: `wait` behind the alignment check, each made an import value by `wrap`. */
export function waitHookFunctions(wait: HookedWait, wrap: (f: (...args: any[]) => unknown, sig: Signature) => unknown = (f) => f): WaitHookFunctions {
  const aligned = (addr: number, size: 4 | 8, expected: number | bigint, timeoutNs: bigint): number | Promise<number> => {
    if (addr % size !== 0) throw new WebAssembly.RuntimeError('unaligned atomic access in a wait');
    return wait(addr, size, expected, timeoutNs);
  };
  const { w32, w64 } = new WebAssembly.Instance(trampolines(), {
    h: {
      w32: wrap((addr: number, expected: number, timeout: bigint) => aligned(addr >>> 0, 4, expected, timeout), W32),
      w64: wrap((addr: number, expected: bigint, timeout: bigint) => aligned(addr >>> 0, 8, expected, timeout), W64),
    } as WebAssembly.ModuleImports,
  }).exports;
  return { w32: w32!, w64: w64! };
}

/**
 * Routes the waits of `exports` (an instance of a rewritten module) through an interruptible
 * wait. Returns false when the module has no hook (no wait, or not rewritten).
 */
export function installWaitHook(exports: WebAssembly.Exports, memory: WebAssembly.Memory, ctl: Control): boolean {
  return setWaitHook(exports, (addr, size, expected, timeoutNs) => {
    // The buffer of this thread's current view (grown memory: a longer one).
    const view = size === 4 ? new Int32Array(memory.buffer) : new BigInt64Array(memory.buffer);
    const deadline = timeoutNs < 0n ? Infinity : performance.now() + Number(timeoutNs) / 1e6;
    for (;;) {
      if (ctl.exited) throw new ExitSignal(ctl.exitCode);
      const slice = Math.min(SLICE_MS, Math.max(0, deadline - performance.now()));
      const result = Atomics.wait(view as Int32Array, addr / size, expected as number, slice);
      if (result !== 'timed-out' || performance.now() >= deadline) return RESULTS[result]!;
    }
  });
}

/**
 * Whether this thread may block in Atomics.wait: everywhere but a browser page's own thread
 * (window), where Atomics.wait throws, and so does wasm's `memory.atomic.wait32/64` ("Atomics.wait
 * cannot be called in this context"). Asked of the engine itself: a wait on a private cell that
 * returns at once ("not-equal") where waiting is allowed.
 */
export function mayWaitHere(): boolean {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * For an instance that runs on a thread that may not block (a napi addon's, whose calls run on a
 * page's thread in browsers: napi/host.ts): routes its waits through a wait that spins on the
 * value instead of sleeping, so that a lock another thread holds (a Rust or libc mutex, a join) is
 * waited for there as a native thread would, instead of trapping. Returns false, installing
 * nothing, where this thread may wait (its waits stay the instructions) or the module has no hook.
 * (`mayWait`: whether this thread may wait; tests pass false to run the spinning wait in Node.)
 *
 * Semantics: "not-equal" when the value differs at the call; "ok" once it changes; "timed-out"
 * at the timeout; and "ok" after SPIN_SLICE_MS with no change (a spurious wake-up, which every
 * futex user re-checks for: musl's and Rust's locks, joins and condition variables loop on their
 * value), so a notify that changes nothing cannot leave the thread spinning for good. Once the
 * program has ended (another thread called exit() or trapped), the wait unwinds this thread with
 * ExitSignal, as a hooked wait does. The page's thread is busy while it spins: a lock held long
 * keeps the page from rendering, as it would keep a native thread from running.
 */
export function installSpinWaitHook(exports: WebAssembly.Exports, memory: WebAssembly.Memory, ctl: Pick<Control, 'exited' | 'exitCode'>, mayWait = mayWaitHere()): boolean {
  if (mayWait) return false;
  return setWaitHook(exports, (addr, size, expected, timeoutNs) => spinWait(memory, addr / size, size, expected, timeoutNs, ctl));
}

function spinWait(memory: WebAssembly.Memory, index: number, size: 4 | 8, expected: number | bigint, timeoutNs: bigint, ctl: Pick<Control, 'exited' | 'exitCode'>): number {
  // The wrapper refreshed this thread's view before the call, and memory never shrinks: this view
  // keeps covering the address however the memory grows meanwhile.
  const view = size === 4 ? new Int32Array(memory.buffer) : new BigInt64Array(memory.buffer);
  const load = (): number | bigint => Atomics.load(view as Int32Array, index);
  if (load() !== expected) return RESULTS['not-equal']!;
  const start = performance.now();
  const deadline = timeoutNs < 0n ? Infinity : start + Number(timeoutNs) / 1e6;
  const spurious = start + SPIN_SLICE_MS;
  for (let i = 1; ; i++) {
    if (load() !== expected) return RESULTS.ok!;
    if ((i & 255) !== 0) continue;
    if (ctl.exited) throw new ExitSignal(ctl.exitCode);
    const now = performance.now();
    if (now >= deadline) return RESULTS['timed-out']!;
    if (now >= spurious) return RESULTS.ok!;
  }
}
