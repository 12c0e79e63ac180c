// The runtime in a real browser (issue #6): Debian's Chromium driven by playwright-core (never a
// downloaded browser), pages served by `spindle serve` (a child process, port 0). Guest programs
// from build/guests run through /run.html and must give the same stdout, stderr and exit codes as
// in Node; a page served without COOP/COEP must show the NOT_ISOLATED error.
//
// Chromium comes from tools/setup.sh (apt package `chromium`); if it is missing these tests FAIL
// with that instruction rather than skip. SPINDLE_CHROMIUM overrides the browser's path.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as modules from './fixtures/modules.mjs';
import { cliPath, exitGuard, expectRun, guest, guestsBuild, runtimeDir, SIXTEEN_THREADS_OUTPUT } from './helpers.mjs';

exitGuard(after);

const CHROMIUM = process.env.SPINDLE_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];
/** One page's run (generous: the machine may be loaded); a hang fails the test with what the page showed. */
const PAGE_TIMEOUT_MS = 90_000;

let browser, context, isolated, unisolated;
const servers = [];

/** Starts `spindle serve DIR --port 0 [flags]`; resolves with its base URL once it listens. */
function startServer(dir, flags = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'serve', dir, '--port', '0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
    servers.push(child);
    let out = '', err = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr.on('data', (c) => { err += c; });
    child.on('exit', (code) => reject(new Error(`spindle serve exited (${code}) before listening: ${err}${out}`)));
  });
}

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed (${CHROMIUM} is missing): run tools/setup.sh, which installs Debian's `
      + "'chromium' package (or apt-get install chromium); the browser tests never download a browser");
  }
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    throw new Error("playwright-core is not installed: run 'npm ci' in runtime/ (tools/setup.sh does)");
  }
  guest('c', 'hello'); // fails with the build command when the guests are missing
  [isolated, unisolated] = await Promise.all([startServer(guestsBuild), startServer(guestsBuild, ['--no-isolation'])]);
  // launch() gives the browser a fresh temporary profile (--user-data-dir) and removes it at close.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
  context = await browser.newContext();
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
});

after(async () => {
  await browser?.close();
  for (const s of servers) s.kill();
});

/** Opens `page` on run.html with `query` and waits for the run's outcome (window.spindleResult). */
async function runPage(query, { base = isolated, page } = {}) {
  const own = !page;
  page ??= await context.newPage();
  try {
    await page.goto(`${base}run.html?${query}`);
    try {
      await page.waitForFunction(() => window.spindleResult, null, { timeout: PAGE_TIMEOUT_MS });
    } catch {
      const shown = await page.evaluate(() => ['status', 'stdout', 'stderr', 'error']
        .map((id) => `${id}: ${document.getElementById(id)?.textContent}`).join('\n'));
      assert.fail(`run.html?${query} did not finish within ${PAGE_TIMEOUT_MS} ms; the page shows:\n${shown}`);
    }
    return await page.evaluate(() => window.spindleResult);
  } finally {
    if (own) await page.close();
  }
}

