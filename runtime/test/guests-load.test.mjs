// Loading a program from each kind of source the JS API accepts: a path, a file: URL (object and
// string), bytes, an ArrayBuffer, a compiled WebAssembly.Module; and a hand-made plain module.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import * as modules from './fixtures/modules.mjs';
import { exitGuard, guest, runGuest } from './helpers.mjs';

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

  test('a hand-made plain module (wasm-builder): fd_write + proc_exit(0)', async () => {
    const r = await runGuest(modules.hello(0));
    assert.equal(r.stdout, 'hand-made hello\n');
    assert.equal(r.code, 0);
  });
});
