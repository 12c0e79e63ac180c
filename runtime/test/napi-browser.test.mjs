// spindle/napi in Chromium (tests/napi/web, built with Vite): oxc-parser parses 300+ files
// (parseSync, then parse() on the addon's threads) and rolldown bundles a multi-file project
// from a memory filesystem, on the stock loader (@napi-rs/wasm-runtime, memfs on the page's
// thread) and on spindle through both routes (the packages' own loaders with the drop-in alias;
// the direct API); spindle's output must equal the stock loader's. Then the Vite example
// (runtime/examples/napi-vite) is built and used as a person would. Then the same jobs in Firefox
// ESR, where the stock loader runs too.
//
// Debian's Chromium and Firefox ESR through tools/browsers (never a downloaded browser). Needs
// `bash tests/napi/setup.sh` (tools/test.sh runs it).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { repoRoot, runtimeDir } from './helpers.mjs';
import { launch } from '../../tools/browsers/index.mjs';

const SETUP = "run 'bash tests/napi/setup.sh' (tools/test.sh does)";
const pages = await import(join(repoRoot, 'tests', 'napi', 'pages.mjs'));

let browser, out, server;

before(async () => {
  for (const p of [join(repoRoot, 'tests', 'napi', 'web', 'node_modules', 'vite'), join(runtimeDir, 'examples', 'napi-vite', 'node_modules', 'vite')]) {
    assert.ok(existsSync(p), `${p} is missing: ${SETUP}`);
  }
  assert.ok(existsSync(pages.peerWasm), `${pages.peerWasm} is missing: run 'bash tests/napi/peer/build.sh' (tools/test.sh does)`);
  out = mkdtempSync(join(tmpdir(), 'spindle-napi-pages-'));
  pages.buildPages(out);
  server = await pages.serve(out);
  browser = await launch('chromium'); // throws with what to install when Chromium is missing
});

after(async () => {
  await browser?.close();
  server?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

/**
 * The stock loader's result, the reference: up to 3 tries. Its rolldown page sometimes fails on
 * its own (a borrow error in BindingBundler.close on @napi-rs/wasm-runtime's threads,
 * docs/known-issues/rolldown-stock-browser-borrow.md); spindle's routes are never retried.
 */
async function stockJob(target, job) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pages.runJob(target, server.url, 'stock', job);
    } catch (e) {
      if (attempt === 3) throw e;
      console.error(`stock loader, ${job}, attempt ${attempt} failed (the peer's own error, retried): ${String(e).split('\n')[0]}`);
    }
  }
}

/** The oxc job on the three routes in one browser: spindle's output equals the stock loader's. */
async function parseEverywhere(target) {
  const stock = await stockJob(target, 'parse');
  assert.ok(stock.files >= 300, `the corpus has ${stock.files} files`);
  assert.equal(stock.asyncDigest, stock.digest);
  for (const route of ['dropin', 'direct']) {
    const r = await pages.runJob(target, server.url, route, 'parse');
    assert.deepEqual({ files: r.files, digest: r.digest, asyncDigest: r.asyncDigest }, { files: stock.files, digest: stock.digest, asyncDigest: stock.digest }, `${route} differs from the stock loader`);
  }
}

/** The rolldown job on the three routes in one browser. */
async function bundleEverywhere(target) {
  const stock = await stockJob(target, 'bundle');
  assert.ok(stock.files >= 3, `rolldown made ${stock.files} chunks; the project has two dynamic imports`);
  for (const route of ['dropin', 'direct']) {
    const r = await pages.runJob(target, server.url, route, 'bundle');
    assert.deepEqual({ files: r.files, bytes: r.bytes, digest: r.digest }, { files: stock.files, bytes: stock.bytes, digest: stock.digest }, `${route} differs from the stock loader`);
  }
}

/**
 * emnapi's messages from pool threads to the page ('async-send' ...) must not go where pool
 * workers receive them: a worker's JavaScript never runs again while it waits idle or runs a
 * thread (Atomics.wait, wasm), so what reaches it queues for as long as the page lives (measured:
 * a blocked worker's BroadcastChannel instance delivered all of 20,000 messages once it ran
 * again, Chromium and Firefox ESR). A listener in the page on a channel's name hears what every
 * worker's instance of that name would: it must hear none of 300 parse() calls' messages.
 */
async function channelQuiet(target) {
  const r = await pages.runJob(target, server.url, 'direct', 'channel');
  assert.deepEqual({ calls: r.calls, right: r.right }, { calls: 300, right: true }, 'parse() should give each file its own program');
  assert.equal(r.heard, 0, `'async-send' messages heard on spindle/napi's BroadcastChannels (${r.channelNames} names), which pool workers hold: ${r.heard} of 300 calls`);
}

/**
 * The addon's instance runs on the page's thread, where Atomics.wait (and wasm's atomic wait)
 * throws: a lock one of its pool threads holds must still be waited for there, not trap
 * ("Atomics.wait cannot be called in this context", which an addon's start function met there too,
 * before the hook exists: the `first` job's test below).
 */
