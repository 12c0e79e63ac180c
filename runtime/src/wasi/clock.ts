/**
 * The four WASI clocks (clock_res_get, clock_time_get) and the time sources `poll.ts` sleeps on.
 *
 * Sources, chosen so that every thread of a program reads the same clocks:
 * - REALTIME: `performance.timeOrigin + performance.now()` (sub-millisecond wall time; Date.now()
 *   is whole milliseconds). Not required to be monotonic.
 * - MONOTONIC: in Node `process.hrtime.bigint()` (CLOCK_MONOTONIC, nanoseconds, the same clock in
 *   every worker). `performance.now()` alone is NOT usable: each worker has its own time origin. In
 *   browsers, `performance.timeOrigin + performance.now()`, the only cross-worker-consistent source;
 *   it is consistent only to a few microseconds (Chromium: two workers disagreed by ~5 us), so a
 *   reading on one thread could precede an earlier reading on another. With a shared floor
 *   (`shareMonotonicFloor`, the control block's MONO_FLOOR) every reading is raised to the highest
 *   one handed out so far, as CLOCK_MONOTONIC is monotonic across CPUs on Linux.
 * - PROCESS_CPUTIME_ID: Node `process.cpuUsage()` (user + system of the whole process). Browsers
 *   have no CPU clock: monotonic time since this module loaded stands in (an upper bound).
 * - THREAD_CPUTIME_ID: on Linux Node, the first field of /proc/thread-self/schedstat (ns on CPU of
 *   the calling OS thread; a Node worker is one OS thread). Elsewhere, or if that read ever fails,
 *   the process CPU clock.
 * wasmtime answers EBADF for both CPU clocks; we implement them because wasi-libc's clock() and
 * CLOCK_*_CPUTIME_ID users then work. An unknown clock id is EINVAL (as wasmtime's enum check).
 *
 * Thread rules: the only shared state is the browser's monotonic floor (one BigInt64 updated with
 * compareExchange); each worker has its own copy of this module's caches.
 */
import {
  CLOCKID_MONOTONIC,
  CLOCKID_PROCESS_CPUTIME_ID,
  CLOCKID_REALTIME,
  CLOCKID_THREAD_CPUTIME_ID,
  ERRNO_INVAL,
  ERRNO_SUCCESS,
} from './constants.js';
import { fail } from './errno.js';
import type { GuestMemory } from './guest-memory.js';

interface NodeProcessLike {
  hrtime: { bigint(): bigint };
  cpuUsage(): { user: number; system: number };
  getBuiltinModule?(id: string): unknown;
}
interface NodeFsLike {
  readFileSync(path: string, encoding: 'latin1'): string;
}

const nodeProcess: NodeProcessLike | undefined = (() => {
  const p = (globalThis as { process?: Partial<NodeProcessLike> }).process;
  return typeof p?.hrtime?.bigint === 'function' && typeof p.cpuUsage === 'function'
    ? (p as NodeProcessLike)
    : undefined;
})();

/**
 * This thread's `performance.timeOrigin`, a constant read once, at the first wall-clock reading
 * (its getter costs more than now()). Not at load: in Node the first touch of `performance` loads
 * node:perf_hooks (~2 ms of CPU), which a program that never reads the wall clock need not pay.
 */
let timeOrigin: number | undefined;

/** Wall-clock milliseconds since the Unix epoch, sub-millisecond. */
function wallMs(): number {
  return (timeOrigin ??= performance.timeOrigin) + performance.now();
}

/** Milliseconds (a double) to whole nanoseconds without losing the sub-millisecond part. */
function msToNs(ms: number): bigint {
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
}

/**
 * Wall-clock ns since the Unix epoch as a double: an integer, exact to 256 ns at today's
 * magnitude (~2^60), finer than the source (performance.now() is microsecond-grained or coarser).
 */
function realtimeNs(): number {
  return Math.round(wallMs() * 1e6);
}

/** Wall-clock time in ns since the Unix epoch. */
export function realtimeNow(): bigint {
  return msToNs(wallMs());
}

