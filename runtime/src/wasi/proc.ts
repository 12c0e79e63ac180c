/**
 * proc_exit, proc_raise, sched_yield.
 *
 * - proc_exit hands the code to `host.exit`, which never returns: it throws to unwind the wasm
 *   stack. That exception must reach the runtime core untouched, so `preview1.ts` does NOT wrap
 *   proc_exit in the errno guard (see the rule there). The exit code is the u32 the guest passed;
 *   what a code >= 126 means (wasmtime traps on those) is the core's decision.
 * - proc_raise is ENOTSUP, as in wasmtime (an invalid signal number is EINVAL). wasi-libc never
 *   calls it: its raise()/abort() are emulated in the program. The host contract therefore has no raise.
 * - sched_yield returns success at once. JS has no way to yield an OS thread without sleeping:
 *   Atomics.wait with a 0 timeout does not yield, and any positive timeout sleeps ~50-80 us (timer
 *   slack), which would make a spinning lock holder's waiters far slower than a no-op.
 *
 * Thread rules: none.
 */
import { ERRNO_INVAL, ERRNO_NOTSUP, ERRNO_SUCCESS, SIGNAL_MAX } from './constants.js';
import { fail } from './errno.js';
import type { WasiHost } from './host.js';

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
    sched_yield: (): number => ERRNO_SUCCESS,
  };
}
