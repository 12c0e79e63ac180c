// The WASI calls of a program on a host directory, made directly on this thread (the same code a
// worker runs: the shared fd table, the Node host-directory driver, wasiPreview1): the answers
// of the lookups a bundler makes by the thousand (path_filestat_get, path_open) for every kind of
// name: missing, a file used as a directory, a symlink inside, climbing inside, escaping, in a
// loop, trailing slashes, a directory without permission; each asked twice, so that the second
// answer comes through the directory cache (host-dir-cache.ts) and must equal the first; a
// cached directory swapped for a symlink is never followed out; in a preopen of the host's root
// an absolute symlink is followed, read and made, elsewhere EPERM. And fd_read of a host file into
// several guest buffers: the bytes in order, a short read at the end, the offset shared.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import * as C from '../dist/wasi/constants.js';
import { hostDirWasi } from './wasi-fake-host.mjs';

const enc = new TextEncoder();
const PATH = 1024, STAT = 4096, IOVS = 4200, OUT = 4300, BUF = 8192;

/** A program's WASI imports with `dir` preopened as fd 3 (guest '/d'), and helpers on its memory. */
function program(dir) {
  const { wasi, memory, bytes } = hostDirWasi(dir);
  const put = (path) => { const b = enc.encode(path); bytes().set(b, PATH); return b.length; };
  return {
    wasi, bytes,
    /** path_filestat_get: the errno, or the filetype. */
    stat(path, follow = false) {
      const e = wasi.path_filestat_get(3, follow ? C.LOOKUPFLAGS_SYMLINK_FOLLOW : 0, PATH, put(path), STAT);
      return e === C.ERRNO_SUCCESS ? `type ${bytes()[STAT + 16]}` : e;
    },
    /** path_open for reading (O_DIRECTORY with `dirOnly`): the errno, or the fd (closed again unless `keep`). */
    open(path, { follow = false, dirOnly = false, keep = false } = {}) {
      const e = wasi.path_open(3, follow ? C.LOOKUPFLAGS_SYMLINK_FOLLOW : 0, PATH, put(path), dirOnly ? C.OFLAGS_DIRECTORY : 0, C.RIGHTS_FD_READ, 0n, 0, OUT);
      if (e !== C.ERRNO_SUCCESS) return e;
      const fd = new DataView(memory.buffer).getUint32(OUT, true);
      if (keep) return fd;
      assert.equal(wasi.fd_close(fd), C.ERRNO_SUCCESS);
      return 'opened';
    },
  };
}

function withTree(f) {
  const base = mkdtempSync(join(tmpdir(), 'spindle-hostdir-wasi-'));
  const dir = join(base, 'root');
  try {
    mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'outside', 'secret.ts'), 'outside');
    writeFileSync(join(dir, 'a.txt'), 'hello, world');
    writeFileSync(join(dir, 'src', 'mod.ts'), 'export {}');
    writeFileSync(join(dir, 'src', 'deep', 'g.js'), 'g');
    symlinkSync('mod.ts', join(dir, 'src', 'link-in'));
    symlinkSync('../a.txt', join(dir, 'src', 'link-up'));
    symlinkSync('deep', join(dir, 'src', 'link-dir'));
    symlinkSync('../../outside', join(dir, 'src', 'link-out'));
    symlinkSync(join(base, 'outside'), join(dir, 'src', 'link-abs'));
    symlinkSync('loop2', join(dir, 'src', 'loop1'));
    symlinkSync('loop1', join(dir, 'src', 'loop2'));
    return f(dir, base);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

const DIR = `type ${C.FILETYPE_DIRECTORY}`, FILE = `type ${C.FILETYPE_REGULAR_FILE}`, LINK = `type ${C.FILETYPE_SYMBOLIC_LINK}`;

