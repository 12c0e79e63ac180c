// poll_oneoff: struct layouts (subscription 48 bytes, event 32 bytes), clocks, fds, errors.
// Behaviour only: durations are checked as "at least the timeout", never as upper bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as C from '../dist/wasi/constants.js';
import { makeWasi, OOB } from './wasi-fake-host.mjs';

const SUBS = 4096, EVENTS = 8192, NEVENTS = 64;

function clockSub(w, i, { userdata, id = C.CLOCKID_MONOTONIC, timeout, flags = 0 }) {
  const at = SUBS + i * 48;
  w.setU64(at, userdata);
  w.setU8(at + 8, C.EVENTTYPE_CLOCK);
  w.setU32(at + 16, id);
  w.setU64(at + 24, timeout);
  w.setU64(at + 32, 0n);
  w.setU16(at + 40, flags);
}

function fdSub(w, i, { userdata, type, fd }) {
  const at = SUBS + i * 48;
  w.setU64(at, userdata);
  w.setU8(at + 8, type);
  w.setU32(at + 16, fd);
}

function events(w) {
  const n = w.u32(NEVENTS);
  return Array.from({ length: n }, (_, i) => {
    const at = EVENTS + i * 32;
    return { userdata: w.u64(at), error: w.u16(at + 8), type: w.u8(at + 10), nbytes: w.u64(at + 16), flags: w.u16(at + 24) };
  });
}

const poll = (w, n) => w.wasi.poll_oneoff(SUBS, EVENTS, n, NEVENTS);

test('a relative 20 ms MONOTONIC clock returns its event after at least 20 ms', () => {
  const w = makeWasi();
  clockSub(w, 0, { userdata: 0x1122334455667788n, timeout: 20_000_000n });
  const t0 = process.hrtime.bigint();
  assert.equal(poll(w, 1), C.ERRNO_SUCCESS);
  const elapsed = process.hrtime.bigint() - t0;
  assert.ok(elapsed >= 20_000_000n, `slept ${elapsed} ns`);
  assert.deepEqual(events(w), [
    { userdata: 0x1122334455667788n, error: 0, type: C.EVENTTYPE_CLOCK, nbytes: 0n, flags: 0 },
  ]);
});

test('a relative REALTIME clock also sleeps at least its timeout', () => {
  const w = makeWasi();
  clockSub(w, 0, { userdata: 5n, id: C.CLOCKID_REALTIME, timeout: 20_000_000n });
  const t0 = process.hrtime.bigint();
  assert.equal(poll(w, 1), C.ERRNO_SUCCESS);
  assert.ok(process.hrtime.bigint() - t0 >= 20_000_000n);
  assert.equal(events(w)[0].userdata, 5n);
});

test('ABSTIME clocks: MONOTONIC deadline from clock_time_get, REALTIME deadline in the past', () => {
  const w = makeWasi();
  w.wasi.clock_time_get(C.CLOCKID_MONOTONIC, 0n, 16);
  const deadline = w.u64(16) + 20_000_000n;
  clockSub(w, 0, { userdata: 1n, timeout: deadline, flags: C.SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME });
  assert.equal(poll(w, 1), C.ERRNO_SUCCESS);
  w.wasi.clock_time_get(C.CLOCKID_MONOTONIC, 0n, 16);
  assert.ok(w.u64(16) >= deadline);
  assert.equal(events(w)[0].userdata, 1n);

  clockSub(w, 0, { userdata: 2n, id: C.CLOCKID_REALTIME, timeout: 1_000_000_000n, flags: 1 });
  assert.equal(poll(w, 1), C.ERRNO_SUCCESS);
  assert.deepEqual(events(w).map((e) => e.userdata), [2n]);
});

test('several clocks: wakes at the earliest and reports only the ones that are due', () => {
  const w = makeWasi();
  clockSub(w, 0, { userdata: 10n, timeout: 60_000_000_000n });
  clockSub(w, 1, { userdata: 11n, timeout: 10_000_000_000n });
  clockSub(w, 2, { userdata: 12n, timeout: 0n });
  assert.equal(poll(w, 3), C.ERRNO_SUCCESS);
  assert.deepEqual(events(w).map((e) => e.userdata), [12n]);
});

