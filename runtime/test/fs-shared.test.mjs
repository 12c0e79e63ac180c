// The runtime's shared filesystem (configuration (iii) of issue 5): the fs guests of tests/fs-guests
// built WITHOUT the in-program FS (<name>_rt.wasm, `bash tests/fs-guests/build.sh`) on a memory
// mount (--mount /tmp=memory), threads included; a memory mount beside a host directory;
// --preload / --save; and the shared fd table itself (fs/shared-fd-table.ts).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { SharedFdTable, GEN, HOST_DIR, HOST_FILE, MEMFS, STDIN, STDOUT, FREE, KIND } from '../dist/fs/shared-fd-table.js';
import { assertOneLineError, expectGuestOk, fsGuest, fsGuestsBuild, repoRoot, wasmtimeBin, withTempDir, runCliAsync, runGuest, needs } from './helpers.mjs';

const built = fsGuestsBuild;
const wasmtime = wasmtimeBin;

const wasm = fsGuest;

const withDir = (f) => withTempDir('spindle-fs-shared-', f);

const expectOk = expectGuestOk;

describe('(iii) unmodified fs guests on a memory mount (--mount /tmp=memory)', () => {
  for (const name of ['stdio', 'posix', 'dirs', 'links', 'badinput', 'append_threads', 'threads_share', 'dir_threads']) {
    test(name, async () => expectOk(await runCliAsync(['run', '--mount', '/tmp=memory', wasm(`${name}_rt`)]), name));
  }
  test('preopens (wasi-libc\'s preopen table and cwd), with threads', async () => {
    expectOk(await runCliAsync(['run', '--mount', '/tmp=memory', wasm('preopens_rt'), 'threads']), 'preopens');
  });
  test('fs_rust (std::fs without the crate), with threads', async () => {
    expectOk(await runCliAsync(['run', '--mount', '/tmp=memory', wasm('fs_rust_rt'), 'threads']), 'fs_rust');
  });
  test('a plain wasm32-wasip1 program (its own memory, run on the calling thread): fs_rust', async () => {
    expectOk(await runCliAsync(['run', '--mount', '/tmp=memory', wasm('fs_rust_wasip1_rt')]), 'fs_rust');
  });
  test('hostdir: a host directory beside a memory mount; rename between them is EXDEV', () => withDir(async (dir) => {
    expectOk(await runCliAsync(['run', '--dir', `${dir}::/host`, '--mount', '/tmp=memory', wasm('hostdir_rt')]), 'hostdir');
    assert.equal(readFileSync(join(dir, 'from-guest.txt'), 'utf8'), 'to the host\n');
    assert.deepEqual(readdirSync(dir), ['from-guest.txt']); // /tmp's files stayed in memory
  }));
  test('through the JS API, on the calling thread and on a worker', async () => {
    for (const runOnCallingThread of [true, false]) {
      const r = await runGuest(wasm('links_rt'), { mounts: ['/tmp'], runOnCallingThread });
      assert.deepEqual({ code: r.code, stdout: r.stdout, stderr: r.stderr }, { code: 0, stdout: 'links ok\n', stderr: '' }, `runOnCallingThread ${runOnCallingThread}`);
    }
  });
});

describe('differential: the probe guest on a memory mount and on wasmtime 46 (--dir of an empty host directory)', {
  skip: needs(wasmtime, 'bash bench/harness/setup.sh (installs wasmtime 46)'),
}, () => {
  // Deliberate differences: fd_allocate (wasmtime 46: ENOTSUP; spindle grows the file), and the
  // st_size of a directory, which is the filesystem's own (4096 on ext4, the entry count here).
  const normalize = (out) => out.replace(/^allocate f: 58$/m, 'allocate f: 0').replace(/type 3 nlink (\d+) size \d+/g, 'type 3 nlink $1 size (dir)');
  test('same output line by line', () => withDir(async (dir) => {
    const ours = await runCliAsync(['run', '--mount', '/d=memory', wasm('probe_rt')]);
    const theirs = spawnSync(wasmtime, ['run', '-W', 'threads=y,shared-memory=y', '-S', 'threads=y', '--dir', `${dir}::/d`, wasm('probe_rt')],
      { encoding: 'utf8', timeout: 120_000 });
    assert.equal(theirs.status, 0, theirs.stderr);
    assert.equal(ours.status, 0, ours.stderr);
    assert.deepEqual(normalize(ours.stdout).split('\n'), normalize(theirs.stdout).split('\n'));
  }));
});