/** Browsers: the highest MONOTONIC reading of any thread of the program (see the module note). */
let monotonicFloor: BigInt64Array | undefined;

/** Shares `floor` (one BigInt64 in a SharedArrayBuffer seen by every thread) as the monotonic floor. */
export function shareMonotonicFloor(floor: BigInt64Array): void {
  if (!nodeProcess) monotonicFloor = floor;
}

/** Wall-clock based monotonic time, never below what another thread has already read. */
function browserMonotonicNow(): bigint {
  const t = realtimeNow();
  const floor = monotonicFloor;
  if (!floor) return t;
  let seen = Atomics.load(floor, 0);
  while (t > seen) {
    const was = Atomics.compareExchange(floor, 0, seen, t);
    if (was === seen) return t;
    seen = was;
  }
  return seen;
}

/** Monotonic time in ns, the same clock on every thread of the process. */
export const monotonicNow: () => bigint = nodeProcess
  ? () => nodeProcess.hrtime.bigint()
  : browserMonotonicNow;

const loadedAt = monotonicNow();

function processCpuNow(): bigint {
  if (!nodeProcess) return monotonicNow() - loadedAt;
  const { user, system } = nodeProcess.cpuUsage();
  return BigInt(user + system) * 1000n;
}

const SCHEDSTAT = '/proc/thread-self/schedstat';
let schedstatFs: NodeFsLike | undefined = (() => {
  const fs = nodeProcess?.getBuiltinModule?.('node:fs') as NodeFsLike | undefined;
  return typeof fs?.readFileSync === 'function' ? fs : undefined;
})();

function threadCpuNow(): bigint {
  if (schedstatFs) {
    try {
      const text = schedstatFs.readFileSync(SCHEDSTAT, 'latin1');
      return BigInt(text.slice(0, text.indexOf(' ')));
    } catch {
      schedstatFs = undefined; // not Linux (or no /proc): use the process clock from now on
    }
  }
  return processCpuNow();
}

/** The current value of clock `id` in ns. Fails with EINVAL for an unknown id. */
export function clockNow(id: number): bigint {
  switch (id) {
    case CLOCKID_REALTIME:
      return realtimeNow();
    case CLOCKID_MONOTONIC:
      return monotonicNow();
    case CLOCKID_PROCESS_CPUTIME_ID:
      return processCpuNow();
    case CLOCKID_THREAD_CPUTIME_ID:
      return threadCpuNow();
    default:
      return fail(ERRNO_INVAL);
  }
}

/** The resolution of clock `id` in ns: what the source can tell apart, not what we round to. */
export function clockResolution(id: number): bigint {
  switch (id) {
    case CLOCKID_REALTIME:
      return 1_000n;
    case CLOCKID_MONOTONIC:
      return nodeProcess ? 1n : 1_000n;
    case CLOCKID_PROCESS_CPUTIME_ID:
      return 1_000n;
    case CLOCKID_THREAD_CPUTIME_ID:
      return schedstatFs ? 1n : 1_000n;
    default:
      return fail(ERRNO_INVAL);
  }
}

/** clock_res_get and clock_time_get. */
export function clockFunctions(mem: GuestMemory) {
  return {
    clock_res_get: (id: number, resolutionPtr: number): number => {
      const res = clockResolution(id);
      mem.setU64(resolutionPtr, res);
      return ERRNO_SUCCESS;
    },
    // Hot (programs and the in-program FS read the clock per operation): no BigInt arithmetic on
    // the REALTIME path, one BigInt from the source on the MONOTONIC path.
    clock_time_get: (id: number, _precision: bigint, timePtr: number): number => {
      if (id === CLOCKID_REALTIME) mem.setU64FromNumber(timePtr, realtimeNs());
      else if (id === CLOCKID_MONOTONIC && nodeProcess) mem.setU64Unsigned(timePtr, nodeProcess.hrtime.bigint());
      else mem.setU64(timePtr, clockNow(id));
      return ERRNO_SUCCESS;
    },
  };
}
