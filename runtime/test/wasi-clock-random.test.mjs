// clock_res_get, clock_time_get (incl. cross-thread monotonic consistency), random_get.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import * as C from '../dist/wasi/constants.js';
import { makeWasi, OOB, NEG } from './wasi-fake-host.mjs';

const CLOCKS = [
  C.CLOCKID_REALTIME,
  C.CLOCKID_MONOTONIC,
  C.CLOCKID_PROCESS_CPUTIME_ID,
  C.CLOCKID_THREAD_CPUTIME_ID,
];

function now(w, id) {
  assert.equal(w.wasi.clock_time_get(id, 1n, 8), C.ERRNO_SUCCESS);
  return w.u64(8);
}

test('every clock has a positive resolution; unknown ids are EINVAL; EFAULT for bad pointers', () => {
  const w = makeWasi();
  for (const id of CLOCKS) {
    assert.equal(w.wasi.clock_res_get(id, 16), C.ERRNO_SUCCESS);
    assert.ok(w.u64(16) > 0n);
  }
  assert.equal(w.wasi.clock_res_get(4, 16), C.ERRNO_INVAL);
  assert.equal(w.wasi.clock_time_get(4, 0n, 16), C.ERRNO_INVAL);
  assert.equal(w.wasi.clock_time_get(-1, 0n, 16), C.ERRNO_INVAL);
  assert.equal(w.wasi.clock_time_get(C.CLOCKID_MONOTONIC, 0n, OOB), C.ERRNO_FAULT);
  assert.equal(w.wasi.clock_res_get(C.CLOCKID_MONOTONIC, NEG), C.ERRNO_FAULT);
});

test('REALTIME is nanoseconds since the epoch (agrees with Date.now to within a second)', () => {
  const w = makeWasi();
  const ns = now(w, C.CLOCKID_REALTIME);
  const ms = Number(ns / 1_000_000n);
  assert.ok(Math.abs(ms - Date.now()) < 1000, `${ms} vs ${Date.now()}`);
});

test('MONOTONIC and the CPU clocks never go backwards; CPU clocks advance under load', () => {
  const w = makeWasi();
  for (const id of CLOCKS.slice(1)) {
    const a = now(w, id);
    let x = 0;
    for (let i = 0; i < 5e6; i++) x += i % 7;
    assert.ok(x > 0);
    const b = now(w, id);
    assert.ok(b >= a, `clock ${id}: ${b} < ${a}`);
    if (id !== C.CLOCKID_MONOTONIC) assert.ok(b > a, `cpu clock ${id} did not advance`);
  }
});

test('MONOTONIC is one clock across threads: a worker reading between two main reads lies between', async () => {
  const w = makeWasi();
  const url = new URL('../dist/wasi/preview1.js', import.meta.url).href;
  const src = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(url)}).then(({ wasiPreview1 }) => {
      const memory = new WebAssembly.Memory({ initial: 1 });
      const wasi = wasiPreview1({ memory, args: [], env: [], threadId: 1 });
      wasi.clock_time_get(1, 0n, 8);
      parentPort.postMessage(new DataView(memory.buffer).getBigUint64(8, true));
    });`;
  const before = now(w, C.CLOCKID_MONOTONIC);
  const worker = new Worker(src, { eval: true });
  const inWorker = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const after = now(w, C.CLOCKID_MONOTONIC);
  await worker.terminate();
  assert.ok(before <= inWorker && inWorker <= after, `${before} <= ${inWorker} <= ${after}`);
});

test('random_get fills large buffers (> 65536 bytes, in chunks) into shared memory', () => {
  const w = makeWasi();
  const len = 200_000;
  w.memory.grow(4);
  assert.equal(w.wasi.random_get(1000, len), C.ERRNO_SUCCESS);
  const bytes = w.get(1000, len);
  const counts = new Uint32Array(256);
  for (const b of bytes) counts[b]++;
  assert.ok(counts.every((c) => c > 0), 'every byte value occurs in 200 kB of random data');
  // The last chunk was written too (not just the first 65536 bytes).
  assert.ok(w.get(1000 + len - 64, 64).some((b) => b !== 0));
  assert.equal(w.u8(1000 + len), 0, 'nothing past the end');
});

test('random_get: zero length succeeds; out of range is EFAULT and writes nothing', () => {
  const w = makeWasi();
  assert.equal(w.wasi.random_get(0, 0), C.ERRNO_SUCCESS);
  assert.equal(w.wasi.random_get(65536 - 10, 11), C.ERRNO_FAULT);
  assert.ok(w.get(65536 - 10, 10).every((b) => b === 0));
  assert.equal(w.wasi.random_get(NEG, 4), C.ERRNO_FAULT);
});