async function lockOnPage(target) {
  const r = await pages.runJob(target, server.url, 'direct', 'lock');
  assert.equal(r.result, 'ok: locked after the holder');
}

/**
 * The page's instance of an addon must be its program's first: every wasm32-wasip1-threads
 * instance's start function (wasm-ld's __wasm_init_memory) claims the shared memory's
 * initialization, and one that finds another instance doing it waits, which Chromium's page
 * thread may not (a trap: "Atomics.wait cannot be called in this context"). Seen as rolldown's
 * direct load failing in Chromium on a loaded machine (1 of 24 runs of this file): a prewarmed
 * pool worker, booted while the addon compiled, got its WorkerInit and instantiated before the
 * page did. The page's instance is held back on purpose (tests/napi/web main.js, job
 * `first`) until some instance claims the initialization, for at most 3 s: none may have. (On a
 * machine so loaded that no spare worker booted during the page's slowed compile, 1 s, nothing
 * races and it passes.)
 */
async function ownerFirst(target) {
  const r = await pages.runJob(target, server.url, 'direct', 'first');
  assert.ok(r.slowed && r.held, `the page did not slow the compile (${r.slowed}) and hold its instance back (${r.held}), so this tested nothing: spindle no longer compiles with WebAssembly.compile, or reads the import object between the pool's start and the instantiate?`);
  assert.equal(r.flagAfterHold, 0, `a pool worker's instance claimed the shared memory's initialization before the page's instance existed (after ${r.heldMs} ms)`);
  assert.equal(r.flag, 2, 'the shared memory is initialized');
  assert.ok(r.workers >= 1, `the pool started ${r.workers} workers`);
}

describe('napi-rs packages on spindle/napi in Chromium', () => {
  test('oxc-parser: 300+ files through parseSync and parse(), drop-in and direct API, output equal to the stock loader\'s', () => parseEverywhere(browser));
  test('rolldown: a multi-file project from a memory filesystem, drop-in and direct API, output bytes equal to the stock loader\'s', () => bundleEverywhere(browser));
  test('oxc-parser\'s parse(), 300 calls: no emnapi message where a pool worker receives it', () => channelQuiet(browser));
  test('an addon waits on the page\'s thread for a lock its pool thread holds (our peer addon\'s contendedLock)', () => lockOnPage(browser));
  test('the addon\'s instance on the page comes before any pool worker\'s, however late the page makes it', () => ownerFirst(browser));
});

describe('napi-rs packages on spindle/napi in Firefox ESR (where the stock loader runs too)', () => {
  let firefox;
  before(async () => { firefox = await launch('firefox'); });
  after(async () => { await firefox?.close(); });

  test('oxc-parser: 300+ files, stock loader, drop-in and direct API, equal output', () => parseEverywhere(firefox));
  test('rolldown: the project from a memory filesystem, stock loader, drop-in and direct API, equal output', () => bundleEverywhere(firefox));
  test('oxc-parser\'s parse(), 300 calls: no emnapi message where a pool worker receives it', () => channelQuiet(firefox));
  test('an addon waits on the page\'s thread for a lock its pool thread holds (our peer addon\'s contendedLock)', () => lockOnPage(firefox));
  test('the addon\'s instance on the page comes before any pool worker\'s, however late the page makes it', () => ownerFirst(firefox));
});

describe('the Vite example (runtime/examples/napi-vite)', () => {
  let dist, site;
  after(() => { site?.stop(); if (dist) rmSync(dist, { recursive: true, force: true }); });

  test('vite build; the page bundles its two files with rolldown on spindle', async () => {
    const example = join(runtimeDir, 'examples', 'napi-vite');
    dist = mkdtempSync(join(tmpdir(), 'spindle-napi-vite-'));
    const b = spawnSync(process.execPath, [join(example, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--outDir', dist, '--emptyOutDir', '--logLevel', 'error'],
      { cwd: example, encoding: 'utf8', timeout: 300_000 });
    assert.equal(b.status, 0, `vite build failed:\n${b.stdout}${b.stderr}`);
    site = await pages.serve(dist);
    const page = await browser.newPage();
    try {
      await page.goto(site.url);
      await page.waitFor(() => document.getElementById('status').textContent === 'ready', null, { timeoutMs: 120_000 });
      await page.evaluate(() => document.getElementById('go').click());
      const output = await page.waitFor(() => (typeof window.exampleOutput === 'string' ? window.exampleOutput : null), null, { timeoutMs: 120_000 });
      assert.match(output, /\/\/ main\.js/);
      assert.match(output, /toUpperCase\(\)/, 'the imported function is bundled');
      assert.doesNotMatch(output, /whisper/, 'the unused export is tree-shaken');
    } finally {
      await page.close();
    }
  });
});
