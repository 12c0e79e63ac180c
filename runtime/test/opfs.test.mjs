// OPFS mounts in real browsers (issue #6, the OPFS part; issue #15: every engine that has OPFS),
// launched by tools/browsers, pages served by `spindle serve build/tests/opfs`. The guest
// (tests/fs-guests/opfs_guest.c; build: bash tests/fs-guests/opfs_build.sh) runs one command per
// page load, on each of the two routes (ROUTES), with /data an OPFS mount of DIR:
// - the in-program FS: opfs_guest.wasm, linked with libspindle-fs-opfs.a, with
//   SPINDLE_FS_MOUNTS=/data=opfs:DIR;
// - the runtime's shared FS: opfs_guest_rt.wasm, the same program WITHOUT the library (an
//   unmodified program), run with mounts: ['/data=opfs:DIR'].
// Each test uses its own OPFS directory (per route).
//
// What is checked: write + fsync, reload, same bytes; a crash of the tab (page.crash(): Chromium's
// CDP Page.crash, Firefox's content processes killed) after an unsynced write keeps the fsynced
// bytes whole (old or new, never mixed); bytes written through an fd never closed nor fsynced
// reach OPFS at a normal exit (return from main, exit()) and after the file stayed idle (then
// survive a crash); files that page code put into OPFS before the mount are visible; namespace
// changes reach OPFS; a quota overflow makes fsync fail with ENOSPC (Chromium: CDP
// Storage.overrideQuotaForOrigin; Firefox: a browser of its own with a 2 MiB storage limit); a
// program linked WITHOUT the opfs feature refuses an opfs mount with a message.
//
// An engine without a working OPFS (WebKitGTK: see opfsProblem) skips every test of its suite
// with the page's own answer: counted skips, never silent.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliPath, exitGuard } from './helpers.mjs';
import { forEachEngine, launchForTests, PAGE_TIMEOUT_MS, serve, skipUnless } from './browsers.mjs';

exitGuard(after);

const repo = join(import.meta.dirname, '..', '..');
const built = join(repo, 'build', 'tests', 'opfs');
/** Firefox's storage limit for the quota test (KiB; dom.quotaManager.temporaryStorage.fixedLimit). */
const FIREFOX_LIMIT_KIB = 2048;

let server, base;

before(async () => {
  if (!existsSync(join(built, 'opfs_guest.wasm'))) throw new Error('build/tests/opfs/opfs_guest.wasm is missing: run bash tests/fs-guests/opfs_build.sh');
  server = await serve(built);
  base = server.url;
});

after(() => { server?.close(); });

/**
 * Runs in a page: why OPFS cannot hold the runtime's files here (null when it can): the API is
 * missing, or a directory, a file and a SyncAccessHandle in a worker (what the I/O worker uses)
 * cannot be made.
 */
async function opfsProblem() {
  if (typeof navigator.storage?.getDirectory !== 'function') return 'navigator.storage.getDirectory is not defined';
  try {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('spindle-probe', { create: true });
    await dir.getFileHandle('probe', { create: true });
  } catch (e) {
    return `navigator.storage.getDirectory() fails: ${e.name}: ${e.message}`;
  }
  const src = `onmessage = async () => { try { const d = await (await navigator.storage.getDirectory()).getDirectoryHandle('spindle-probe');
    const h = await (await d.getFileHandle('probe')).createSyncAccessHandle(); h.close(); postMessage(null); }
    catch (e) { postMessage('createSyncAccessHandle in a worker fails: ' + e.name + ': ' + e.message); } };`;
  const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
  try {
    return await new Promise((resolve) => { w.onmessage = (e) => resolve(e.data); w.onerror = (e) => resolve(`a worker fails: ${e.message}`); w.postMessage(0); });
  } finally {
    w.terminate();
  }
}

/** How the guest gets its OPFS mount of DIR at /data, per filesystem. */
const ROUTES = {
  'the in-program filesystem': { wasm: 'opfs_guest.wasm', prefix: '', mount: (dir) => ({ env: `SPINDLE_FS_MOUNTS=/data=opfs:${dir}` }) },
  "the runtime's shared filesystem (unmodified program)": { wasm: 'opfs_guest_rt.wasm', prefix: 'rt-', mount: (dir) => ({ mount: `/data=opfs:${dir}` }) },
};
const IN_PROGRAM = ROUTES['the in-program filesystem'];

/** run.html's query for the guest: `args` one by one, the OPFS mount of `dir` at /data. */
function query(route, dir, args, wasm = route.wasm) {
  const q = new URLSearchParams({ wasm: `/${wasm}`, ...route.mount(dir) });
  for (const a of args) q.append('arg', a);
  return q.toString();
}

