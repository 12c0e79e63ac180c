/**
 * The runtime's memory filesystem (src/fs/memfs.ts over crates/spindle-fs-module), driven
 * directly from Node: on the main thread and from worker_threads that share one MemFs, each
 * thread calling its own instance of the module on the shared memory (no proxy).
 *
 * Needs runtime/dist/spindle-fs.wasm: `bash tools/build-fs-module.sh` then `npm run build`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { MemFs as MemFsModule } from '../dist/fs/memfs.js';
import { nodePlatform } from '../dist/platform/node/index.js';
import { needs } from './helpers.mjs';
import { wasiPreview1 } from '../dist/wasi/preview1.js';
import { LocalFdTable } from '../dist/wasi/fd-table.js';
import { stdioDescriptors } from '../dist/wasi/stdio.js';
import { readImports } from '../dist/wasm-imports.js';

/** The memory FS as program setup creates it: the module read with the Node platform's readFile. */
const MemFs = { create: (options) => MemFsModule.create({ readFile: nodePlatform.readFile, ...options }) };

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const repo = join(dist, '..', '..');
const memfsUrl = pathToFileURL(join(dist, 'fs', 'memfs.js')).href;
assert.ok(existsSync(join(dist, 'spindle-fs.wasm')), 'runtime/dist/spindle-fs.wasm is missing: run `bash tools/build-fs-module.sh` and `npm run build` in runtime/');

const CREAT = 1, DIRECTORY = 2, EXCL = 4, TRUNC = 8;
const APPEND = 1;
const ALL = 0x1fffffffn;
/** What wasi-libc's opendir asks for: no write-mode right (datasync, write, allocate, set_size). */
const R_DIR = ALL & ~(0x1n | 0x40n | 0x100n | 0x400000n);
const FOLLOW = 1;
const EBADF = 8, ENOENT = 44, EXDEV = 75, ENOTDIR = 54;
const enc = new TextEncoder();
const dec = new TextDecoder();

/** The WASI errno a call fails with (the layer throws a WasiErrno carrying it). */
function errnoOf(f) {
  try {
    f();
  } catch (e) {
    if (typeof e?.errno === 'number') return e.errno;
    throw e;
  }
  return 0;
}

function writeFile(dir, path, text, oflags = CREAT | TRUNC, fdflags = 0) {
  const f = dir.open(0, path, oflags, ALL, ALL, fdflags);
  f.write(enc.encode(text));
  f.close();
}

function readFile(dir, path, lookupflags = 0) {
  const f = dir.open(lookupflags, path, 0, ALL, ALL, 0);
  const parts = [];
  for (;;) {
    const b = f.read(4096);
    if (b.length === 0) break;
    parts.push(dec.decode(b));
  }
  f.close();
  return parts.join('');
}

/** Parses readdir output: [{ next, name, type }] (entries cut off at the end are dropped). */
function dirents(bytes) {
  const out = [];
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let p = 0;
  while (p + 24 <= bytes.length) {
    const len = v.getUint32(p + 16, true);
    if (p + 24 + len > bytes.length) break;
    out.push({ next: v.getBigUint64(p, true), type: v.getUint8(p + 20), name: dec.decode(bytes.slice(p + 24, p + 24 + len)) });
    p += 24 + len;
  }
  return out;
}

/**
 * Runs `body` (the source of an async function of (thread, init, arg, helpers)) in a worker that
 * joins the memory FS with memFsThread(init); resolves with what it returns.
 */