/** Waits until the page has no worker left (the runtime terminates all of them at exit). */
async function workersGone(page) {
  const deadline = Date.now() + 10_000;
  while (page.workers().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(page.workers().length, 0, `${page.workers().length} workers still alive after the exit`);
}

const THREADS4 = 'thread 0 partial 31250125000\nthread 1 partial 93750125000\n'
  + 'thread 2 partial 156250125000\nthread 3 partial 218750125000\ntotal 500000500000\n';

describe('Chromium: guest programs through run.html', () => {
  test('hello: stdout, stderr, exit 0', async () => {
    expectRun(await runPage('wasm=/c/hello.wasm'), { code: 0, stdout: 'hello from c\n', stderr: 'to stderr\n' });
  });

  test('threads4 (C pthreads), and every worker is terminated after the exit', async () => {
    const page = await context.newPage();
    try {
      expectRun(await runPage('wasm=/c/threads4.wasm', { page }), { code: 0, stdout: THREADS4 });
      await workersGone(page);
    } finally {
      await page.close();
    }
  });

  test('threads4 with an empty pool (threads=0): workers ask the main thread to grow the pool', async () => {
    const page = await context.newPage();
    try {
      expectRun(await runPage('wasm=/c/threads4.wasm&threads=0', { page }), { code: 0, stdout: THREADS4 });
      await workersGone(page);
    } finally {
      await page.close();
    }
  });

  test('pthread_basic: create, join with return values, detach', async () => {
    expectRun(await runPage('wasm=/c/pthread_basic.wasm'), { code: 0, stdout: 'joined thread 0: 4\njoined thread 1: 9\n'
      + 'joined thread 2: 16\ndetached threads finished: 2\nmain thread is pthread_self: 1\n' });
  });

  test('clock_threads: MONOTONIC never goes backwards from one worker to another (the shared floor)', async () => {
    expectRun(await runPage('wasm=/c/clock_threads.wasm'), { code: 0, stdout: 'cross-thread monotonic: true\n' });
  });

  test('exit_in_thread: exit(7) from a thread while main is in pthread_join', async () => {
    expectRun(await runPage('wasm=/c/exit_in_thread.wasm'), { code: 7, stdout: 'main joining\nthread calling exit(7)\n' });
  });

  test('trap_in_thread: 134, the message names the thread, the trap and the wasm function', async () => {
    const r = await runPage('wasm=/c/trap_in_thread.wasm');
    assert.equal(r.code, 134);
    assert.equal(r.stdout, 'main before spawn\nthread about to trap\n');
    assert.match(r.stderr, /^spindle: thread 1 trapped: wasm trap: unreachable\n/);
    assert.match(r.stderr, /crash_here/);
  });

  test('Rust sixteen_threads: 16 std::thread workers hashing together', async () => {
    expectRun(await runPage('wasm=/rust/sixteen_threads.wasm'), { code: 0, stdout: SIXTEEN_THREADS_OUTPUT });
  });

  test('Rust exit_code: process::exit(42) from a thread while main is in join', async () => {
    expectRun(await runPage('wasm=/rust/exit_code.wasm'), { code: 42, stdout: 'main waiting\nthread exiting with 42\n' });
  });

  test('args and env (UTF-8 byte lengths), args with a comma through repeated arg=', async () => {
    const q = `wasm=/c/args_env.wasm&args=a1,${encodeURIComponent('héllo wörld')}&arg=x,y&env=SPINDLE_X=y&env=SPINDLE_A=b%3Dc`;
    expectRun(await runPage(q), { code: 0, stdout: 'argc 4\nargv[0]=args_env.wasm (13 bytes)\nargv[1]=a1 (2 bytes)\n'
      + 'argv[2]=héllo wörld (13 bytes)\nargv[3]=x,y (3 bytes)\nenv SPINDLE_X=y\nenv SPINDLE_A=b=c\nenv count 2\n' });
  });

  test('large_output: 1 MiB from main and a thread through the output ring (back-pressure), then exit(3)', async () => {
    for (const [query, code] of [['', 0], ['&args=exit', 3]]) {
      const r = await runPage(`wasm=/c/large_output.wasm${query}`);
      assert.equal(r.code, code);
      assert.equal(r.stdout.length, 1 << 20, 'stdout must be exactly 1 MiB');
      const want = Array.from({ length: 16384 }, (_, i) => `line ${String(i).padStart(6, '0')} abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY\n`);
      assert.ok(r.stdout === want.join(''), 'lines lost, torn or out of order');
    }
  });

  test('stdin as a string', async () => {
    expectRun(await runPage(`wasm=/c/stdin_read.wasm&stdin=${encodeURIComponent('hello\nworld\n')}`),
      { code: 0, stdout: 'bytes 12 lines 2 fnv 3d3d5389\nfirst line: hello\n' });
  });

  test('a plain wasm32-wasip1 module (no threads) runs on a worker too', async () => {
    const r = await runPage('wasm=/rust-wasip1/hello.wasm');
    assert.equal(r.code, 0);
    assert.notEqual(r.stdout, '');
  });
});

describe('Chromium: the JS API in a page', () => {
  /** Evaluates `fn` in a fresh isolated page that has imported the runtime as `globalThis.spindle`. */
  async function inPage(fn, arg, onConsole) {
    const page = await context.newPage();
    if (onConsole) page.on('console', onConsole);
    try {
      await page.goto(`${isolated}c/`);
      await page.evaluate(async () => { globalThis.spindle = await import('/spindle/browser.js'); });
      return await page.evaluate(fn, arg);
    } finally {
      await page.close();
    }
  }

  test('stdout/stderr default to console.log/console.error, one call per line', async () => {
    const messages = [];
    const code = await inPage(() => spindle.run('hello.wasm'), undefined, (m) => messages.push([m.type(), m.text()]));
    assert.equal(code, 0);
    assert.deepEqual(messages.filter(([, t]) => /hello from c|to stderr/.test(t)), [['log', 'hello from c'], ['error', 'to stderr']]);
  });

  test('kill() ends a program whose threads spin forever: 137', async () => {
    const code = await inPage(async () => {
      const p = spindle.createProgram(await spindle.load('forever.wasm'), { stdout: () => {}, stderr: () => {} });
      const done = p.start();
      setTimeout(() => p.kill(), 300);
      return done;
    });
    assert.equal(code, 137);
  });

  test('runOnCallingThread is refused with BAD_OPTION (the main thread may not block)', async () => {
    const e = await inPage(() => spindle.run('hello.wasm', { runOnCallingThread: true }).then(
      () => null, (err) => ({ name: err.name, code: err.code, message: err.message })));
    assert.equal(e?.code, 'BAD_OPTION');
    assert.equal(e.name, 'SpindleError');
    assert.match(e.message, /runOnCallingThread.*browsers/);
  });

  test('run() from a worker of the page: that worker owns the pool (threads=0: every thread grows it)', async () => {
    const r = await inPage(() => new Promise((resolve, reject) => {
      const src = `const spindle = await import('${location.origin}/spindle/browser.js');
        const out = []; const dec = new TextDecoder();
        const code = await spindle.run('${location.origin}/c/threads4.wasm', { threads: 0, stdout: (b) => out.push(dec.decode(b)) });
        postMessage({ code, stdout: out.join('') });`;
      const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), { type: 'module' });
      w.onmessage = (e) => { resolve(e.data); w.terminate(); };
      w.onerror = (e) => reject(new Error(`user worker failed: ${e.message}`));
    }));
    expectRun({ ...r, stderr: '' }, { code: 0, stdout: THREADS4 });
  });

  test('bytes as the source: proc_exit(3) on the main thread; a non-shared imported memory; an unknown import', async () => {
    const r = await inPage(async (sources) => Promise.all(sources.map(async (bytes) => {
      let out = '';
      const dec = new TextDecoder();
      try {
        const code = await spindle.run(new Uint8Array(bytes), { stdout: (b) => { out += dec.decode(b); }, stderr: () => {} });
        return { code, stdout: out };
      } catch (e) {
        return { error: e.code };
      }
    })), [modules.hello(3), modules.helloImportedMemory(), modules.unknownImport()].map((m) => Array.from(m)));
    assert.deepEqual(r, [{ code: 3, stdout: 'hand-made hello\n' }, { code: 0, stdout: 'hello from imported memory\n' },
      { error: 'UNKNOWN_IMPORT' }]);
  });

  test('a missing program: ENOENT_MODULE with the HTTP status', async () => {
    const r = await runPage('wasm=/c/no-such-program.wasm');
    assert.equal(r.error?.code, 'ENOENT_MODULE');
    assert.match(r.error.message, /HTTP 404/);
  });
});