describe('--preload and --save', () => {
  const run = (flags, guestArgs) => runCliAsync(['run', ...flags, wasm('tree_rt'), ...guestArgs]);

  function sampleDir(dir) {
    const src = join(dir, 'src');
    mkdirSync(join(src, 'sub'), { recursive: true });
    writeFileSync(join(src, 'a.txt'), 'hello');
    writeFileSync(join(src, 'sub', 'b.txt'), 'deep');
    symlinkSync('a.txt', join(src, 'link'));
    return src;
  }
  const LISTING = 'f a.txt: hello\nl link -> a.txt\nd sub\nf sub/b.txt: deep\n';

  test('a host directory preloaded, changed by the program, saved at a non-zero exit, preloaded again from the tar', () => withDir(async (dir) => {
    const src = sampleDir(dir);
    const out = join(dir, 'out.tar');
    let r = await run(['--mount', '/data=memory', '--preload', `${src}::/data`, '--save', `/data::${out}`], ['/data', 'new.txt', 'written', '3']);
    assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 3, stdout: LISTING, stderr: '' });
    assert.ok(existsSync(out));
    assert.deepEqual(readdirSync(dir).sort(), ['out.tar', 'src']); // no temporary file left behind
    const names = execFileSync('tar', ['tf', out], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
    assert.deepEqual(names, ['a.txt', 'link', 'new.txt', 'sub/', 'sub/b.txt']);
    r = await run(['--mount', '/data=memory', '--preload', `${out}::/data/x`], ['/data']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'd x\nf x/a.txt: hello\nl x/link -> a.txt\nf x/new.txt: written\nd x/sub\nf x/sub/b.txt: deep\n');
  }));

  test('a tar made by tar(1) is preloaded', () => withDir(async (dir) => {
    const src = sampleDir(dir);
    const t = join(dir, 'gnu.tar');
    execFileSync('tar', ['cf', t, '-C', src, '.']);
    const r = await run(['--mount', '/data=memory', '--preload', `${t}::/data`], ['/data']);
    assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 0, stdout: LISTING, stderr: '' });
  }));

  test('a corrupt tar: one-line error, exit 1, the program never starts', () => withDir(async (dir) => {
    const src = sampleDir(dir);
    const t = join(dir, 'good.tar');
    execFileSync('tar', ['cf', t, '-C', src, '.']);
    const bad = join(dir, 'bad.tar');
    writeFileSync(bad, readFileSync(t).subarray(0, 700));
    const r = await run(['--mount', '/data=memory', '--preload', `${bad}::/data`], ['/data']);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assertOneLineError(r.stderr, /^spindle: error: --preload .*bad\.tar: .*(truncated|cut off)/);
  }));

  test('--save never leaves a partial file: a target that cannot be replaced fails with a clear error, exit 1, no temporary left', () => withDir(async (dir) => {
    const target = join(dir, 'taken');
    mkdirSync(join(target, 'inside'), { recursive: true }); // a non-empty directory: rename onto it fails
    const r = await run(['--mount', '/data=memory', '--save', `/data::${target}`], ['/data', 'x', 'y']);
    assert.equal(r.status, 1);
    assertOneLineError(r.stderr, /--save \/data::.*taken: cannot write .*taken \((EISDIR|ENOTEMPTY|EEXIST)\)/);
    assert.deepEqual(readdirSync(dir), ['taken']);
    assert.deepEqual(readdirSync(target), ['inside']);
  }));

  test('--preload of a missing source and --save outside a memory mount: usage errors (exit 2)', () => withDir(async (dir) => {
    let r = await run(['--mount', '/data=memory', '--preload', `${join(dir, 'nope')}::/data`], ['/data']);
    assert.equal(r.status, 2);
    assertOneLineError(r.stderr, /--preload .*nope: no such file or directory/);
    r = await run(['--mount', '/data=memory', '--save', `/elsewhere::${join(dir, 'x.tar')}`], ['/data']);
    assert.equal(r.status, 2);
    assertOneLineError(r.stderr, /--save: \/elsewhere is not inside a memory mount/);
    r = await run(['--mount', 'relative=memory'], ['/data']);
    assert.equal(r.status, 2);
    assertOneLineError(r.stderr, /--mount relative: give an absolute guest path/);
  }));
});

