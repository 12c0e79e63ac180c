// Loading a program from each kind of source the JS API accepts: a path, a file: URL (object and
// string), bytes, an ArrayBuffer, a compiled WebAssembly.Module; and a hand-made plain module.
// Also the embedding handle: load() once, createProgram() per run, start() and kill().
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import * as modules from './fixtures/modules.mjs';
import { exitGuard, guest, runGuest } from './helpers.mjs';
import { createProgram, load } from '../dist/index.js';

exitGuard(after);

describe('sources', () => {
  const path = guest('c', 'threads4');
  const expectThreads4 = (r) => {
    assert.match(r.stdout, /total 500000500000\n$/);
    assert.equal(r.code, 0);
  };

  test('a path', async () => expectThreads4(await runGuest(path)));
  test('a file: URL object', async () => expectThreads4(await runGuest(pathToFileURL(path))));
  test('a file: URL string', async () => expectThreads4(await runGuest(pathToFileURL(path).href)));
  test('a Uint8Array', async () => expectThreads4(await runGuest(new Uint8Array(readFileSync(path)))));
  test('an ArrayBuffer', async () => {
    const b = readFileSync(path);
    expectThreads4(await runGuest(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
  });

  test('argv[0] is the file base name for a path, and for a URL', async () => {
    const p = guest('c', 'args_env');
    for (const src of [p, pathToFileURL(p)]) {
      const r = await runGuest(src);
      assert.match(r.stdout, /^argc 1\nargv\[0\]=args_env\.wasm /);
    }
  });

  test('a compiled WebAssembly.Module of a plain wasip1 program (defines its own memory)', async () => {
    const r = await runGuest(new WebAssembly.Module(readFileSync(guest('rust-wasip1', 'hello'))));
    assert.equal(r.stdout, 'hello from rust\n');
    assert.equal(r.code, 0);
  });

  test('a compiled WebAssembly.Module that imports a shared memory, with the memory option', async () => {
    const memory = new WebAssembly.Memory({ initial: 17, maximum: 16384, shared: true });
    const r = await runGuest(new WebAssembly.Module(readFileSync(path)), { memory });
    expectThreads4(r);
  });

  test('a single-threaded module that imports a non-shared memory (the host creates it)', async () => {
    const r = await runGuest(modules.helloImportedMemory());
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'hello from imported memory\n', '']);
  });

  test('a hand-made plain module (wasm-builder): fd_write + proc_exit(0)', async () => {
    const r = await runGuest(modules.hello(0));
    assert.equal(r.stdout, 'hand-made hello\n');
    assert.equal(r.code, 0);
  });
});

describe('embedding: load + createProgram', () => {
  const capture = () => {
    const out = [];
    return { out, sink: (c) => out.push(Buffer.from(c).toString()) };
  };

  test('one load, two runs with different arguments (each run has its own memory)', async () => {
    const program = await load(guest('c', 'exit_in_thread'));
    const a = capture(), b = capture();
    const [codeA, codeB] = await Promise.all([
      createProgram(program, { args: ['11'], stdout: a.sink, stderr: () => {}, stdin: '' }).start(),
      createProgram(program, { args: ['12'], stdout: b.sink, stderr: () => {}, stdin: '' }).start(),
    ]);
    assert.deepEqual([codeA, codeB], [11, 12]);
    assert.equal(a.out.join(''), 'main joining\nthread calling exit(11)\n');
    assert.equal(b.out.join(''), 'main joining\nthread calling exit(12)\n');
  });

  test('start() twice returns the same exit', async () => {
    const p = createProgram(await load(guest('c', 'exit_in_thread')), { args: ['9'], stdout: () => {}, stdin: '' });
    assert.equal(await p.start(), 9);
    assert.equal(await p.start(), 9);
  });

  test('kill() ends a program whose threads spin and whose main sleeps forever', async () => {
    const { out, sink } = capture();
    const p = createProgram(await load(guest('c', 'forever')), { stdout: sink, stderr: () => {}, stdin: '' });
    const exit = p.start();
    // Wait (bounded) until the program says it runs, then kill it.
    for (let i = 0; i < 600 && !out.join('').includes('running'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(out.join(''), 'running\n');
    p.kill(99);
    assert.equal(await exit, 99);
  });

  test('kill() with the default code', async () => {
    const p = createProgram(await load(guest('c', 'forever')), { stdout: () => {}, stderr: () => {}, stdin: '' });
    const exit = p.start();
    p.kill();
    assert.equal(await exit, 137);
  });
});