/** Loads the guest with `args` in `page` and waits for its outcome ({ code, stdout, stderr }). */
async function run(route, page, dir, args, wasm) {
  await page.goto(`${base}run.html?${query(route, dir, args, wasm)}`);
  const r = await page.waitFor(() => window.spindleResult, null, { timeoutMs: PAGE_TIMEOUT_MS });
  assert.ok(!r.error, `the page reported ${JSON.stringify(r.error)}`);
  return r;
}

/** Runs `args` on a fresh page of `browser` and closes it; asserts exit code 0. */
async function runOk(browser, route, dir, args, wasm) {
  const page = await browser.newPage();
  try {
    const r = await run(route, page, dir, args, wasm);
    assert.equal(r.code, 0, `guest ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
    return r;
  } finally {
    await page.close();
  }
}

/** The bytes of OPFS file DIR/NAME as page JS sees them (null if it does not exist). */
async function opfsText(browser, dir, name) {
  const page = await browser.newPage();
  try {
    await page.goto(`${base}run.html`);
    return await page.evaluate(async ([dir, name]) => {
      let d = await navigator.storage.getDirectory();
      for (const c of [...dir.split('/'), ...name.split('/').slice(0, -1)].filter((x) => x)) {
        try { d = await d.getDirectoryHandle(c); } catch { return null; }
      }
      try {
        return await (await (await d.getFileHandle(name.split('/').pop())).getFile()).text();
      } catch { return null; }
    }, [dir, name]);
  } finally {
    await page.close();
  }
}

/** Polls `opfsText` (every 200 ms, 20 s at most) until it reads `want`; returns what it read last. */
async function pollOpfsText(browser, dir, name, want) {
  let seen = null;
  for (let i = 0; i < 100 && seen !== want; i++) {
    seen = await opfsText(browser, dir, name);
    if (seen !== want) await new Promise((res) => setTimeout(res, 200));
  }
  return seen;
}

/** Names in OPFS directory DIR, sorted (null if it does not exist). */
async function opfsList(browser, dir) {
  const page = await browser.newPage();
  try {
    await page.goto(`${base}run.html`);
    return await page.evaluate(async (dir) => {
      let d = await navigator.storage.getDirectory();
      for (const c of dir.split('/').filter((x) => x)) {
        try { d = await d.getDirectoryHandle(c); } catch { return null; }
      }
      const names = [];
      for await (const n of d.keys()) names.push(n);
      return names.sort();
    }, dir);
  } finally {
    await page.close();
  }
}

forEachEngine((engine, engineName) => describe(engineName, () => {
  let browser, problem;
  before(async () => {
    browser = await launchForTests(engine);
    const page = await browser.newPage();
    try {
      await page.goto(`${base}run.html`);
      problem = await page.evaluate(opfsProblem);
    } finally {
      await page.close();
    }
  });
  after(async () => { await browser?.close(); });

  /** Skips test `t` (counted, with the engine's answer) when this engine has no usable OPFS. */
  const noOpfs = (t) => !skipUnless(t, problem === null, `${engineName} has no usable OPFS here: ${problem}`);

  for (const [name, route] of Object.entries(ROUTES)) {
    /** This route's OPFS directory for a test. */
    const d = (dir) => route.prefix + dir;

    describe(`OPFS mounts of ${name}`, () => {
      test('write + fsync, reload the page, read back the same bytes', async (t) => {
        if (noOpfs(t)) return;
        const text = 'persisted bytes \u00e9\u4e2d ' + 'x'.repeat(3000);
        const page = await browser.newPage();
        try {
          let r = await run(route, page, d('persist'), ['write', '/data/f.txt', text]);
          assert.deepEqual([r.code, r.stdout], [0, 'synced\n']);
          await page.goto(`${base}run.html?${query(route, d('persist'), ['read', '/data/f.txt'])}`);
          await page.waitFor(() => window.spindleResult, null, { timeoutMs: PAGE_TIMEOUT_MS });
          r = await page.evaluate(() => window.spindleResult);
          assert.deepEqual([r.code, r.stdout], [0, text]);
        } finally {
          await page.close();
        }
        assert.equal(await opfsText(browser, d('persist'), 'f.txt'), text, 'page JS sees the same bytes in OPFS');
      });

      test('a crash of the tab after an unsynced write keeps the fsynced file whole', async (t) => {

        if (noOpfs(t)) return;
        await runOk(browser, route, d('crash'), ['write', '/data/f.txt', 'A'.repeat(5000)]);
        const page = await browser.newPage();
        await page.goto(`${base}run.html?${query(route, d('crash'), ['write-hang', '/data/f.txt', 'B'.repeat(7000)])}`);
        await page.waitFor(() => document.getElementById('stdout')?.textContent === 'hanging\n', null, { timeoutMs: PAGE_TIMEOUT_MS });
        await page.crash();
        const r = await runOk(browser, route, d('crash'), ['read', '/data/f.txt']);
        // The idle write-back may have written the unsynced bytes before the crash: old or new, whole.
        assert.ok(r.stdout === 'A'.repeat(5000) || r.stdout === 'B'.repeat(7000), `mixed or cut file: ${r.stdout.length} bytes`);
        assert.deepEqual(await opfsList(browser, d('crash')), ['f.txt'], 'no temporary left after the next mount');
      });

      test('a crash right after close (write-back queued, not waited for) leaves the old or the new file, whole', async (t) => {

        if (noOpfs(t)) return;
        await runOk(browser, route, d('crash2'), ['write', '/data/g.txt', 'old'.repeat(1000)]);
        const page = await browser.newPage();
        await page.goto(`${base}run.html?${query(route, d('crash2'), ['write-close', '/data/g.txt', 'new'.repeat(2000)])}`);
        await page.waitFor(() => window.spindleResult, null, { timeoutMs: PAGE_TIMEOUT_MS });
        await page.crash();
        const r = await runOk(browser, route, d('crash2'), ['read', '/data/g.txt']);
        assert.ok(r.stdout === 'old'.repeat(1000) || r.stdout === 'new'.repeat(2000), `mixed or cut file: ${r.stdout.length} bytes`);
      });

      test('close without fsync: the queued write-back reaches OPFS while the page stays open', async (t) => {

        if (noOpfs(t)) return;
        const page = await browser.newPage();
        try {
          const r = await run(route, page, d('closed'), ['write-close', '/data/c.txt', 'written at close']);
          assert.deepEqual([r.code, r.stdout], [0, 'closed\n']);
          const seen = await pollOpfsText(browser, d('closed'), 'c.txt', 'written at close');
          assert.equal(seen, 'written at close');
        } finally {
          await page.close();
        }
      });

      test('fd left open and idle: the idle write-back persists the bytes, a crash of the tab keeps them', async (t) => {

        if (noOpfs(t)) return;
        const text = 'idle bytes ' + 'z'.repeat(3000);
        const page = await browser.newPage();
        await page.goto(`${base}run.html?${query(route, d('idle'), ['write-hang', '/data/i.txt', text])}`);
        await page.waitFor(() => document.getElementById('stdout')?.textContent === 'hanging\n', null, { timeoutMs: PAGE_TIMEOUT_MS });
        const seen = await pollOpfsText(browser, d('idle'), 'i.txt', text);
        assert.equal(seen, text, 'in OPFS while the program sleeps with the fd open (no close, no fsync)');
        await page.crash();
        const r = await runOk(browser, route, d('idle'), ['read', '/data/i.txt']);
        assert.equal(r.stdout, text, 'the next mount after the crash reads them');
      });

      for (const how of ['return', 'exit']) {
        test(`fd never closed nor fsynced, main ends by ${how}: the exit flush writes the file back`, async (t) => {
          if (noOpfs(t)) return;
          const text = `left open at ${how} ` + 'y'.repeat(2000);
          const page = await browser.newPage();
          try {
            const r = await run(route, page, d(`exit-${how}`), [`write-${how}`, '/data/o.txt', text]);
            assert.deepEqual([r.code, r.stdout], [0, 'left open\n']);
            const seen = await pollOpfsText(browser, d(`exit-${how}`), 'o.txt', text);
            assert.equal(seen, text, 'page JS sees the bytes in OPFS');
          } finally {
            await page.close();
          }
          const r = await runOk(browser, route, d(`exit-${how}`), ['read', '/data/o.txt']);
          assert.equal(r.stdout, text, 'a new page (new mount) reads them back');
        });
      }

      test('files that page code created in OPFS before the mount are visible to the program', async (t) => {

        if (noOpfs(t)) return;
        const page = await browser.newPage();
        try {
          await page.goto(`${base}run.html`);
          await page.evaluate(async (pre) => {
            const root = await navigator.storage.getDirectory();
            const dir = await (await root.getDirectoryHandle(pre, { create: true })).getDirectoryHandle('sub', { create: true });
            const w = await (await dir.getFileHandle('from-page.txt', { create: true })).createWritable();
            await w.write('written by page JS');
            await w.close();
          }, d('pre'));
        } finally {
          await page.close();
        }
        assert.equal((await runOk(browser, route, d('pre'), ['read', '/data/sub/from-page.txt'])).stdout, 'written by page JS');
        assert.equal((await runOk(browser, route, d('pre'), ['ls', '/data'])).stdout, 'sub\n');
      });

      test('mkdir, rename, rmdir, unlink reach OPFS in order (fsync of the directory waits for them)', async (t) => {

        if (noOpfs(t)) return;
        assert.equal((await runOk(browser, route, d('ns'), ['ops', '/data'])).stdout, 'closed\nclosed\nops done\n');
        assert.deepEqual(await opfsList(browser, d('ns')), ['d']);
        assert.deepEqual(await opfsList(browser, d('ns/d')), ['b']);
        assert.equal(await opfsText(browser, d('ns'), 'd/b'), 'moved');
        assert.equal((await runOk(browser, route, d('ns'), ['read', '/data/d/b'])).stdout, 'moved');
      });

      test('threads: files fsynced by 4 threads, an fd opened by main and closed by another thread', async (t) => {

        if (noOpfs(t)) return;
        assert.equal((await runOk(browser, route, d('thr'), ['threads', '/data'])).stdout, 'threads done\n');
        assert.deepEqual(await opfsList(browser, d('thr')), ['shared', 't0', 't1', 't2', 't3']);
        for (let i = 0; i < 4; i++) assert.equal(await opfsText(browser, d('thr'), `t${i}`), `thread ${i} was here`);
        assert.equal(await opfsText(browser, d('thr'), 'shared'), 'shared fd');
      });

      test('a directory rename reaches OPFS with its files (recreated file by file: no move() for directories)', async (t) => {

        if (noOpfs(t)) return;
        assert.equal((await runOk(browser, route, d('dirmv'), ['dirmove', '/data'])).stdout, 'synced\ndirmove done\n');
        assert.deepEqual(await opfsList(browser, d('dirmv')), ['q']);
        assert.equal(await opfsText(browser, d('dirmv'), 'q/x'), 'in a moved directory');
        assert.equal((await runOk(browser, route, d('dirmv'), ['read', '/data/q/x'])).stdout, 'in a moved directory');
      });


      test('over the quota, fsync fails with ENOSPC (51) and the old file stays whole', async (t) => {
        if (noOpfs(t)) return;
        // Chromium: a per-origin quota through CDP; Firefox: a browser of its own whose storage limit is 2 MiB.
        if (engine !== 'chromium' && engine !== 'firefox') {
          t.skip(`${engineName}: no way to lower the storage quota from a test`);
          return;
        }
        const limited = engine === 'firefox'
          ? await launchForTests(engine, { prefs: { 'dom.quotaManager.temporaryStorage.fixedLimit': FIREFOX_LIMIT_KIB } })
          : browser;
        try {
          await runOk(limited, route, d('quota'), ['write', '/data/q.bin', 'small']);
          const page = await limited.newPage();
          const origin = new URL(base).origin;
          try {
            await page.goto(`${base}run.html`);
            if (engine === 'chromium') await page.setStorageQuota(origin, 2 << 20);
            const r = await run(route, page, d('quota'), ['fill', '/data/q.bin', String(8 << 20)]);
            assert.equal(r.stdout, 'fsync errno 51\n');
            if (engine === 'chromium') await page.setStorageQuota(origin, undefined);
          } finally {
            await page.close();
          }
          assert.equal(await opfsText(limited, d('quota'), 'q.bin'), 'small');
        } finally {
          if (limited !== browser) await limited.close();
        }
      });
    });
  }

  test('a program linked without the opfs feature refuses the mount and says what to link', async () => {
    const page = await browser.newPage();
    try {
      const r = await run(IN_PROGRAM, page, 'nofeature', ['ls', '/data'], 'opfs_guest_mem.wasm');
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /GUEST=opfs:DIR needs libspindle-fs-opfs\.a/);
    } finally {
      await page.close();
    }
  });
}));

describe('OPFS mounts in Node', () => {
  test("Node: an OPFS mount on the runtime's filesystem is refused before anything starts", async () => {
    const { run: runNode } = await import('../dist/index.js');
    await assert.rejects(runNode(join(built, 'opfs_guest_rt.wasm'), { args: ['ls', '/data'], mounts: ['/data=opfs:x'] }),
      (e) => e.code === 'BAD_OPTION' && /OPFS exists only in browsers/.test(e.message));
    const cli = spawnSync(process.execPath, [cliPath, 'run', '--mount', '/data=opfs:x', join(built, 'opfs_guest_rt.wasm'), 'ls', '/data'], { encoding: 'utf8' });
    assert.equal(cli.status, 2);
    assert.match(cli.stderr, /--mount \/data=opfs:x: OPFS exists only in browsers/);
  });
});