function inWorker(memfs, body, arg) {
  const src = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const { memFsThread } = await import(workerData.url);
      const t = memFsThread(workerData.init);
      const enc = new TextEncoder(), dec = new TextDecoder();
      try {
        const r = await (${body})(t, workerData.init, workerData.arg, { enc, dec });
        t.dispose();
        parentPort.postMessage({ ok: r });
      } catch (e) {
        parentPort.postMessage({ err: String(e?.stack ?? JSON.stringify(e)) });
      }
    })();`;
  return new Promise((resolve, reject) => {
    const w = new Worker(src, { eval: true, workerData: { url: memfsUrl, init: memfs.init, arg } });
    w.once('message', (m) => (m.err ? reject(new Error(m.err)) : resolve(m.ok)));
    w.once('error', reject);
  });
}

test('main thread: files, stat, fdstat of the preopen, bad fds are EBADF', async () => {
  const fs = await MemFs.create({ mounts: ['/tmp', '/data'] });
  const t = fs.thread();
  const root = t.preopen('/tmp');
  assert.equal(dec.decode(root.prestatName()), '/tmp');
  assert.equal(root.fdstat().filetype, 3);
  const dir = root.asDirectory();
  writeFile(dir, 'a.txt', 'hello');
  assert.equal(readFile(dir, 'a.txt'), 'hello');
  const st = dir.filestat(0, 'a.txt');
  assert.equal(st.size, 5n);
  assert.equal(st.filetype, 4);
  assert.equal(st.nlink, 1n);
  assert.ok(st.mtim > 1_600_000_000n * 1_000_000_000n, 'mtime is wall-clock ns');
  // A file opened on one thread is a module fd; a descriptor for it on the same thread is the same file.
  const f = dir.open(0, 'a.txt', 0, ALL, ALL, 0);
  assert.equal(dec.decode(t.descriptor(f.memFd).read(3)), 'hel');
  assert.equal(dec.decode(f.read(10)), 'lo', 'the offset is shared by every descriptor of the fd');
  f.close();
  for (const bad of [f.memFd, 999, 0x7fffffff]) {
    const d = t.descriptor(bad);
    assert.equal(errnoOf(() => d.read(1)), EBADF);
    assert.equal(errnoOf(() => d.write(enc.encode('x'))), EBADF);
    assert.equal(errnoOf(() => d.fdstat()), EBADF);
    assert.equal(errnoOf(() => d.close()), EBADF);
  }
  assert.equal(errnoOf(() => dir.open(0, 'missing', 0, ALL, ALL, 0)), ENOENT);
  // Path calls relative to a file are ENOTDIR, as Linux's openat.
  const file = dir.open(0, 'a.txt', 0, ALL, ALL, 0);
  assert.equal(errnoOf(() => file.asDirectory().open(0, 'x', 0, ALL, ALL, 0)), ENOTDIR);
  file.close();
  // Mounts are separate devices: a rename between them, or to a directory of another FS, is EXDEV.
  const data = t.preopen('/data').asDirectory();
  assert.equal(errnoOf(() => dir.rename('a.txt', data, 'a.txt')), EXDEV);
  assert.equal(errnoOf(() => dir.link(0, 'a.txt', { rename() {} }, 'b')), EXDEV);
  assert.equal(readFile(dir, 'a.txt'), 'hello');
});

test('large reads and writes go through a module block (beyond the scratch area)', async () => {
  const fs = await MemFs.create({ mounts: ['/tmp'] });
  const dir = fs.thread().preopen('/tmp').asDirectory();
  const big = new Uint8Array(300_000).map((_, i) => (i * 7) & 0xff);
  const f = dir.open(0, 'big', CREAT, ALL, ALL, 0);
  assert.equal(f.write(big), big.length);
  const back = f.pread(big.length + 10, 0n);
  assert.equal(back.length, big.length);
  assert.deepEqual(back, big);
  f.close();
});

test('threads: a file written by one thread is read by another; an fd opened in one is used in another', async () => {
  const fs = await MemFs.create({ mounts: ['/tmp'] });
  const dir = fs.thread().preopen('/tmp').asDirectory();
  writeFile(dir, 'from-main.txt', 'written on main');
  const shared = dir.open(0, 'shared.txt', CREAT, ALL, ALL, 0);
  shared.write(enc.encode('main:'));
  const got = await inWorker(fs, `async (t, init, memFd, { enc, dec }) => {
    const dir = t.preopen('/tmp').asDirectory();
    const f = dir.open(0, 'from-main.txt', 0, 0x1fffffffn, 0x1fffffffn, 0);
    const text = dec.decode(f.read(100));
    f.close();
    const w = dir.open(0, 'from-worker.txt', 1, 0x1fffffffn, 0x1fffffffn, 0);
    w.write(enc.encode('written on a worker'));
    w.close();
    const s = t.descriptor(memFd);
    s.write(enc.encode('worker'));
    return { text, offset: Number(s.tell()) };
  }`, shared.memFd);
  assert.equal(got.text, 'written on main');
  assert.equal(got.offset, 11);
  assert.equal(shared.tell(), 11n, 'the worker moved the shared offset');
  shared.close();
  assert.equal(readFile(dir, 'shared.txt'), 'main:worker');
  assert.equal(readFile(dir, 'from-worker.txt'), 'written on a worker');
});

test('threads: O_APPEND from 4 workers at once loses nothing', async () => {
  const fs = await MemFs.create({ mounts: ['/tmp'] });
  const dir = fs.thread().preopen('/tmp').asDirectory();
  const common = dir.open(0, 'log', CREAT, ALL, ALL, APPEND);
  const N = 500;
  await Promise.all([0, 1, 2, 3].map((w) => inWorker(fs, `async (t, init, { w, N, memFd }, { enc }) => {
    const dir = t.preopen('/tmp').asDirectory();
    const own = dir.open(0, 'log', 0, 0x1fffffffn, 0x1fffffffn, 1);
    const viaShared = t.descriptor(memFd);
    for (let i = 0; i < N; i++) {
      const rec = enc.encode(('w' + w + ' ' + i).padEnd(15, '.') + '\\n');
      (i % 2 ? own : viaShared).write(rec);
    }
    own.close();
  }`, { w, N, memFd: common.memFd })));
  common.close();
  const text = readFile(dir, 'log');
  assert.equal(text.length, 4 * N * 16);
  const lines = text.split('\n').slice(0, -1);
  assert.equal(lines.length, 4 * N);
  for (let w = 0; w < 4; w++) {
    const mine = lines.filter((l) => l.startsWith(`w${w} `)).map((l) => Number(l.slice(3).replace(/\.+$/, '')));
    assert.deepEqual(mine, Array.from({ length: N }, (_, i) => i), `writer ${w}'s records, in order, each whole`);
  }
});

