// args_*/environ_*: UTF-8 sizes (not UTF-16 units), layout, EFAULT without partial writes,
// and guest-memory behaviour (i32 pointers, growth seen from another handle).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as C from '../dist/wasi/constants.js';
import { makeWasi, OOB, NEG } from './wasi-fake-host.mjs';

const ARGS = ['prog', 'héllo', '日本語', '🦀', ''];
const ENV = ['A=1', 'CAFÉ=crème'];
const utf8Len = (s) => Buffer.byteLength(s, 'utf8');

function readStrings(w, ptrsAt, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    let p = w.u32(ptrsAt + i * 4);
    const start = p;
    while (w.u8(p) !== 0) p++;
    out.push(Buffer.from(w.get(start, p - start)).toString('utf8'));
  }
  return out;
}

test('args_sizes_get counts UTF-8 bytes plus one NUL per argument', () => {
  const w = makeWasi({ args: ARGS });
  assert.equal(w.wasi.args_sizes_get(0, 4), C.ERRNO_SUCCESS);
  assert.equal(w.u32(0), ARGS.length);
  assert.equal(w.u32(4), ARGS.reduce((n, a) => n + utf8Len(a) + 1, 0));
});

test('args_get writes pointers and NUL-terminated UTF-8 strings that fit the announced size', () => {
  const w = makeWasi({ args: ARGS });
  w.wasi.args_sizes_get(0, 4);
  const size = w.u32(4);
  w.put(2000 + size, new Uint8Array([0xaa]));
  assert.equal(w.wasi.args_get(100, 2000), C.ERRNO_SUCCESS);
  assert.deepEqual(readStrings(w, 100, ARGS.length), ARGS);
  assert.equal(w.u32(100), 2000);
  assert.equal(w.u8(2000 + size), 0xaa, 'nothing written past the announced size');
});

test('environ_sizes_get / environ_get round-trip KEY=VALUE with non-ASCII', () => {
  const w = makeWasi({ env: ENV });
  assert.equal(w.wasi.environ_sizes_get(0, 4), C.ERRNO_SUCCESS);
  assert.equal(w.u32(0), 2);
  assert.equal(w.u32(4), ENV.reduce((n, e) => n + utf8Len(e) + 1, 0));
  assert.equal(w.wasi.environ_get(100, 3000), C.ERRNO_SUCCESS);
  assert.deepEqual(readStrings(w, 100, 2), ENV);
});

test('empty environment: zero count, zero size, environ_get writes nothing', () => {
  const w = makeWasi({ env: [] });
  w.setU32(0, 7);
  w.setU32(4, 7);
  assert.equal(w.wasi.environ_sizes_get(0, 4), C.ERRNO_SUCCESS);
  assert.deepEqual([w.u32(0), w.u32(4)], [0, 0]);
  assert.equal(w.wasi.environ_get(OOB + 100, OOB + 100), C.ERRNO_SUCCESS);
});

test('out-of-range pointers are EFAULT and leave memory untouched', () => {
  const w = makeWasi({ args: ARGS });
  assert.equal(w.wasi.args_sizes_get(OOB, 0), C.ERRNO_FAULT);
  assert.equal(w.wasi.args_sizes_get(0, NEG), C.ERRNO_FAULT);
  assert.equal(w.wasi.args_get(100, 65536 - 5), C.ERRNO_FAULT, 'buffer runs past the end');
  assert.equal(w.u32(100), 0, 'no pointer written before the buffer check failed');
  assert.equal(w.wasi.args_get(65536 - 8, 2000), C.ERRNO_FAULT, 'pointer array runs past the end');
  assert.equal(w.u8(2000), 0);
  assert.equal(w.wasi.environ_sizes_get(NEG, 0), C.ERRNO_FAULT);
});

test('memory grown after the import object was built (by another handle) is reachable', () => {
  const w = makeWasi({ args: ['x'] });
  assert.equal(w.wasi.args_sizes_get(65536, 65540), C.ERRNO_FAULT);
  w.memory.grow(1); // as another thread's memory.grow would
  assert.equal(w.wasi.args_sizes_get(65536, 65540), C.ERRNO_SUCCESS);
  assert.equal(w.u32(65536), 1);
  assert.equal(w.wasi.args_sizes_get(2 * 65536 - 2, 0), C.ERRNO_FAULT);
});

test('a non-shared memory that grows (buffer detached) still works', async () => {
  const { wasiPreview1 } = await import('../dist/wasi/preview1.js');
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
  const host = { memory, args: ['ab'], env: [], threadId: 0 };
  const wasi = wasiPreview1(host);
  assert.equal(wasi.args_sizes_get(0, 4), C.ERRNO_SUCCESS);
  memory.grow(1);
  assert.equal(wasi.args_sizes_get(70000, 70004), C.ERRNO_SUCCESS);
  assert.equal(new DataView(memory.buffer).getUint32(70004, true), 3);
});

test('first access to grown memory through a plain field write (no prior range check) works', () => {
  const w = makeWasi();
  assert.equal(w.wasi.clock_time_get(C.CLOCKID_MONOTONIC, 0n, 8), C.ERRNO_SUCCESS);
  w.memory.grow(1);
  assert.equal(w.wasi.clock_time_get(C.CLOCKID_MONOTONIC, 0n, 65536 + 8), C.ERRNO_SUCCESS);
  assert.ok(w.u64(65536 + 8) > 0n);
  assert.equal(w.wasi.fd_fdstat_get(1, 65536 + 100), C.ERRNO_SUCCESS);
  assert.equal(w.u8(65536 + 100), C.FILETYPE_CHARACTER_DEVICE);
});

test('building the import object reads nothing from the host (memory may not exist yet)', async () => {
  const { wasiPreview1 } = await import('../dist/wasi/preview1.js');
  let exported;
  const memory = { get buffer() { return exported.buffer; } };
  const wasi = wasiPreview1({ memory, get args() { throw new Error('read too early'); }, env: [] });
  assert.equal(Object.keys(wasi).length, 46);
  exported = new WebAssembly.Memory({ initial: 1 });
  assert.equal(wasi.random_get(0, 16), C.ERRNO_SUCCESS);
});