test('path_filestat_get and path_open on a host directory: every kind of name, the same answers cold and through the directory cache', () => withTree((dir) => {
  const p = program(dir);
  const cases = [
    // [path, follow, path_filestat_get's answer, path_open's answer (for reading; follow as given)]
    ['a.txt', false, FILE, 'opened'],
    ['src', false, DIR, 'opened'],
    ['src/', false, DIR, 'opened'],
    ['src/mod.ts', false, FILE, 'opened'],
    ['src/mod.ts/', false, C.ERRNO_NOTDIR, C.ERRNO_NOTDIR],
    ['src/mod.ts/tsconfig.json', false, C.ERRNO_NOTDIR, C.ERRNO_NOTDIR],
    ['src/missing', false, C.ERRNO_NOENT, C.ERRNO_NOENT],
    ['src/missing/', false, C.ERRNO_NOENT, C.ERRNO_NOENT],
    ['src/missing/x.ts', false, C.ERRNO_NOENT, C.ERRNO_NOENT],
    ['src/deep/g.js', false, FILE, 'opened'],
    // Below a name of a cached directory (host-path.ts's cachedDirOf): a file, a missing name, a
    // symlink to a file, a symlink to a directory between.
    ['src/deep/g.js/x', false, C.ERRNO_NOTDIR, C.ERRNO_NOTDIR],
    ['src/deep/missing/x', false, C.ERRNO_NOENT, C.ERRNO_NOENT],
    ['src/link-in/x', false, C.ERRNO_NOTDIR, C.ERRNO_NOTDIR],
    ['src/link-dir/g.js/x', false, C.ERRNO_NOTDIR, C.ERRNO_NOTDIR],
    ['src/mod\0.ts', false, C.ERRNO_INVAL, C.ERRNO_INVAL],
    [`src/${'x'.repeat(4092)}`, false, C.ERRNO_NAMETOOLONG, C.ERRNO_NAMETOOLONG],
    ['src/deep/../mod.ts', false, FILE, 'opened'],
    ['src/deep/../../a.txt', false, FILE, 'opened'],
    ['src/deep/../../../a.txt', false, C.ERRNO_PERM, C.ERRNO_PERM],
    ['../root/a.txt', false, C.ERRNO_PERM, C.ERRNO_PERM],
    ['/etc/passwd', false, C.ERRNO_PERM, C.ERRNO_PERM],
    ['src/link-in', false, LINK, C.ERRNO_LOOP],
    ['src/link-in', true, FILE, 'opened'],
    ['src/link-in/', false, C.ERRNO_NOTDIR, C.ERRNO_NOTDIR],
    ['src/link-up', true, FILE, 'opened'],
    ['src/link-dir/g.js', false, FILE, 'opened'],
    ['src/link-dir/', false, DIR, 'opened'],
    ['src/link-out', false, LINK, C.ERRNO_LOOP],
    ['src/link-out', true, C.ERRNO_PERM, C.ERRNO_PERM],
    ['src/link-out/secret.ts', false, C.ERRNO_PERM, C.ERRNO_PERM],
    ['src/link-abs/secret.ts', false, C.ERRNO_PERM, C.ERRNO_PERM],
    ['src/loop1', true, C.ERRNO_LOOP, C.ERRNO_LOOP],
    ['src/loop1/x', false, C.ERRNO_LOOP, C.ERRNO_LOOP],
  ];
  for (let round = 0; round < 2; round++) {
    for (const [path, follow, stat, open] of cases) {
      assert.equal(p.stat(path, follow), stat, `path_filestat_get ${path} (follow ${follow}, round ${round})`);
      assert.equal(p.open(path, { follow }), open, `path_open ${path} (follow ${follow}, round ${round})`);
    }
  }
  assert.equal(p.open('a.txt', { dirOnly: true }), C.ERRNO_NOTDIR);
  assert.equal(p.open('src/missing', { dirOnly: true }), C.ERRNO_NOENT);
}));

test('a directory without search permission: EACCES below it, cold and cached', { skip: process.getuid?.() === 0 && 'root bypasses permissions' }, () => withTree((dir) => {
  const p = program(dir);
  mkdirSync(join(dir, 'src', 'closed'));
  writeFileSync(join(dir, 'src', 'closed', 'f.ts'), 'f');
  chmodSync(join(dir, 'src', 'closed'), 0o000);
  try {
    for (let round = 0; round < 2; round++) {
      assert.equal(p.stat('src/closed/f.ts'), C.ERRNO_ACCES);
      assert.equal(p.open('src/closed/f.ts'), C.ERRNO_ACCES);
      assert.equal(p.stat('src/mod.ts'), FILE);
    }
  } finally {
    chmodSync(join(dir, 'src', 'closed'), 0o755);
  }
}));

test('a cached directory swapped for a symlink leading out: lookups below it never reach outside', () => withTree((dir, base) => {
  const p = program(dir);
  assert.equal(p.stat('src/deep/g.js'), FILE); // src/deep is now cached
  assert.equal(p.stat('src/deep/g.js'), FILE);
  renameSync(join(dir, 'src', 'deep'), join(base, 'moved'));
  writeFileSync(join(base, 'moved', 'secret.ts'), 'moved out');
  assert.equal(p.stat('src/deep/secret.ts'), C.ERRNO_NOENT); // the cached fd is now outside: not used
  symlinkSync(join(base, 'moved'), join(dir, 'src', 'deep'));
  assert.equal(p.stat('src/deep/secret.ts'), C.ERRNO_PERM);
  assert.equal(p.open('src/deep/secret.ts'), C.ERRNO_PERM);
  rmSync(join(dir, 'src', 'deep'));
  symlinkSync('../../moved', join(dir, 'src', 'deep'));
  assert.equal(p.stat('src/deep/g.js'), C.ERRNO_PERM);
  assert.equal(p.open('src/deep/g.js'), C.ERRNO_PERM);
}));