test('unlink while open, rename across directories, readdir cookies', async () => {
  const fs = await MemFs.create({ mounts: ['/tmp'] });
  const root = fs.thread().preopen('/tmp');
  const dir = root.asDirectory();
  const f = dir.open(0, 'doomed', CREAT, ALL, ALL, 0);
  f.write(enc.encode('still here'));
  dir.unlinkFile('doomed');
  assert.equal(errnoOf(() => dir.filestat(0, 'doomed')), ENOENT);
  assert.equal(dec.decode(f.pread(100, 0n)), 'still here');
  assert.equal(f.filestat().nlink, 0n);
  f.close();

  dir.createDirectory('a');
  dir.createDirectory('b');
  writeFile(dir, 'a/x', 'moving');
  dir.rename('a/x', dir, 'b/y');
  assert.equal(errnoOf(() => dir.filestat(0, 'a/x')), ENOENT);
  assert.equal(readFile(dir, 'b/y'), 'moving');
  const a = dir.open(0, 'a', DIRECTORY, R_DIR, ALL, 0);
  const b = dir.open(0, 'b', DIRECTORY, R_DIR, ALL, 0);
  // Between two directory fds; '..' above a directory fd is EPERM (confined; wasmtime's errno).
  assert.equal(errnoOf(() => a.asDirectory().rename('../b/y', b.asDirectory(), 'z')), 63);
  b.asDirectory().rename('y', a.asDirectory(), 'back');
  assert.equal(errnoOf(() => dir.filestat(0, 'b/y')), ENOENT);
  assert.equal(readFile(dir, 'a/back'), 'moving');
  a.close();
  b.close();

  dir.createDirectory('list');
  const names = ['one', 'two', 'three', 'four', 'five'];
  for (const n of names) writeFile(dir, `list/${n}`, n);
  const d = dir.open(0, 'list', DIRECTORY, R_DIR, ALL, 0);
  const all = dirents(d.readdir(0n, 4096));
  assert.deepEqual(all.slice(0, 2).map((e) => e.name), ['.', '..']);
  assert.deepEqual(all.slice(2).map((e) => e.name).sort(), [...names].sort());
  assert.ok(all.slice(2).every((e) => e.type === 4));
  // Resuming from any entry's cookie lists exactly the entries after it.
  for (let i = 0; i < all.length; i++) {
    assert.deepEqual(dirents(d.readdir(all[i].next, 4096)).map((e) => e.name), all.slice(i + 1).map((e) => e.name));
  }
  // A small buffer ends with a cut-off entry (as wasmtime), never more than asked.
  assert.equal(d.readdir(0n, 30).length, 30);
  d.close();
});

