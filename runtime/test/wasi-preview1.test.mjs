// The assembled import object: completeness, linking, the errno guard, proc_* and sched_yield.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WASI_PREVIEW1_FUNCTIONS } from '../dist/wasi/preview1.js';
import * as C from '../dist/wasi/constants.js';
import { shareYieldWords } from '../dist/wasi/proc.js';
import { makeWasi, FakeExit } from './wasi-fake-host.mjs';

test('exports all 46 preview1 functions and nothing else', () => {
  const { wasi } = makeWasi();
  assert.equal(WASI_PREVIEW1_FUNCTIONS.length, 46);
  assert.deepEqual(Object.keys(wasi).sort(), [...WASI_PREVIEW1_FUNCTIONS].sort());
  for (const f of Object.values(wasi)) assert.equal(typeof f, 'function');
});

test('a module importing every function links and can call through wasm', () => {
  // Hand-assembled module: imports fd_write (i32 x4 -> i32) and exports a function calling it.
  const { wasi, memory, put, iovs, text } = makeWasi();
  const sig = [0x60, 0x04, 0x7f, 0x7f, 0x7f, 0x7f, 0x01, 0x7f];
  const name = [...Buffer.from('wasi_snapshot_preview1')];
  const fn = [...Buffer.from('fd_write')];
  const mem = [...Buffer.from('env')], memName = [...Buffer.from('memory')];
  const section = (id, body) => [id, body.length, ...body];
  const imports = [
    0x02,
    [name.length, ...name, fn.length, ...fn, 0x00, 0x00],
    [mem.length, ...mem, memName.length, ...memName, 0x02, 0x03, 0x01, 0x0a],
  ];
  const importBody = [imports[0], ...imports[1], ...imports[2]];
  const code = [0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0x20, 0x03, 0x10, 0x00, 0x0b];
  const bytes = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, ...sig]),
    ...section(2, importBody),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, 0x03, ...Buffer.from('run'), 0x00, 0x01]),
    ...section(10, [0x01, code.length, ...code]),
  ]);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
    wasi_snapshot_preview1: wasi,
    env: { memory },
  });
  const n = put(1000, 'through wasm\n');
  iovs(100, [[1000, n]]);
  assert.equal(instance.exports.run(1, 100, 1, 200), C.ERRNO_SUCCESS);
  assert.equal(text(1), 'through wasm\n');
});

test('proc_exit unwinds with the host exception, untouched', () => {
  const { wasi } = makeWasi();
  assert.throws(() => wasi.proc_exit(3), (e) => e instanceof FakeExit && e.code === 3);
  assert.throws(() => wasi.proc_exit(-1), (e) => e instanceof FakeExit && e.code === 0xffffffff);
});

test('proc_raise is ENOTSUP (wasmtime), EINVAL for a signal out of range', () => {
  const { wasi } = makeWasi();
  assert.equal(wasi.proc_raise(6), C.ERRNO_NOTSUP);
  assert.equal(wasi.proc_raise(31), C.ERRNO_INVAL);
});

test('sched_yield succeeds', () => {
  assert.equal(makeWasi().wasi.sched_yield(), C.ERRNO_SUCCESS);
});

test('sched_yield while other threads sleep in it: every call returns and leaves their count as it was', () => {
  // A run of yields beside 3 sleeping threads: each sleep after the first asks for twice the
  // previous one, up to a bound, so 40 yields in a row end (unbounded growth would hang here).
  const sleepers = new Int32Array(new SharedArrayBuffer(4));
  shareYieldWords(sleepers);
  Atomics.store(sleepers, 0, 3);
  const { wasi } = makeWasi();
  for (let i = 0; i < 40; i++) assert.equal(wasi.sched_yield(), C.ERRNO_SUCCESS);
  assert.equal(Atomics.load(sleepers, 0), 3);
  Atomics.store(sleepers, 0, 0);
  for (let i = 0; i < 40; i++) assert.equal(wasi.sched_yield(), C.ERRNO_SUCCESS);
  assert.equal(Atomics.load(sleepers, 0), 0);
});

test('an exception from a host method becomes EIO and is reported, never thrown into wasm', () => {
  const seen = [];
  const { wasi, put, iovs } = makeWasi({
    writeThrows: true,
    wasiOptions: { onUnexpectedError: (fn, e) => seen.push([fn, e.message]) },
  });
  iovs(100, [[1000, put(1000, 'x')]]);
  assert.equal(wasi.fd_write(1, 100, 1, 200), C.ERRNO_IO);
  assert.deepEqual(seen, [['fd_write', 'sink exploded']]);
});

test('wrong argument types from a JS caller become EIO (reported), not an exception', () => {
  const seen = [];
  const { wasi } = makeWasi({ wasiOptions: { onUnexpectedError: (fn) => seen.push(fn) } });
  // precision is ignored, so a number there is harmless.
  assert.equal(wasi.clock_time_get(C.CLOCKID_MONOTONIC, 0, 8), C.ERRNO_SUCCESS);
  // An i64 parameter given as a JS number cannot enter BigInt math: guarded, not thrown.
  assert.equal(wasi.fd_seek(1, 5, 0, 8), C.ERRNO_IO);
  assert.deepEqual(seen, ['fd_seek']);
});