test('FD_WRITE on stdout/stderr is ready at once, before a long clock', () => {
  const w = makeWasi();
  clockSub(w, 0, { userdata: 1n, timeout: 60_000_000_000n });
  fdSub(w, 1, { userdata: 2n, type: C.EVENTTYPE_FD_WRITE, fd: 1 });
  fdSub(w, 2, { userdata: 3n, type: C.EVENTTYPE_FD_WRITE, fd: 2 });
  assert.equal(poll(w, 3), C.ERRNO_SUCCESS);
  assert.deepEqual(events(w), [
    { userdata: 2n, error: 0, type: C.EVENTTYPE_FD_WRITE, nbytes: 1n, flags: 0 },
    { userdata: 3n, error: 0, type: C.EVENTTYPE_FD_WRITE, nbytes: 1n, flags: 0 },
  ]);
});

test('FD_READ on stdin: ready when the host says so; otherwise the clock fires first', () => {
  const ready = makeWasi({ stdin: ['x'] });
  fdSub(ready, 0, { userdata: 7n, type: C.EVENTTYPE_FD_READ, fd: 0 });
  assert.equal(poll(ready, 1), C.ERRNO_SUCCESS);
  assert.deepEqual(events(ready).map((e) => [e.userdata, e.type, e.error]), [[7n, C.EVENTTYPE_FD_READ, 0]]);

  const idle = makeWasi({ stdinReady: false });
  fdSub(idle, 0, { userdata: 7n, type: C.EVENTTYPE_FD_READ, fd: 0 });
  clockSub(idle, 1, { userdata: 8n, timeout: 30_000_000n });
  assert.equal(poll(idle, 2), C.ERRNO_SUCCESS);
  assert.deepEqual(events(idle).map((e) => e.userdata), [8n]);
});

test('FD_READ on stdin becoming ready while waiting wakes the poll (no clock)', () => {
  const w = makeWasi({ stdinReady: false });
  let asks = 0;
  w.host.stdinReady = () => ++asks >= 3;
  fdSub(w, 0, { userdata: 4n, type: C.EVENTTYPE_FD_READ, fd: 0 });
  assert.equal(poll(w, 1), C.ERRNO_SUCCESS);
  assert.deepEqual(events(w).map((e) => e.userdata), [4n]);
  assert.ok(asks >= 3);
});

test('fd subscriptions the fd cannot serve are events with error EBADF', () => {
  const w = makeWasi();
  fdSub(w, 0, { userdata: 1n, type: C.EVENTTYPE_FD_READ, fd: 9 });
  fdSub(w, 1, { userdata: 2n, type: C.EVENTTYPE_FD_READ, fd: 1 });
  fdSub(w, 2, { userdata: 3n, type: C.EVENTTYPE_FD_WRITE, fd: 0 });
  clockSub(w, 3, { userdata: 4n, timeout: 60_000_000_000n });
  assert.equal(poll(w, 4), C.ERRNO_SUCCESS);
  assert.deepEqual(events(w).map((e) => [e.userdata, e.error, e.type, e.nbytes]), [
    [1n, C.ERRNO_BADF, C.EVENTTYPE_FD_READ, 0n],
    [2n, C.ERRNO_BADF, C.EVENTTYPE_FD_READ, 0n],
    [3n, C.ERRNO_BADF, C.EVENTTYPE_FD_WRITE, 0n],
  ]);
});

test('errors: no subscriptions, bad tag, bad clock id or flags, bad pointers', () => {
  const w = makeWasi();
  assert.equal(poll(w, 0), C.ERRNO_INVAL);
  w.setU8(SUBS + 8, 3);
  assert.equal(poll(w, 1), C.ERRNO_INVAL);
  clockSub(w, 0, { userdata: 0n, id: C.CLOCKID_PROCESS_CPUTIME_ID, timeout: 1n });
  assert.equal(poll(w, 1), C.ERRNO_INVAL);
  clockSub(w, 0, { userdata: 0n, id: 7, timeout: 1n });
  assert.equal(poll(w, 1), C.ERRNO_INVAL);
  clockSub(w, 0, { userdata: 0n, timeout: 1n, flags: 2 });
  assert.equal(poll(w, 1), C.ERRNO_INVAL);
  clockSub(w, 0, { userdata: 0n, timeout: 0n });
  assert.equal(w.wasi.poll_oneoff(OOB, EVENTS, 1, NEVENTS), C.ERRNO_FAULT);
  assert.equal(w.wasi.poll_oneoff(SUBS, 65536 - 31, 1, NEVENTS), C.ERRNO_FAULT);
  assert.equal(w.wasi.poll_oneoff(SUBS, EVENTS, 1, OOB + 1), C.ERRNO_FAULT);
  assert.equal(w.wasi.poll_oneoff(SUBS, EVENTS, 2000, NEVENTS), C.ERRNO_FAULT, '2000 subs run past memory');
});