test('fd_read of a host file into several guest buffers: in order, a short read at the end, the offset shared by every read', () => withTree((dir) => {
  const p = program(dir);
  const fd = p.open('a.txt', { keep: true });
  assert.equal(typeof fd, 'number');
  const v = new DataView(p.wasi && p.bytes().buffer);
  const iov = (i, ptr, len) => { v.setUint32(IOVS + 8 * i, ptr, true); v.setUint32(IOVS + 8 * i + 4, len, true); };
  const text = (ptr, n) => Buffer.from(p.bytes().slice(ptr, ptr + n)).toString();
  iov(0, BUF, 3); iov(1, BUF + 100, 0); iov(2, BUF + 200, 4);
  assert.equal(p.wasi.fd_read(fd, IOVS, 3, OUT), C.ERRNO_SUCCESS);
  assert.equal(v.getUint32(OUT, true), 7);
  assert.equal(text(BUF, 3) + text(BUF + 200, 4), 'hello, ');
  // 5 bytes left, 8 asked: the first buffer filled, the second short, the rest untouched.
  p.bytes().fill(0x2a, BUF + 300, BUF + 310);
  iov(0, BUF, 2); iov(1, BUF + 300, 6);
  assert.equal(p.wasi.fd_read(fd, IOVS, 2, OUT), C.ERRNO_SUCCESS);
  assert.equal(v.getUint32(OUT, true), 5);
  assert.equal(text(BUF, 2) + text(BUF + 300, 3), 'world');
  assert.deepEqual([...p.bytes().slice(BUF + 303, BUF + 310)], Array(7).fill(0x2a));
  assert.equal(p.wasi.fd_read(fd, IOVS, 2, OUT), C.ERRNO_SUCCESS);
  assert.equal(v.getUint32(OUT, true), 0); // end of file
  // fd_tell sees the offset the reads moved.
  assert.equal(p.wasi.fd_tell(fd, OUT), C.ERRNO_SUCCESS);
  assert.equal(v.getBigUint64(OUT, true), 12n);
  // A buffer outside memory: EFAULT, nothing read.
  assert.equal(p.wasi.fd_seek(fd, 0n, C.WHENCE_SET, OUT), C.ERRNO_SUCCESS);
  iov(0, 0xfffffff0, 100);
  assert.equal(p.wasi.fd_read(fd, IOVS, 1, OUT), C.ERRNO_FAULT);
  iov(0, BUF, 5);
  assert.equal(p.wasi.fd_read(fd, IOVS, 1, OUT), C.ERRNO_SUCCESS);
  assert.equal(text(BUF, 5), 'hello');
  assert.equal(p.wasi.fd_close(fd), C.ERRNO_SUCCESS);
  assert.equal(p.wasi.fd_read(fd, IOVS, 1, OUT), C.ERRNO_BADF);
}));

test("a preopen of the host's root '/' (what napi-rs's generated loaders ask for): an absolute symlink is followed from it, read and made as node:wasi does; any other preopen refuses all three (EPERM)", () => withTree((dir, base) => {
  // Nothing is outside '/', so a symlink's absolute target names the same file for the program
  // as for the host: a project reached through such a link (a `/home` that is one) must resolve.
  // '..' above '/' and absolute guest paths stay EPERM (wasmtime's rules for any preopen).
  const rel = realpathSync(dir).slice(1);
  const outside = realpathSync(join(base, 'outside'));
  const PUT = 2048, B = 3072;
  const call = (p, path, f) => { const b = enc.encode(path); p.bytes().set(b, PUT); return f(PUT, b.length); };
  const readlink = (p, path) => call(p, path, (at, n) => {
    const e = p.wasi.path_readlink(3, at, n, B, 256, OUT);
    return e === C.ERRNO_SUCCESS ? new TextDecoder().decode(p.bytes().slice(B, B + new DataView(p.bytes().buffer).getUint32(OUT, true))) : e;
  });
  const symlink = (p, target, path) => {
    const t = enc.encode(target);
    p.bytes().set(t, B);
    return call(p, path, (at, n) => p.wasi.path_symlink(B, t.length, 3, at, n));
  };
  const r = program('/');
  for (let round = 0; round < 2; round++) {
    assert.equal(r.stat(`${rel}/src/link-abs/secret.ts`), FILE, `through an absolute symlink (round ${round})`);
    assert.equal(r.open(`${rel}/src/link-abs/secret.ts`), 'opened', `path_open through it (round ${round})`);
    assert.equal(r.stat(`${rel}/src/link-abs`), LINK);
    assert.equal(r.stat(`${rel}/src/link-abs`, true), DIR, `the last name followed when asked (round ${round})`);
    assert.equal(r.stat(`${rel}/src/link-abs/`), DIR, 'a trailing slash follows it');
    assert.equal(readlink(r, `${rel}/src/link-abs`), outside);
    assert.equal(r.stat('..'), C.ERRNO_PERM);
    assert.equal(r.stat(`${rel}/${'../'.repeat(rel.split('/').length + 1)}etc`), C.ERRNO_PERM);
  }
  assert.equal(symlink(r, outside, `${rel}/src/made-abs`), C.ERRNO_SUCCESS);
  assert.equal(readlinkSync(join(dir, 'src', 'made-abs')), outside);
  assert.equal(r.stat(`${rel}/src/made-abs/secret.ts`), FILE);

  const d = program(dir);
  assert.equal(d.stat('src/link-abs/secret.ts'), C.ERRNO_PERM);
  assert.equal(readlink(d, 'src/link-abs'), C.ERRNO_PERM);
  assert.equal(symlink(d, outside, 'src/made-abs-2'), C.ERRNO_PERM);
  assert.equal(existsSync(join(dir, 'src', 'made-abs-2')), false);
}));

