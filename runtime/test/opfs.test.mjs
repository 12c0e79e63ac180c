// OPFS mounts in a real browser (issue #6, the OPFS part): Debian's Chromium driven by
// playwright-core, pages served by `spindle serve build/tests/opfs`. The guest
// (tests/fs-guests/opfs_guest.c; build: bash tests/fs-guests/opfs_build.sh) runs one command per
// page load, on each of the two routes (ROUTES), with /data an OPFS mount of DIR:
// - the in-program FS: opfs_guest.wasm, linked with libspindle-fs-opfs.a, with
//   SPINDLE_FS_MOUNTS=/data=opfs:DIR;
// - the runtime's shared FS: opfs_guest_rt.wasm, the same program WITHOUT the library (an
//   unmodified program), run with mounts: ['/data=opfs:DIR'].
// Each test uses its own OPFS directory (per route).
//
// What is checked: write + fsync, reload, same bytes; a crash of the tab (CDP Page.crash) after
// an unsynced write keeps the fsynced bytes whole (old or new, never mixed); bytes written through
// an fd never closed nor fsynced reach OPFS at a normal exit (return from main, exit()) and after
// the file stayed idle (then survive a crash); files that page code put into OPFS before the
// mount are visible; namespace changes reach OPFS; a quota overflow (CDP
// Storage.overrideQuotaForOrigin) makes fsync fail with ENOSPC; a program linked WITHOUT the opfs
// feature refuses an opfs mount with a message.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliPath, exitGuard } from './helpers.mjs';

exitGuard(after);

const repo = join(import.meta.dirname, '..', '..');
const built = join(repo, 'build', 'tests', 'opfs');
const CHROMIUM = process.env.SPINDLE_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];
const PAGE_TIMEOUT_MS = 90_000;

let browser, context, base, server;

function startServer(dir) {
  return new Promise((resolve, reject) => {
    server = spawn(process.execPath, [cliPath, 'serve', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    server.stdout.on('data', (c) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve(m[1]);
    });
    server.stderr.on('data', (c) => { err += c; });
    server.on('exit', (code) => reject(new Error(`spindle serve exited (${code}) before listening: ${err}${out}`)));
  });
}

before(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed (${CHROMIUM}): run tools/setup.sh (Debian's 'chromium' package)`);
  if (!existsSync(join(built, 'opfs_guest.wasm'))) throw new Error('build/tests/opfs/opfs_guest.wasm is missing: run bash tests/fs-guests/opfs_build.sh');
  const { chromium } = await import('playwright-core');
  base = await startServer(built);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
  context = await browser.newContext();
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
});

after(async () => {
  await browser?.close();
  server?.kill();
});

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
  await page.waitForFunction(() => window.spindleResult, null, { timeout: PAGE_TIMEOUT_MS });
  const r = await page.evaluate(() => window.spindleResult);
  assert.ok(!r.error, `the page reported ${JSON.stringify(r.error)}`);
  return r;
}

