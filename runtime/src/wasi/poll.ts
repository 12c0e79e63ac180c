/**
 * poll_oneoff: wait until the earliest clock subscription expires or any fd subscription is ready,
 * then report every subscription that is ready at that moment.
 *
 * Semantics (wasmtime-wasi preview1 unless noted):
 * - nsubscriptions == 0 is EINVAL (preview1 cannot sleep forever).
 * - Clock subscriptions on REALTIME or MONOTONIC, relative or ABSTIME; all deadlines are converted
 *   to the monotonic clock (clock.ts) at entry. CPU-time clocks are EINVAL. Clock events carry
 *   nbytes 0.
 * - FD_READ / FD_WRITE ask the descriptor (`readReady` / `writeReady`): stdin is ready when the host
 *   says a read would not block, stdout/stderr are always writable; ready fd events carry nbytes 1
 *   (the count is unknown; wasmtime reports 1 as well).
 * - An fd subscription the descriptor cannot serve (fd not open, FD_READ on stdout, ...) is ready at
 *   once with that errno in the event's `error` (EBADF). This is POSIX poll's POLLNVAL, and what
 *   wasi-libc's poll() expects; current wasmtime instead fails the whole call with EBADF.
 * - An unknown subscription tag or clock flag bit is EINVAL.
 *
 * Waiting: Atomics.wait on a private Int32Array nobody notifies (a plain timed sleep). Allowed in
 * Node's main thread and in workers; a browser main thread throws, and then poll_oneoff returns
 * ENOTSUP rather than spin. While an fd subscription is pending the wait is cut into slices of
 * POLL_SLICE_MS and readiness is asked again after each (the host contract has no wake-up signal).
 *
 * Thread rules: blocks only the calling thread; the sleep cell is per instance.
 */
import {
  CLOCKID_MONOTONIC,
  CLOCKID_REALTIME,
  ERRNO_INVAL,
  ERRNO_NOTSUP,
  ERRNO_SUCCESS,
  EVENT_ERROR,
  EVENT_FD_NBYTES,
  EVENT_SIZE,
  EVENT_TYPE,
  EVENT_USERDATA,
  EVENTTYPE_CLOCK,
  EVENTTYPE_FD_READ,
  EVENTTYPE_FD_WRITE,
  SUBCLOCKFLAGS_ALL,
  SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME,
  SUBSCRIPTION_CLOCK_FLAGS,
  SUBSCRIPTION_CLOCK_ID,
  SUBSCRIPTION_CLOCK_TIMEOUT,
  SUBSCRIPTION_FD,
  SUBSCRIPTION_SIZE,
  SUBSCRIPTION_TAG,
  SUBSCRIPTION_USERDATA,
} from './constants.js';
import { monotonicNow, realtimeNow } from './clock.js';
import { WasiErrno, fail } from './errno.js';
import type { FdTable } from './fd-table.js';
import { checkFlags } from './fd.js';
import type { GuestMemory } from './guest-memory.js';
import { newSharedBuffer } from '../shared-buffer.js';

/** How long to sleep before asking a pending fd again. */
const POLL_SLICE_MS = 10;

interface Subscription {
  readonly userdata: bigint;
  readonly type: number;
  /** Clock: monotonic deadline in ns. */
  readonly deadline?: bigint;
  /** Fd: asks the descriptor; throws WasiErrno when it cannot be polled. */
  readonly ready?: () => boolean;
}

/** A ready subscription as it will be written to the events array. */
interface Event {
  readonly sub: Subscription;
  readonly error: number;
}

/** Monotonic deadline for a clock subscription. */
function clockDeadline(id: number, timeout: bigint, flags: number): bigint {
  checkFlags(flags, SUBCLOCKFLAGS_ALL);
  const abstime = (flags & SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME) !== 0;
  const now = monotonicNow();
  if (id === CLOCKID_MONOTONIC) return abstime ? timeout : now + timeout;
  if (id === CLOCKID_REALTIME) {
    if (!abstime) return now + timeout;
    const left = timeout - realtimeNow();
    return now + (left > 0n ? left : 0n);
  }
  return fail(ERRNO_INVAL);
}

function readSubscription(mem: GuestMemory, fds: FdTable, at: number): Subscription {
  const userdata = mem.getU64(at + SUBSCRIPTION_USERDATA);
  const type = mem.getU8(at + SUBSCRIPTION_TAG);
  if (type === EVENTTYPE_CLOCK) {
    const id = mem.getU32(at + SUBSCRIPTION_CLOCK_ID);
    const timeout = mem.getU64(at + SUBSCRIPTION_CLOCK_TIMEOUT);
    const flags = mem.getU16(at + SUBSCRIPTION_CLOCK_FLAGS);
    return { userdata, type, deadline: clockDeadline(id, timeout, flags) };
  }
  if (type === EVENTTYPE_FD_READ || type === EVENTTYPE_FD_WRITE) {
    const fd = mem.getU32(at + SUBSCRIPTION_FD);
    const ready = () => {
      const d = fds.get(fd);
      return type === EVENTTYPE_FD_READ ? d.readReady() : d.writeReady();
    };
    return { userdata, type, ready };
  }
  return fail(ERRNO_INVAL);
}