test('tar: export and import round trip; a corrupt tar is refused whole with where and what', async () => {
  const fs = await MemFs.create({ mounts: ['/tmp'] });
  const dir = fs.thread().preopen('/tmp').asDirectory();
  dir.createDirectory('src');
  dir.createDirectory('src/sub');
  writeFile(dir, 'src/hello.txt', 'hello tar');
  writeFile(dir, 'src/sub/deep.bin', 'x'.repeat(5000));
  dir.symlink('hello.txt', 'src/link');
  const tar = fs.exportTar('/tmp/src');
  assert.equal(tar.length % 512, 0);

  const other = await MemFs.create({ mounts: ['/data'] });
  other.importTar('/data/copy', tar);
  const odir = other.thread().preopen('/data').asDirectory();
  assert.equal(readFile(odir, 'copy/hello.txt'), 'hello tar');
  assert.equal(readFile(odir, 'copy/sub/deep.bin'), 'x'.repeat(5000));
  assert.equal(dec.decode(odir.readlink('copy/link')), 'hello.txt');
  assert.equal(readFile(odir, 'copy/link', FOLLOW), 'hello tar');

  const bad = tar.slice();
  const second = 512 * 2; // some header after the first entry
  bad[second + 10] ^= 0x55;
  assert.throws(() => other.importTar('/data/broken', bad), (e) => e.name === 'SpindleError' && /checksum/.test(e.message) && /byte \d+/.test(e.message));
  assert.throws(() => other.importTar('/data/broken', tar.slice(0, 700)), (e) => e.name === 'SpindleError' && /truncated/.test(e.message));
  const escaping = symlinkTar([['ok', 'x'], ['a/../../evil', 'x']]);
  assert.throws(() => other.importTar('/data/broken', escaping), (e) => e.name === 'SpindleError' && /entry 2 .*outside the target directory/.test(e.message));
  assert.equal(errnoOf(() => odir.filestat(0, 'broken')), ENOENT, 'nothing was imported');
  assert.throws(() => other.importTar('/elsewhere', tar), /not on a memory mount/);
});

test('threads dispose their instance and the next thread reuses its region', async () => {
  const fs = await MemFs.create({ mounts: ['/tmp'] });
  const body = `async (t) => { const d = t.preopen('/tmp').asDirectory(); d.createDirectory('w' + Math.random()); }`;
  await inWorker(fs, body);
  const size = fs.init.memory.buffer.byteLength;
  for (let i = 0; i < 3; i++) await inWorker(fs, body);
  assert.equal(fs.init.memory.buffer.byteLength, size, 'no memory growth for later threads');
});

test('a module that is not the memory FS is refused with the build command', async () => {
  await assert.rejects(MemFs.create({ mounts: ['/tmp'], module: new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]) }), /build-fs-module\.sh/);
});