/** Runs `args` on a fresh page and closes it; asserts exit code 0. */
async function runOk(route, dir, args, wasm) {
  const page = await context.newPage();
  try {
    const r = await run(route, page, dir, args, wasm);
    assert.equal(r.code, 0, `guest ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
    return r;
  } finally {
    await page.close();
  }
}

/** The bytes of OPFS file DIR/NAME as page JS sees them (null if it does not exist). */
async function opfsText(dir, name) {
  const page = await context.newPage();
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
async function pollOpfsText(dir, name, want) {
  let seen = null;
  for (let i = 0; i < 100 && seen !== want; i++) {
    seen = await opfsText(dir, name);
    if (seen !== want) await new Promise((res) => setTimeout(res, 200));
  }
  return seen;
}

/** Crashes the tab's renderer (CDP Page.crash) and closes the page once it has crashed. */
async function crashTab(page) {
  const cdp = await context.newCDPSession(page);
  const crashed = new Promise((resolve) => page.once('crash', resolve));
  void cdp.send('Page.crash').catch(() => {}); // never answers: the session dies with the renderer
  await crashed;
  await page.close();
}

/** Names in OPFS directory DIR, sorted (null if it does not exist). */
async function opfsList(dir) {
  const page = await context.newPage();
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

for (const [name, route] of Object.entries(ROUTES)) {
  /** This route's OPFS directory for a test. */
  const d = (dir) => route.prefix + dir;

  describe(`Chromium: OPFS mounts of ${name}`, () => {
    test('write + fsync, reload the page, read back the same bytes', async () => {
      const text = 'persisted bytes \u00e9\u4e2d ' + 'x'.repeat(3000);
      const page = await context.newPage();
      try {
        let r = await run(route, page, d('persist'), ['write', '/data/f.txt', text]);
        assert.deepEqual([r.code, r.stdout], [0, 'synced\n']);
        await page.reload();
        await page.goto(`${base}run.html?${query(route, d('persist'), ['read', '/data/f.txt'])}`);
        await page.waitForFunction(() => window.spindleResult);
        r = await page.evaluate(() => window.spindleResult);
        assert.deepEqual([r.code, r.stdout], [0, text]);
      } finally {
        await page.close();
      }
      assert.equal(await opfsText(d('persist'), 'f.txt'), text, 'page JS sees the same bytes in OPFS');
    });

    test('a crash of the tab after an unsynced write keeps the fsynced file whole', async () => {
      await runOk(route, d('crash'), ['write', '/data/f.txt', 'A'.repeat(5000)]);
      const page = await context.newPage();
      await page.goto(`${base}run.html?${query(route, d('crash'), ['write-hang', '/data/f.txt', 'B'.repeat(7000)])}`);
      await page.waitForFunction(() => document.getElementById('stdout')?.textContent === 'hanging\n');
      await crashTab(page);
      const r = await runOk(route, d('crash'), ['read', '/data/f.txt']);
      // The idle write-back may have written the unsynced bytes before the crash: old or new, whole.
      assert.ok(r.stdout === 'A'.repeat(5000) || r.stdout === 'B'.repeat(7000), `mixed or cut file: ${r.stdout.length} bytes`);
      assert.deepEqual(await opfsList(d('crash')), ['f.txt'], 'no temporary left after the next mount');
    });

    test('a crash right after close (write-back queued, not waited for) leaves the old or the new file, whole', async () => {
      await runOk(route, d('crash2'), ['write', '/data/g.txt', 'old'.repeat(1000)]);
      const page = await context.newPage();
      await page.goto(`${base}run.html?${query(route, d('crash2'), ['write-close', '/data/g.txt', 'new'.repeat(2000)])}`);
      await page.waitForFunction(() => window.spindleResult);
      await crashTab(page);
      const r = await runOk(route, d('crash2'), ['read', '/data/g.txt']);
      assert.ok(r.stdout === 'old'.repeat(1000) || r.stdout === 'new'.repeat(2000), `mixed or cut file: ${r.stdout.length} bytes`);
    });

    test('close without fsync: the queued write-back reaches OPFS while the page stays open', async () => {
      const page = await context.newPage();
      try {
        const r = await run(route, page, d('closed'), ['write-close', '/data/c.txt', 'written at close']);
        assert.deepEqual([r.code, r.stdout], [0, 'closed\n']);
        const seen = await pollOpfsText(d('closed'), 'c.txt', 'written at close');
        assert.equal(seen, 'written at close');
      } finally {
        await page.close();
      }
    });

    test('fd left open and idle: the idle write-back persists the bytes, a crash of the tab keeps them', async () => {
      const text = 'idle bytes ' + 'z'.repeat(3000);
      const page = await context.newPage();
      await page.goto(`${base}run.html?${query(route, d('idle'), ['write-hang', '/data/i.txt', text])}`);
      await page.waitForFunction(() => document.getElementById('stdout')?.textContent === 'hanging\n');
      const seen = await pollOpfsText(d('idle'), 'i.txt', text);
      assert.equal(seen, text, 'in OPFS while the program sleeps with the fd open (no close, no fsync)');
      await crashTab(page);
      const r = await runOk(route, d('idle'), ['read', '/data/i.txt']);
      assert.equal(r.stdout, text, 'the next mount after the crash reads them');
    });

    for (const how of ['return', 'exit']) {
      test(`fd never closed nor fsynced, main ends by ${how}: the exit flush writes the file back`, async () => {
        const text = `left open at ${how} ` + 'y'.repeat(2000);
        const page = await context.newPage();
        try {
          const r = await run(route, page, d(`exit-${how}`), [`write-${how}`, '/data/o.txt', text]);
          assert.deepEqual([r.code, r.stdout], [0, 'left open\n']);
          const seen = await pollOpfsText(d(`exit-${how}`), 'o.txt', text);
          assert.equal(seen, text, 'page JS sees the bytes in OPFS');
        } finally {
          await page.close();
        }
        const r = await runOk(route, d(`exit-${how}`), ['read', '/data/o.txt']);
        assert.equal(r.stdout, text, 'a new page (new mount) reads them back');
      });
    }

    test('files that page code created in OPFS before the mount are visible to the program', async () => {
      const page = await context.newPage();
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
      assert.equal((await runOk(route, d('pre'), ['read', '/data/sub/from-page.txt'])).stdout, 'written by page JS');
      assert.equal((await runOk(route, d('pre'), ['ls', '/data'])).stdout, 'sub\n');
    });

    test('mkdir, rename, rmdir, unlink reach OPFS in order (fsync of the directory waits for them)', async () => {
      assert.equal((await runOk(route, d('ns'), ['ops', '/data'])).stdout, 'closed\nclosed\nops done\n');
      assert.deepEqual(await opfsList(d('ns')), ['d']);
      assert.deepEqual(await opfsList(d('ns/d')), ['b']);
      assert.equal(await opfsText(d('ns'), 'd/b'), 'moved');
      assert.equal((await runOk(route, d('ns'), ['read', '/data/d/b'])).stdout, 'moved');
    });

    test('threads: files fsynced by 4 threads, an fd opened by main and closed by another thread', async () => {
      assert.equal((await runOk(route, d('thr'), ['threads', '/data'])).stdout, 'threads done\n');
      assert.deepEqual(await opfsList(d('thr')), ['shared', 't0', 't1', 't2', 't3']);
      for (let i = 0; i < 4; i++) assert.equal(await opfsText(d('thr'), `t${i}`), `thread ${i} was here`);
      assert.equal(await opfsText(d('thr'), 'shared'), 'shared fd');
    });

    test('a directory rename reaches OPFS with its files (recreated file by file: no move() for directories)', async () => {
      assert.equal((await runOk(route, d('dirmv'), ['dirmove', '/data'])).stdout, 'synced\ndirmove done\n');
      assert.deepEqual(await opfsList(d('dirmv')), ['q']);
      assert.equal(await opfsText(d('dirmv'), 'q/x'), 'in a moved directory');
      assert.equal((await runOk(route, d('dirmv'), ['read', '/data/q/x'])).stdout, 'in a moved directory');
    });

    test('over the quota, fsync fails with ENOSPC (51) and the old file stays whole', async () => {
      await runOk(route, d('quota'), ['write', '/data/q.bin', 'small']);
      const page = await context.newPage();
      try {
        await page.goto(`${base}run.html`);
        const cdp = await context.newCDPSession(page);
        const origin = new URL(base).origin;
        await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 2 << 20 });
        const r = await run(route, page, d('quota'), ['fill', '/data/q.bin', String(8 << 20)]);
        assert.equal(r.stdout, 'fsync errno 51\n');
        await cdp.send('Storage.overrideQuotaForOrigin', { origin });
      } finally {
        await page.close();
      }
      assert.equal(await opfsText(d('quota'), 'q.bin'), 'small');
    });
  });
}

describe('OPFS mounts: route-specific refusals', () => {
  test('a program linked without the opfs feature refuses the mount and says what to link', async () => {
    const page = await context.newPage();
    try {
      const r = await run(IN_PROGRAM, page, 'nofeature', ['ls', '/data'], 'opfs_guest_mem.wasm');
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /GUEST=opfs:DIR needs libspindle-fs-opfs\.a/);
    } finally {
      await page.close();
    }
  });

  test("Node: an OPFS mount on the runtime's filesystem is refused before anything starts", async () => {
    const { run: runNode } = await import('../dist/index.js');
    await assert.rejects(runNode(join(built, 'opfs_guest_rt.wasm'), { args: ['ls', '/data'], mounts: ['/data=opfs:x'] }),
      (e) => e.code === 'BAD_OPTION' && /OPFS exists only in browsers/.test(e.message));
    const cli = spawnSync(process.execPath, [cliPath, 'run', '--mount', '/data=opfs:x', join(built, 'opfs_guest_rt.wasm'), 'ls', '/data'], { encoding: 'utf8' });
    assert.equal(cli.status, 2);
    assert.match(cli.stderr, /--mount \/data=opfs:x: OPFS exists only in browsers/);
  });
});
