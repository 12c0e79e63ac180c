// Memory growth seen by other threads, in the browsers (issue 15, items 3 and 4): one thread
// mallocs fresh 256 KiB blocks (the heap grows), another memsets and memcpys each
// (tests/guests/c/grow_consumer.c), with wasi-libc's dlmalloc and with spindle-alloc, RUNS times in
// a row in one page of each engine (Chromium, Firefox ESR, WebKitGTK; tools/browsers). Each run
// must exit 0 with the checksum; the first run that does not ends the test with its output.
// Chromium's V8 refreshes another thread's view of a shared memory's size lazily: it passes
// because spindle's load rewrites the program's bulk memory operations (thread-guards.ts, on the
// browser path too); without that rewrite every run trapped there.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { exitGuard, guest, guestsBuild } from './helpers.mjs';
import { forEachEngine, launchForTests, serve } from './browsers.mjs';

exitGuard(after);

const RUNS = 20;
const EXPECTED = 'grow_consumer blocks=256 bytes=67108864 checksum=d29cfc347d15aa25\n';
/** All RUNS runs of one program (generous: a loaded 2-core machine). */
const TIMEOUT_MS = 600_000;
const PROGRAMS = [['dlmalloc', 'grow_consumer'], ['spindle-alloc', 'grow_consumer_spindle_alloc']];
let server;
before(async () => {
  for (const [, name] of PROGRAMS) guest('c', name); // fails with the build command when missing
  server = await serve(guestsBuild);
});
after(() => { server?.close(); });

/**
 * Runs in the page: `runs` runs of `wasm` through the JS API, one after the other; stops at the
 * first one that does not exit 0 with `expected`. Resolves { done, failure? }.
 */
async function runMany({ wasm, runs, expected }) {
  const spindle = await import('/spindle/browser.js');
  const program = await spindle.load(wasm);
  for (let i = 0; i < runs; i++) {
    const out = [], err = [];
    const dec = new TextDecoder();
    let code;
    try {
      code = await spindle.createProgram(program, { stdout: (b) => out.push(dec.decode(b)), stderr: (b) => err.push(dec.decode(b)) }).start();
    } catch (e) {
      return { done: i, failure: { run: i + 1, error: `${e.name}: ${e.message}` } };
    }
    if (code !== 0 || out.join('') !== expected) return { done: i, failure: { run: i + 1, code, stdout: out.join(''), stderr: err.join('') } };
  }
  return { done: runs };
}

forEachEngine((engine, name) => describe(`${name}: producer/consumer of fresh heap memory never traps`, () => {
  let browser;
  before(async () => { browser = await launchForTests(engine); });
  after(async () => { await browser?.close(); });

  for (const [alloc, wasm] of PROGRAMS) {
    test(`${alloc}: ${RUNS} runs in a row exit 0 with the checksum`, { timeout: TIMEOUT_MS }, async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${server.url}c/`);
        const r = await page.evaluate(runMany, { wasm: `${wasm}.wasm`, runs: RUNS, expected: EXPECTED });
        assert.equal(r.done, RUNS, `${r.done} of ${RUNS} runs passed; run ${r.failure?.run}: ${JSON.stringify(r.failure)}`);
      } finally {
        await page.close();
      }
    });
  }
}));