/** Whether an fd subscription is ready now: an errno (ready with an error), true, or false. */
function probe(sub: Subscription): number | boolean {
  try {
    return sub.ready!();
  } catch (e) {
    if (e instanceof WasiErrno) return e.errno;
    throw e;
  }
}

function collectReady(subs: readonly Subscription[]): Event[] {
  const now = monotonicNow();
  const events: Event[] = [];
  for (const sub of subs) {
    if (sub.deadline !== undefined) {
      if (sub.deadline <= now) events.push({ sub, error: ERRNO_SUCCESS });
      continue;
    }
    const state = probe(sub);
    if (state === true) events.push({ sub, error: ERRNO_SUCCESS });
    else if (typeof state === 'number') events.push({ sub, error: state });
  }
  return events;
}

function writeEvent(mem: GuestMemory, at: number, ev: Event): void {
  mem.zero(at, EVENT_SIZE);
  mem.setU64(at + EVENT_USERDATA, ev.sub.userdata);
  mem.setU16(at + EVENT_ERROR, ev.error);
  mem.setU8(at + EVENT_TYPE, ev.sub.type);
  const readyFd = ev.sub.type !== EVENTTYPE_CLOCK && ev.error === ERRNO_SUCCESS;
  mem.setU64(at + EVENT_FD_NBYTES, readyFd ? 1n : 0n);
}

/** Milliseconds to sleep before the next readiness check (Infinity: no clock, no fd pending). */
function nextWaitMs(subs: readonly Subscription[]): number {
  let earliest: bigint | undefined;
  let fdPending = false;
  for (const sub of subs) {
    if (sub.deadline === undefined) fdPending = true;
    else if (earliest === undefined || sub.deadline < earliest) earliest = sub.deadline;
  }
  const untilDeadline =
    earliest === undefined ? Infinity : Number(earliest - monotonicNow()) / 1e6;
  return fdPending ? Math.min(untilDeadline, POLL_SLICE_MS) : untilDeadline;
}

/**
 * The sleeps of a poll that found nothing ready, for a thread that must not block (a hosted
 * thread, host-worker.ts: its poll_oneoff is a suspending import, jspi.ts): timers instead of
 * Atomics.wait, so the other threads of its worker run meanwhile.
 */
async function pollLater(subs: readonly Subscription[], finish: (events: Event[]) => number): Promise<number> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(0, nextWaitMs(subs)), 2 ** 31 - 1)));
    const events = collectReady(subs);
    if (events.length > 0) return finish(events);
  }
}

/** `suspending`: a poll that must wait returns a Promise of its errno instead of blocking (pollLater). */
export function pollFunctions(mem: GuestMemory, fds: FdTable, suspending = false) {
  let cell: Int32Array | undefined;

  /** Sleeps the calling thread for `ms` (ENOTSUP where blocking is forbidden). */
  const sleep = (ms: number): void => {
    try {
      cell ??= new Int32Array(newSharedBuffer(4));
      Atomics.wait(cell, 0, 0, Math.max(0, ms));
    } catch {
      fail(ERRNO_NOTSUP);
    }
  };

  return {
    poll_oneoff: (subsPtr: number, eventsPtr: number, nsubs: number, neventsPtr: number): number | Promise<number> => {
      const n = nsubs >>> 0;
      if (n === 0) fail(ERRNO_INVAL);
      const subsAt = mem.range(subsPtr, n * SUBSCRIPTION_SIZE);
      const eventsAt = mem.range(eventsPtr, n * EVENT_SIZE);
      mem.range(neventsPtr, 4);
      const subs: Subscription[] = [];
      for (let i = 0; i < n; i++) subs.push(readSubscription(mem, fds, subsAt + i * SUBSCRIPTION_SIZE));

      const finish = (events: Event[]): number => {
        events.forEach((ev, i) => writeEvent(mem, eventsAt + i * EVENT_SIZE, ev));
        mem.setU32(neventsPtr, events.length);
        return ERRNO_SUCCESS;
      };
      let events = collectReady(subs);
      if (events.length === 0 && suspending) return pollLater(subs, finish);
      while (events.length === 0) {
        sleep(nextWaitMs(subs));
        events = collectReady(subs);
      }
      return finish(events);
    },
  };
}