describe('the shared fd table', () => {
  test('stdio at 0-2, preopens next, lowest free number, EBADF/EMFILE, renumber needs both fds open', () => {
    const t = SharedFdTable.create();
    assert.equal(t.insertEntry({ kind: MEMFS, handle: 100, path: '/x', mount: 0, preopen: 1 }), 3);
    assert.equal(t.field(0, KIND), STDIN);
    assert.equal(t.field(1, KIND), STDOUT);
    assert.equal(t.path(3), '/x');
    // A second view on the same buffer (as another thread has) sees the same entries.
    const released = [];
    const other = new SharedFdTable(t.buffer).bind({ materialize: () => ({}), release: (_t, kind, handle) => released.push([kind, handle]), closeOs: () => {} });
    assert.equal(other.path(3), '/x');
    const fd = other.insertEntry({ kind: MEMFS, handle: 101, path: '/y', mount: 0 });
    assert.equal(fd, 4);
    assert.throws(() => other.renumber(4, 9), (e) => e.errno === 8);
    other.renumber(4, 3);
    assert.deepEqual(released, [[MEMFS, 100]]); // the fd renumbered over was released, once
    assert.equal(t.path(3), '/y');
    assert.equal(t.field(4, KIND), FREE);
    assert.throws(() => other.get(4), (e) => e.errno === 8);
    other.close(3);
    assert.throws(() => other.close(3), (e) => e.errno === 8);
    assert.throws(() => other.get(1 << 30), (e) => e.errno === 8);
    for (let i = 3; i < 1024; i++) other.insertEntry({ kind: MEMFS, handle: i, path: '/z', mount: 0 });
    assert.throws(() => other.insertEntry({ kind: MEMFS, path: '/z', mount: 0 }), (e) => e.errno === 33); // EMFILE
  });

  test('a cached descriptor is replaced when the entry changes (generation)', () => {
    const kinds = { materialize: () => ({}), release: () => {}, closeOs: () => {} };
    const t = SharedFdTable.create().bind(kinds);
    let made = 0;
    const view = new SharedFdTable(t.buffer).bind({ ...kinds, materialize: (_t, fd) => ({ fd, n: ++made }) });
    const fd = t.insertEntry({ kind: MEMFS, handle: 1, path: '/a', mount: 0 });
    const a = view.get(fd);
    assert.equal(view.get(fd), a); // cached
    t.close(fd);
    t.insertEntry({ kind: MEMFS, handle: 2, path: '/b', mount: 0 });
    assert.notEqual(view.get(fd), a);
    assert.equal(made, 2);
  });

  test('an OS fd is closed by its last user: a pinned call outlives a close; a stale descriptor cannot pin', () => {
    const closed = [];
    const kinds = { materialize: () => ({}), release: () => {}, closeOs: (os) => closed.push(os) };
    const t = SharedFdTable.create().bind(kinds);
    const other = new SharedFdTable(t.buffer).bind(kinds);
    const fd = t.insertEntry({ kind: HOST_FILE, handle: 40, mount: 0 });
    const gen = t.field(fd, GEN);
    assert.equal(other.pinOs(fd, gen), 40); // a call in flight on another thread
    t.close(fd);
    assert.deepEqual(closed, []); // not while the call runs
    assert.equal(other.pinOs(fd, gen), -1); // a later call through the stale descriptor: refused
    assert.throws(() => other.withEntryLock(fd, gen, () => 0), (e) => e.errno === 8);
    // The number may be reused at once, with another OS fd: the stale pin still refers to 40.
    const again = t.insertEntry({ kind: HOST_FILE, handle: 41, mount: 0 });
    assert.equal(again, fd);
    assert.equal(other.pinOs(fd, gen), -1);
    other.unpinOs(40);
    assert.deepEqual(closed, [40]); // the last user closed it, once
    // The OS handing out a number the table still holds is a broken invariant, not an errno.
    assert.throws(() => t.insertEntry({ kind: HOST_DIR, handle: 41, mount: 0 }), /OS fd 41 was handed out/);
    assert.throws(() => t.insertEntry({ kind: HOST_FILE, handle: 1 << 20, mount: 0 }), (e) => e.errno === 33); // EMFILE
    // renumber drops the reference of the fd it replaces; closeAll the rest (a pinned one stays open).
    const d = t.insertEntry({ kind: HOST_DIR, handle: 42, mount: 0 });
    t.renumber(d, again);
    assert.deepEqual(closed, [40, 41]);
    const e = t.insertEntry({ kind: HOST_FILE, handle: 43, mount: 0 });
    assert.equal(other.pinOs(e, t.field(e, GEN)), 43);
    const atEnd = [];
    t.closeAll((os) => atEnd.push(os));
    assert.deepEqual(atEnd, [42]);
    other.unpinOs(43);
    assert.deepEqual(closed, [40, 41, 43]);
  });

  test('4 threads opening, checking and closing fds at once: no fd number is ever held twice', async () => {
    // Each worker inserts entries whose handle is its own stamp, checks that its fds keep that
    // stamp while it holds them (another thread getting the same number would overwrite it),
    // and closes them again; a release callback counts that each entry is released once.
    const t = SharedFdTable.create();
    const url = new URL('../dist/fs/shared-fd-table.js', import.meta.url).href;
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(${JSON.stringify(url)}).then(({ SharedFdTable, HANDLE, MEMFS }) => {
        const { buffer, id } = workerData;
        let released = 0;
        const t = new SharedFdTable(buffer).bind({ materialize: () => ({}), release: () => { released++; }, closeOs: () => {} });
        let bad = 0, seed = id * 7919 + 1;
        const rand = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
        const held = [];
        for (let i = 0; i < 20000; i++) {
          if (held.length < 20 && rand(2) === 0) {
            const stamp = id * 1000000 + i;
            held.push([t.insertEntry({ kind: MEMFS, handle: stamp, path: 'p' + stamp, mount: 0 }), stamp]);
          } else if (held.length > 0) {
            const [fd, stamp] = held.splice(rand(held.length), 1)[0];
            if (t.field(fd, HANDLE) !== stamp || t.path(fd) !== 'p' + stamp) bad++;
            t.close(fd);
          }
          for (const [fd, stamp] of held) if (t.field(fd, HANDLE) !== stamp) bad++;
        }
        for (const [fd] of held) t.close(fd);
        parentPort.postMessage({ bad, released });
      });`;
    const results = await Promise.all([1, 2, 3, 4].map((id) => new Promise((resolve, reject) => {
      const w = new Worker(code, { eval: true, workerData: { buffer: t.buffer, id } });
      w.once('message', resolve);
      w.once('error', reject);
    })));
    for (const r of results) assert.equal(r.bad, 0);
    const opened = [];
    for (let fd = 0; fd < 1024; fd++) if (t.field(fd, KIND) !== FREE) opened.push(fd);
    assert.deepEqual(opened, [0, 1, 2]); // everything closed again, stdio untouched
  });

  test('the entry lock excludes: 4 threads doing read-modify-write of one shared word under it, none lost, none stuck', async () => {
    // Each worker adds 1 to a plain (non-atomic) counter under the entry lock of one fd, with a
    // pause inside so that the others queue and sleep on the lock (its contended path): a lost
    // update would show mutual exclusion broken, a hang a lost wake-up.
    const t = SharedFdTable.create();
    const fd = t.insertEntry({ kind: MEMFS, handle: 7, mount: 0 });
    const gen = t.field(fd, GEN);
    const counter = new Int32Array(new SharedArrayBuffer(8));
    const url = new URL('../dist/fs/shared-fd-table.js', import.meta.url).href;
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(${JSON.stringify(url)}).then(({ SharedFdTable }) => {
        const { buffer, fd, gen, counter } = workerData;
        const t = new SharedFdTable(buffer).bind({ materialize: () => ({}), release: () => {}, closeOs: () => {} });
        const c = new Int32Array(counter);
        for (let i = 0; i < 3000; i++) {
          t.withEntryLock(fd, gen, () => {
            const v = c[0];
            if (i % 100 === 0) Atomics.wait(c, 1, 0, 1); // hold it a while
            c[0] = v + 1;
          });
        }
        parentPort.postMessage('done');
      });`;
    await Promise.all([1, 2, 3, 4].map(() => new Promise((resolve, reject) => {
      const w = new Worker(code, { eval: true, workerData: { buffer: t.buffer, fd, gen, counter: counter.buffer } });
      w.once('message', resolve);
      w.once('error', reject);
    })));
    assert.equal(counter[0], 4 * 3000);
    assert.equal(t.withEntryLock(fd, gen, () => 'free again'), 'free again');
  });
});