describe('Chromium: a page that is not cross-origin isolated', () => {
  test('run.html shows NOT_ISOLATED and names both headers', async () => {
    const page = await context.newPage();
    try {
      const r = await runPage('wasm=/c/hello.wasm', { base: unisolated, page });
      assert.equal(r.error?.code, 'NOT_ISOLATED');
      for (const header of ['Cross-Origin-Opener-Policy: same-origin', 'Cross-Origin-Embedder-Policy: require-corp']) {
        assert.ok(r.error.message.includes(header), `the message does not name "${header}": ${r.error.message}`);
      }
      const shown = await page.textContent('#error');
      assert.match(shown, /^NOT_ISOLATED: .*Cross-Origin-Opener-Policy/);
    } finally {
      await page.close();
    }
  });
});

describe('Chromium: a worker that cannot start', () => {
  test('worker.js not found: exit 1 with a one-line message, no hang', async () => {
    const failing = await browser.newContext();
    failing.setDefaultTimeout(PAGE_TIMEOUT_MS);
    try {
      await failing.route('**/spindle/worker.js', (route) => route.fulfill({ status: 404, body: 'not found' }));
      const r = await runPage('wasm=/c/threads4.wasm', { page: await failing.newPage() });
      expectRun(r, { code: 1, stdout: '', stderr: "spindle: error: worker for slot 0 failed: its script did not load "
        + "(is the runtime's worker.js served beside browser.js?)\n" });
    } finally {
      await failing.close();
    }
  });
});

describe('Chromium: a page built with Vite (runtime/examples/vite)', () => {
  const example = join(runtimeDir, 'examples', 'vite');
  let out;
  after(() => { if (out) rmSync(out, { recursive: true, force: true }); });

  test("vite build bundles the 'spindle' import and its pool workers; the page runs threads4", async () => {
    const vite = join(example, 'node_modules', 'vite', 'bin', 'vite.js');
    assert.ok(existsSync(vite), "the Vite example's packages are missing: run 'npm ci' in runtime/examples/vite (tools/setup.sh does)");
    out = mkdtempSync(join(tmpdir(), 'spindle-vite-'));
    const b = spawnSync(process.execPath, [vite, 'build', '--outDir', out, '--emptyOutDir', '--logLevel', 'error'],
      { cwd: example, encoding: 'utf8', timeout: 60_000 });
    assert.equal(b.status, 0, `vite build failed:\n${b.stdout}${b.stderr}`);
    copyFileSync(guest('c', 'threads4'), join(out, 'program.wasm'));
    const base = await startServer(out);
    const page = await context.newPage();
    try {
      await page.goto(base);
      await page.waitForFunction(() => window.spindleResult, null, { timeout: PAGE_TIMEOUT_MS });
      expectRun({ stderr: '', ...await page.evaluate(() => window.spindleResult) }, { code: 0, stdout: THREADS4 });
    } finally {
      await page.close();
    }
  });
});

test('the guests the browser tests use are built', () => {
  for (const [kind, name] of [['c', 'forever'], ['c', 'stdin_read'], ['rust', 'exit_code'], ['rust-wasip1', 'hello']]) {
    assert.ok(existsSync(join(guestsBuild, kind, `${name}.wasm`)), `${kind}/${name}.wasm missing: run bash tests/guests/build.sh`);
  }
});
