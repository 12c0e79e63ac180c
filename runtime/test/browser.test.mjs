// The runtime in real browsers (issues #6 and #15): Chromium, Firefox ESR and WebKitGTK (all
// Debian packages, launched by tools/browsers; never a downloaded browser), pages served by
// `spindle serve` (a child process, port 0). Guest programs from build/guests run through
// /run.html and must give the same stdout, stderr and exit codes as in Node; a page served
// without COOP/COEP must show the NOT_ISOLATED error. One browser per engine; run.html tests
// share one page (each navigation ends the previous program's workers).
//
// A missing engine FAILS with what to install (tools/browsers/setup.sh, run by the test set-up).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as modules from './fixtures/modules.mjs';
import { exitGuard, expectRun, guest, guestsBuild, runtimeDir, SIXTEEN_THREADS_OUTPUT } from './helpers.mjs';
import { forEachEngine, launchForTests, PAGE_TIMEOUT_MS, pageResult, serve, unattendedReports, UNREACHABLE } from './browsers.mjs';
import { launch } from '../../tools/browsers/index.mjs';

exitGuard(after);

const THREADS4 = 'thread 0 partial 31250125000\nthread 1 partial 93750125000\n'
  + 'thread 2 partial 156250125000\nthread 3 partial 218750125000\ntotal 500000500000\n';

const servers = [];
const temps = [];
let isolated, unisolated, noWorker, stalledCreator, unattendedSite;

before(async () => {
  guest('c', 'hello'); // fails with the build command when the guests are missing
  // A copy of the runtime without worker.js, served by the copy's own CLI: a worker that cannot load.
  const copy = mkdtempSync(join(tmpdir(), 'spindle-noworker-'));
  temps.push(copy);
  for (const d of ['dist', 'web']) cpSync(join(runtimeDir, d), join(copy, d), { recursive: true });
  rmSync(join(copy, 'dist', 'worker.js'));
  // A copy whose creator (the worker that creates the pool's workers for an owner that is a
  // worker) never answers: what Firefox's blocked new Worker() looks like to the owner.
  const stalled = mkdtempSync(join(tmpdir(), 'spindle-stalled-'));
  temps.push(stalled);
  for (const d of ['dist', 'web']) cpSync(join(runtimeDir, d), join(stalled, d), { recursive: true });
  writeFileSync(join(stalled, 'dist', 'platform', 'browser', 'creator-worker.js'), 'onmessage = () => {};\n');
  // A site for a browser with no automation: fixtures/worker-run.html reports by itself.
  const site = mkdtempSync(join(tmpdir(), 'spindle-unattended-'));
  temps.push(site);
  copyFileSync(join(runtimeDir, 'test', 'fixtures', 'worker-run.html'), join(site, 'worker-run.html'));
  copyFileSync(guest('c', 'threads4'), join(site, 'threads4.wasm'));
  const started = await Promise.all([serve(guestsBuild), serve(guestsBuild, { isolation: false }),
    serve(guestsBuild, { cli: join(copy, 'dist', 'cli.js') }), serve(guestsBuild, { cli: join(stalled, 'dist', 'cli.js') }), serve(site)]);
  servers.push(...started);
  [isolated, unisolated, noWorker, stalledCreator, unattendedSite] = started.map((s) => s.url);
});

