// Shared buffers by capability (runtime/src/shared-buffer.ts): where the global name
// `SharedArrayBuffer` is missing (as in WebKitGTK), the runtime still makes shared buffers, from
// the constructor of a shared wasm memory's buffer, and tells shared buffers from others by their
// tag. Checked in a Node worker whose global name is deleted (the main thread keeps it: Node's own
// worker start-up needs it there). The browser side: browser.test.mjs deletes it in a page.
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { test } from 'node:test';
import { isSharedBuffer, newSharedBuffer, sharingProblem } from '../dist/shared-buffer.js';
import { runtimeDir } from './helpers.mjs';

const module = pathToFileURL(join(runtimeDir, 'dist', 'shared-buffer.js')).href;

test('without the global name: the constructor comes from a shared wasm memory, and the buffer is shared', async () => {
  const src = `(async () => {
    const { parentPort } = require('node:worker_threads');
    delete globalThis.SharedArrayBuffer;
    const m = await import(${JSON.stringify(module)});
    const b = m.newSharedBuffer(16);
    new Int32Array(b)[1] = 42;
    parentPort.postMessage({ named: typeof SharedArrayBuffer, shared: m.isSharedBuffer(b), bytes: b.byteLength,
      plain: m.isSharedBuffer(new ArrayBuffer(8)), problem: m.sharingProblem() ?? null, buffer: b });
  })();`;
  const got = await new Promise((resolve, reject) => {
    const w = new Worker(src, { eval: true });
    w.once('message', (m) => { resolve(m); void w.terminate(); });
    w.once('error', reject);
  });
  assert.deepEqual({ ...got, buffer: undefined }, { named: 'undefined', shared: true, bytes: 16, plain: false, problem: null, buffer: undefined });
  assert.ok(isSharedBuffer(got.buffer), 'the buffer reached the main thread as a SharedArrayBuffer');
  assert.equal(new Int32Array(got.buffer)[1], 42, 'the main thread sees what the worker wrote: one memory');
});

test('with the global name: the same answers; a plain buffer or a view is not shared', () => {
  assert.ok(isSharedBuffer(newSharedBuffer(8)));
  assert.ok(isSharedBuffer(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer));
  assert.ok(!isSharedBuffer(new ArrayBuffer(8)));
  assert.ok(!isSharedBuffer(new Int32Array(newSharedBuffer(8))));
  assert.equal(sharingProblem(), undefined, 'Node can post a shared memory to another thread');
});