/** A one-entry-per-symlink ustar stream (the memory FS refuses to create absolute symlinks itself). */
function symlinkTar(links) {
  const blocks = [];
  for (const [name, target] of links) {
    const h = new Uint8Array(512);
    h.set(enc.encode(name), 0);
    h.set(enc.encode('0000777\0'), 100);
    h.set(enc.encode('0000000\0'), 108);
    h.set(enc.encode('0000000\0'), 116);
    h.set(enc.encode('00000000000\0'), 124);
    h.set(enc.encode('00000000000\0'), 136);
    h[156] = 0x32; // '2': symlink
    h.set(enc.encode(target), 157);
    h.set(enc.encode('ustar\0' + '00'), 257);
    h.fill(0x20, 148, 156);
    const sum = h.reduce((a, b) => a + b, 0);
    h.set(enc.encode(sum.toString(8).padStart(6, '0') + '\0 '), 148);
    blocks.push(h);
  }
  blocks.push(new Uint8Array(512), new Uint8Array(512));
  const out = new Uint8Array(blocks.length * 512);
  blocks.forEach((b, i) => out.set(b, i * 512));
  return out;
}

/** Runs a single-threaded guest on this thread with `root` as its only preopen (fd 3); its stdout. */
async function runGuest(wasmPath, root) {
  const bytes = readFileSync(wasmPath);
  const lim = readImports(bytes).memory;
  const memory = new WebAssembly.Memory({ initial: lim.initial, maximum: lim.maximum, shared: lim.shared });
  const out = [];
  const host = {
    memory, args: ['probe'], env: [], threadId: 0,
    writeOutput: (fd, b) => { if (fd === 1) out.push(dec.decode(b)); return 0; },
    readStdin: () => new Uint8Array(0), stdinReady: () => true,
    exit: (code) => { throw { exitCode: code }; },
  };
  const wasi = wasiPreview1(host, { fds: new LocalFdTable([...stdioDescriptors(host, false), root]) });
  const { instance } = await WebAssembly.instantiate(bytes, { env: { memory }, wasi_snapshot_preview1: wasi, wasi: { 'thread-spawn': () => -1 } });
  try {
    instance.exports._start();
  } catch (e) {
    if (e?.exitCode !== 0) throw e;
  }
  return out.join('');
}

const probe = join(repo, 'build', 'tests', 'fs', 'probe_rt.wasm');
const wasmtime = join(repo, 'build', 'bench', 'bin', 'wasmtime');
test('differential: the probe guest on a memory mount and on wasmtime 46 --dir answer the same', {
  skip: needs(probe, 'bash tests/fs-guests/build.sh') || needs(wasmtime, 'bash bench/harness/setup.sh (installs wasmtime 46)'),
}, async () => {
  const links = [['hostabs', '/etc/passwd'], ['hostup', '../../../../../../etc/passwd']];
  const fs = await MemFs.create({ mounts: ['/d'] });
  fs.importTar('/d', symlinkTar(links));
  const ours = await runGuest(probe, fs.thread().preopen('/d'));
  const host = mkdtempSync(join(tmpdir(), 'memfs-probe-'));
  try {
    for (const [name, target] of links) symlinkSync(target, join(host, name));
    const r = spawnSync(wasmtime, ['run', '-W', 'threads=y,shared-memory=y', '-S', 'threads=y', '--dir', `${host}::/d`, probe], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    // Deliberate or inherent differences: fd_allocate grows the file (wasmtime: ENOTSUP, as the
    // host-directory FS does here too); a directory's size is its entry count (the host's is
    // its own); renumbering is the fd table's (this test uses the per-thread LocalFdTable).
    const skip = (l) => /^(allocate f|renumber|renumbered|close renumbered|close old)/.test(l) || /^(sub|dot) filestat/.test(l);
    const theirs = r.stdout.split('\n').filter((l) => !skip(l));
    assert.deepEqual(ours.split('\n').filter((l) => !skip(l)), theirs);
    assert.match(ours, /probe done/);
  } finally {
    rmSync(host, { recursive: true, force: true });
  }
});