after(() => {
  for (const s of servers) s.close();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** The Vite example, built once for every engine (its page runs threads4 as /program.wasm). */
let viteBuild;
function buildVite() {
  viteBuild ??= (async () => {
    const example = join(runtimeDir, 'examples', 'vite');
    const vite = join(example, 'node_modules', 'vite', 'bin', 'vite.js');
    assert.ok(existsSync(vite), "the Vite example's packages are missing: run 'npm ci' in runtime/examples/vite (tools/setup-tests.sh does)");
    const out = mkdtempSync(join(tmpdir(), 'spindle-vite-'));
    temps.push(out);
    const b = spawnSync(process.execPath, [vite, 'build', '--outDir', out, '--emptyOutDir', '--logLevel', 'error'],
      { cwd: example, encoding: 'utf8', timeout: 60_000 });
    assert.equal(b.status, 0, `vite build failed:\n${b.stdout}${b.stderr}`);
    copyFileSync(guest('c', 'threads4'), join(out, 'program.wasm'));
    const s = await serve(out);
    servers.push(s);
    return s.url;
  })();
  return viteBuild;
}

forEachEngine((engine, name) => describe(name, () => {
  let browser, page;
  before(async () => {
    browser = await launchForTests(engine);
    page = await browser.newPage();
  });
  after(async () => { await browser?.close(); });

  /** run.html with `query` on the shared page (or `base`'s server) -> window.spindleResult. */
  const runPage = (query, base = isolated) => pageResult(page, `${base}run.html?${query}`);

  /** Evaluates `fn(arg)` in a fresh isolated page that has imported the runtime as `globalThis.spindle`. */
  async function inPage(fn, arg, { before: prepare, base = isolated } = {}) {
    const p = await browser.newPage();
    try {
      await p.goto(`${base}c/`);
      if (prepare) await p.evaluate(prepare);
      await p.evaluate(async () => { globalThis.spindle = await import('/spindle/browser.js'); });
      return { value: await p.evaluate(fn, arg), messages: await p.messages() };
    } finally {
      await p.close();
    }
  }

  describe('guest programs through run.html', () => {
    test('hello: stdout, stderr, exit 0', async () => {
      expectRun(await runPage('wasm=/c/hello.wasm'), { code: 0, stdout: 'hello from c\n', stderr: 'to stderr\n' });
    });

    test('threads4 (C pthreads)', async () => {
      expectRun(await runPage('wasm=/c/threads4.wasm'), { code: 0, stdout: THREADS4 });
    });

    test('threads4 with an empty pool (threads=0): workers ask the main thread to grow the pool', async () => {
      expectRun(await runPage('wasm=/c/threads4.wasm&threads=0'), { code: 0, stdout: THREADS4 });
    });

    test('pthread_basic: create, join with return values, detach', async () => {
      expectRun(await runPage('wasm=/c/pthread_basic.wasm'), { code: 0, stdout: 'joined thread 0: 4\njoined thread 1: 9\n'
        + 'joined thread 2: 16\ndetached threads finished: 2\nmain thread is pthread_self: 1\n' });
    });

    test('clock_threads: MONOTONIC never goes backwards from one worker to another (the shared floor)', async () => {
      expectRun(await runPage('wasm=/c/clock_threads.wasm'), { code: 0, stdout: 'cross-thread monotonic: true\n' });
    });

    test('forever_tail: threads spinning through a cycle of tail calls do not keep the program from ending with main\'s status', async () => {
      // On Node 24 and 26 worker.terminate() cannot stop such a cycle (docs/known-issues/v8-tail-call-terminate.md);
      // here the page terminates its workers: the program must end, with main's 0, in every engine.
      expectRun(await runPage('wasm=/c/forever_tail.wasm'), { code: 0, stdout: '2 threads spinning through tail calls\n' });
    });

    test('exit_in_thread: exit(7) from a thread while main is in pthread_join', async () => {
      expectRun(await runPage('wasm=/c/exit_in_thread.wasm'), { code: 7, stdout: 'main joining\nthread calling exit(7)\n' });
    });

    test("trap_in_thread: 134, the message names the thread, the engine's trap and the wasm function", async () => {
      const r = await runPage('wasm=/c/trap_in_thread.wasm');
      assert.equal(r.code, 134);
      assert.equal(r.stdout, 'main before spawn\nthread about to trap\n');
      assert.match(r.stderr, /^spindle: thread 1 trapped: wasm trap: /);
      assert.match(r.stderr.split('\n')[0], UNREACHABLE[engine]);
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

    test('a missing program: ENOENT_MODULE with the HTTP status', async () => {
      const r = await runPage('wasm=/c/no-such-program.wasm');
      assert.equal(r.error?.code, 'ENOENT_MODULE');
      assert.match(r.error.message, /HTTP 404/);
    });
  });

  describe('the JS API in a page', () => {
    test('stdout/stderr default to console.log/console.error, one call per line', async () => {
      const { value: code, messages } = await inPage(() => spindle.run('hello.wasm'));
      assert.equal(code, 0);
      assert.deepEqual(messages.filter(({ text }) => /hello from c|to stderr/.test(text)).map(({ type, text }) => [type, text]),
        [['log', 'hello from c'], ['error', 'to stderr']]);
    });

    test('every worker the runtime starts is terminated once the program has exited', async () => {
      const { value } = await inPage(async () => {
        const code = await spindle.run('threads4.wasm', { stdout: () => {} });
        return { code, made: globalThis.workersMade, live: globalThis.liveWorkers.size };
      }, undefined, {
        before: () => {
          const Native = globalThis.Worker;
          globalThis.workersMade = 0;
          globalThis.liveWorkers = new Set();
          globalThis.Worker = class extends Native {
            constructor(...args) { super(...args); globalThis.workersMade++; globalThis.liveWorkers.add(this); }
            terminate() { globalThis.liveWorkers.delete(this); super.terminate(); }
          };
        },
      });
      assert.equal(value.code, 0);
      assert.ok(value.made >= 2, `the runtime started ${value.made} workers`);
      assert.equal(value.live, 0, `${value.live} of ${value.made} workers not terminated after the exit`);
    });

    test('no global SharedArrayBuffer name needed: the page deletes it, threads4 still runs', async () => {
      const { value } = await inPage(async () => {
        const out = [];
        const dec = new TextDecoder();
        const code = await spindle.run('threads4.wasm', { stdout: (b) => out.push(dec.decode(b)) });
        return { code, stdout: out.join(''), named: typeof SharedArrayBuffer };
      }, undefined, { before: () => { delete globalThis.SharedArrayBuffer; } });
      assert.equal(value.named, 'undefined', 'the page still has the global');
      expectRun({ ...value, stderr: '' }, { code: 0, stdout: THREADS4 });
    });

    test('kill() ends a program whose threads spin forever: 137', async () => {
      const { value: code } = await inPage(async () => {
        const p = spindle.createProgram(await spindle.load('forever.wasm'), { stdout: () => {}, stderr: () => {} });
        const done = p.start();
        setTimeout(() => p.kill(), 300);
        return done;
      });
      assert.equal(code, 137);
    });

    test('runOnCallingThread is refused with BAD_OPTION (the main thread may not block)', async () => {
      const { value: e } = await inPage(() => spindle.run('hello.wasm', { runOnCallingThread: true }).then(
        () => null, (err) => ({ name: err.name, code: err.code, message: err.message })));
      assert.equal(e?.code, 'BAD_OPTION');
      assert.equal(e.name, 'SpindleError');
      assert.match(e.message, /runOnCallingThread.*browsers/);
    });

    // Firefox under WebDriver (this suite): `new Worker()` inside a worker can block forever, a
    // Firefox bug that a WebDriver session (or DevTools) switches on (docs/known-issues/
    // firefox-nested-worker.md). The owner has the pool's workers made by a creator worker, so a
    // blocked creation ends the program after 20 s with a one-line error instead of hanging, but
    // the program still fails then (and the owner's own creation of the creator can block): a
    // todo here, bounded; the same scenario runs in a Firefox with no automation below.
    const FIREFOX_NESTED = 'Firefox bug under WebDriver/DevTools: new Worker() inside a worker can block forever (docs/known-issues/firefox-nested-worker.md)';
    /**
     * run() of threads4 with `threads` in a module worker of a fresh page of `base`'s server:
     * { code, stdout, stderr } as the worker saw them, or { error } (its own, or no answer
     * within `ms`).
     */
    async function runFromWorker({ threads, ms, base }) {
      const { value } = await inPage(({ ms, threads }) => new Promise((resolve) => {
        const src = `try {
            const spindle = await import('${location.origin}/spindle/browser.js');
            const out = [], err = []; const dec = new TextDecoder();
            const code = await spindle.run('${location.origin}/c/threads4.wasm', { threads: ${threads},
              stdout: (b) => out.push(dec.decode(b)), stderr: (b) => err.push(dec.decode(b)) });
            postMessage({ code, stdout: out.join(''), stderr: err.join('') });
          } catch (e) {
            postMessage({ error: e.name + ': ' + e.message });
          }`;
        const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), { type: 'module' });
        const done = (v) => { clearTimeout(timer); resolve(v); w.terminate(); };
        const timer = setTimeout(() => done({ error: `no answer from the user worker within ${ms} ms` }), ms);
        w.onmessage = (e) => done(e.data);
        w.onerror = (e) => done({ error: `user worker failed: ${e.message}` });
      }), { ms, threads }, { base });
      return value;
    }

    test('run() from a worker of the page: that worker owns the pool (threads=0: every thread grows it)', { todo: engine === 'firefox' ? FIREFOX_NESTED : false }, async () => {
      const r = await runFromWorker({ threads: 0, ms: engine === 'firefox' ? 40_000 : PAGE_TIMEOUT_MS });
      assert.equal(r.error, undefined, r.error);
      expectRun(r, { code: 0, stdout: THREADS4 });
    });

    test('run() from a worker: a worker creation that never finishes ends the program within the bound, with one line (a creator that never answers stands for Firefox\'s blocked new Worker())', async () => {
      const r = await runFromWorker({ threads: 2, ms: PAGE_TIMEOUT_MS, base: stalledCreator });
      assert.equal(r.error, undefined, r.error);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^spindle: error: the worker for slot \d+ was not created within 20 s; Firefox can block new Worker\(\) inside a worker forever while WebDriver or DevTools is attached \(docs\/known-issues\/firefox-nested-worker\.md\): call run\(\) from the page instead of a worker\n$/);
    });

    // Firefox only: what the todo above cannot show under WebDriver (the other engines pass it).
    if (engine === 'firefox') test('run() from a worker of the page in a Firefox with no automation attached: 10 runs each with threads=8 and threads=0', async () => {
      for (const threads of [8, 0]) {
        const page = `${unattendedSite}worker-run.html?wasm=/threads4.wasm&threads=${threads}&runs=10`;
        const runs = await unattendedReports(engine, page, 10 * 60_000);
        assert.equal(runs.length, 10, JSON.stringify(runs));
        for (const r of runs) {
          assert.equal(r.error, undefined, `threads=${threads}, run ${r.run}: ${r.error}`);
          expectRun({ ...r, stderr: '' }, { code: 0, stdout: THREADS4 });
        }
      }
    });

    test('bytes as the source: proc_exit(3) on the main thread; a non-shared imported memory; an unknown import', async () => {
      const { value: r } = await inPage(async (sources) => Promise.all(sources.map(async (bytes) => {
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
  });

  describe('refusals and failures', () => {
    test('a page that is not cross-origin isolated: run.html shows NOT_ISOLATED and names both headers', async () => {
      const r = await runPage('wasm=/c/hello.wasm', unisolated);
      assert.equal(r.error?.code, 'NOT_ISOLATED');
      for (const header of ['Cross-Origin-Opener-Policy: same-origin', 'Cross-Origin-Embedder-Policy: require-corp']) {
        assert.ok(r.error.message.includes(header), `the message does not name "${header}": ${r.error.message}`);
      }
      assert.match(await page.evaluate(() => document.getElementById('error').textContent), /^NOT_ISOLATED: .*Cross-Origin-Opener-Policy/);
    });

    test('worker.js not served: exit 1 with a one-line message, no hang', async () => {
      // Which worker's error event comes first is the engine's choice (WebKit: often not slot 0).
      const r = await runPage('wasm=/c/threads4.wasm', noWorker);
      assert.deepEqual([r.code, r.stdout], [1, '']);
      assert.match(r.stderr, /^spindle: error: worker for slot \d+ failed: its script did not load \(is the runtime's worker\.js served beside browser\.js\?\)\n$/);
    });
  });

  test("a page built with Vite (runtime/examples/vite): the bundled 'spindle' import and its pool workers run threads4", async () => {
    const base = await buildVite();
    const r = await pageResult(page, base);
    expectRun({ stderr: '', ...r }, { code: 0, stdout: THREADS4 });
  });
}));

// WebKitGTK as users get it (without JSC_useSharedArrayBuffer=1): it creates shared wasm memory
// but, before WebKit bug 317847 is fixed, cannot post it to a worker. spindle must then refuse
// with a message saying so, never fail with a raw DataCloneError; once the engine can, it must run.
describe('WebKitGTK in its default configuration', () => {
  test('threads run where shared memory reaches a worker; otherwise NOT_ISOLATED says why', async (t) => {
    if (process.env.SPINDLE_BROWSERS && !process.env.SPINDLE_BROWSERS.split(',').includes('webkit')) {
      t.skip(`SPINDLE_BROWSERS=${process.env.SPINDLE_BROWSERS} leaves webkit out`);
      return;
    }
    const browser = await launch('webkit');
    try {
      const page = await browser.newPage();
      await page.goto(`${isolated}c/`);
      const can = await page.evaluate(() => {
        const c = new MessageChannel();
        try {
          c.port1.postMessage(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }));
          return { posted: true, isolated: crossOriginIsolated };
        } catch (e) {
          return { posted: false, error: e.name, isolated: crossOriginIsolated };
        } finally {
          c.port1.close();
        }
      });
      assert.equal(can.isolated, true, 'the page is cross-origin isolated');
      const r = await pageResult(page, `${isolated}run.html?wasm=/c/threads4.wasm`);
      if (can.posted) {
        expectRun(r, { code: 0, stdout: THREADS4 });
      } else {
        assert.equal(can.error, 'DataCloneError');
        assert.equal(r.error?.code, 'NOT_ISOLATED', JSON.stringify(r));
        assert.match(r.error.message, /cannot pass shared memory to workers.*JSC_useSharedArrayBuffer=1/);
      }
    } finally {
      await browser.close();
    }
  });
});

test('the guests the browser tests use are built', () => {
  for (const [kind, name] of [['c', 'forever'], ['c', 'forever_tail'], ['c', 'stdin_read'], ['rust', 'exit_code'], ['rust-wasip1', 'hello']]) {
    assert.ok(existsSync(join(guestsBuild, kind, `${name}.wasm`)), `${kind}/${name}.wasm missing: run bash tests/guests/build.sh`);
  }
});