test("in a preopen of the host's root a path of plain names is resolved by the kernel in one call: the same answers as the walk gives the same path spelled with './'", () => withTree((dir, base) => {
  // host-path.ts's kernelPathInRoot: what the drop-in's '/' preopen does for every lookup of a
  // bundler. A path with a '.' component is always walked, so each pair below compares the two
  // ways on the same names, both rounds (the second through the directory cache). In '/' a
  // symlink's '..' at the root stays there, as the kernel's does; the guest's own '..' above '/'
  // stays EPERM.
  const rel = realpathSync(dir).slice(1);
  const depth = rel.split('/').length;
  symlinkSync(`${'../'.repeat(depth + 3)}${rel}/a.txt`, join(dir, 'src', 'link-sky'));
  symlinkSync(`${'../'.repeat(depth + 3)}${rel}/src`, join(dir, 'src', 'link-sky-dir'));
  const r = program('/');
  const cases = [
    // [path under the tree, follow, path_filestat_get's answer, path_open's answer (for reading)]
    ['a.txt', false, FILE, 'opened'],
    ['src', false, DIR, 'opened'],
    ['src/mod.ts', false, FILE, 'opened'],
    ['src/mod.ts/tsconfig.json', false, C.ERRNO_NOTDIR, C.ERRNO_NOTDIR],
    ['src/missing', false, C.ERRNO_NOENT, C.ERRNO_NOENT],
    ['src/missing/x.ts', false, C.ERRNO_NOENT, C.ERRNO_NOENT],
    ['src/deep/g.js', false, FILE, 'opened'],
    ['src/link-in', false, LINK, C.ERRNO_LOOP],
    ['src/link-in', true, FILE, 'opened'],
    ['src/link-in/x', false, C.ERRNO_NOTDIR, C.ERRNO_NOTDIR],
    ['src/link-up', true, FILE, 'opened'],
    ['src/link-dir', false, LINK, C.ERRNO_LOOP],
    ['src/link-dir', true, DIR, 'opened'],
    ['src/link-dir/g.js', false, FILE, 'opened'],
    ['src/link-out/secret.ts', false, FILE, 'opened'],
    ['src/link-abs/secret.ts', false, FILE, 'opened'],
    ['src/link-sky', true, FILE, 'opened'],
    ['src/link-sky', false, LINK, C.ERRNO_LOOP],
    ['src/link-sky-dir/mod.ts', false, FILE, 'opened'],
    ['src/loop1', true, C.ERRNO_LOOP, C.ERRNO_LOOP],
    ['src/loop1/x', false, C.ERRNO_LOOP, C.ERRNO_LOOP],
  ];
  for (let round = 0; round < 2; round++) {
    for (const [path, follow, stat, open] of cases) {
      for (const spelled of [`${rel}/${path}`, `${rel}/./${path}`]) {
        assert.equal(r.stat(spelled, follow), stat, `path_filestat_get ${spelled} (follow ${follow}, round ${round})`);
        assert.equal(r.open(spelled, { follow }), open, `path_open ${spelled} (follow ${follow}, round ${round})`);
      }
    }
    assert.equal(r.stat(`${rel}/${'../'.repeat(depth + 1)}etc`), C.ERRNO_PERM, "the guest's '..' above '/'");
  }
  // The preopen closed: EBADF, though the kernel's lookup needs no fd of it.
  assert.equal(r.wasi.fd_close(3), C.ERRNO_SUCCESS);
  assert.equal(r.stat(`${rel}/a.txt`), C.ERRNO_BADF);
  assert.equal(r.open(`${rel}/a.txt`), C.ERRNO_BADF);
}));
