// The directory cache of host directories (platform/node/host-dir-cache.ts), driven through the
// confined walk (host-path.ts) directly: a cached directory is used only while the kernel's path
// of its fd is the root's path + the prefix, byte for byte (a root whose host name is not UTF-8,
// guest names that are not ASCII), and never after it was renamed or deleted; the walk's
// shortcut for one name in a cached directory answers as the walk does (a symlink followed or
// not, a missing name); a root of '/' is validated as any other, and there an absolute symlink is
// walked from it; a project's hundreds of directories stay cached (the bound follows the fd
// limit), and no more fds than the bound stay open. Linux with /proc only (PROC_FD), where the
// cache exists.
import assert from 'node:assert/strict';
import { closeSync, constants, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, realpathSync, renameSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cacheBound, DirCache, fdLimit, MAX_CACHED_DIRS, release } from '../dist/platform/node/host-dir-cache.js';
import { PROC_FD, walk } from '../dist/platform/node/host-path.js';

const skip = !PROC_FD && 'no /proc/self/fd: host directories have no directory cache';

/** A root directory whose last host name is the bytes `nameBytes` (a Buffer), opened as the walk's root. */
function withRoot(nameBytes, f) {
  const base = mkdtempSync(join(tmpdir(), 'spindle-dircache-'));
  const rootPath = Buffer.concat([Buffer.from(`${base}/`), nameBytes]);
  mkdirSync(rootPath);
  const fd = openSync(rootPath, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    return f({ fd, path: '' }, rootPath);
  } finally {
    closeSync(fd);
    rmSync(base, { recursive: true, force: true });
  }
}

const at = (root, rel) => Buffer.concat([root, Buffer.from(`/${rel}`)]);
const lookup = (root, cache, path, follow = false) => walk(root, path, follow, (r) => ({ name: r.name, stat: r.stat }), cache);

test('a cached directory validates under a root whose host name is not UTF-8, with non-ASCII guest names', { skip }, () => {
  withRoot(Buffer.from([0x72, 0xff, 0xfe, 0x20]), (root, rootPath) => {
    mkdirSync(at(rootPath, 'sub-é'), { recursive: true });
    mkdirSync(at(rootPath, 'sub-é/ü'));
    writeFileSync(at(rootPath, 'sub-é/ü/f'), 'x');
    const cache = new DirCache();
    assert.equal(lookup(root, cache, 'sub-é/ü/f').stat.size, 1n);
    // The walk cached both directories; each validates now (the kernel's path matches byte for byte).
    for (const prefix of ['sub-é', 'sub-é/ü']) {
      const e = cache.take(root.fd, prefix);
      assert.ok(e, `${prefix} is cached and validates`);
      e.uses--;
    }
    // The shortcut (one name in a cached directory): a hit, a miss.
    assert.equal(lookup(root, cache, 'sub-é/ü/f').stat.size, 1n);
    assert.equal(lookup(root, cache, 'sub-é/ü/missing').stat, undefined);
  });
});

test('a cached directory renamed or deleted on the host fails validation; the walk answers from the host as it is now', { skip }, () => {
  withRoot(Buffer.from('root'), (root, rootPath) => {
    mkdirSync(at(rootPath, 'a/b'), { recursive: true });
    writeFileSync(at(rootPath, 'a/b/f'), 'one');
    const cache = new DirCache();
    assert.equal(lookup(root, cache, 'a/b/f').stat.size, 3n);
    // Renamed: the cached fd now names ROOT/c/b; a/b is a new directory with another f.
    renameSync(at(rootPath, 'a'), at(rootPath, 'c'));
    assert.equal(cache.take(root.fd, 'a/b'), undefined, 'the renamed directory is not used');
    assert.equal(cache.take(root.fd, 'a'), undefined);
    mkdirSync(at(rootPath, 'a/b'), { recursive: true });
    writeFileSync(at(rootPath, 'a/b/f'), 'second');
    assert.equal(lookup(root, cache, 'a/b/f').stat.size, 6n);
    // Deleted: the cached fd's path ends in " (deleted)".
    rmSync(at(rootPath, 'a/b/f'));
    rmdirSync(at(rootPath, 'a/b'));
    assert.equal(cache.take(root.fd, 'a/b'), undefined, 'a deleted directory is not used');
    assert.throws(() => lookup(root, cache, 'a/b/f'), (e) => e?.errno === 44, 'ENOENT: a/b is gone');
  });
});

test('one name in a cached directory: a symlink is followed only when asked, and never out of the root', { skip }, () => {
  withRoot(Buffer.from('root'), (root, rootPath) => {
    mkdirSync(at(rootPath, 'd'));
    writeFileSync(at(rootPath, 'd/target'), 'abcd');
    symlinkSync('target', at(rootPath, 'd/link'));
    symlinkSync('/etc/passwd', at(rootPath, 'd/out'));
    const cache = new DirCache();
    assert.equal(lookup(root, cache, 'd/target').stat.size, 4n); // caches d
    assert.ok(lookup(root, cache, 'd/link').stat.isSymbolicLink(), 'not followed');
    const followed = lookup(root, cache, 'd/link', true);
    assert.equal(followed.stat.size, 4n);
    assert.equal(followed.name, 'target');
    assert.ok(lookup(root, cache, 'd/out').stat.isSymbolicLink());
    assert.throws(() => lookup(root, cache, 'd/out', true), (e) => e?.errno === 63, 'an absolute target is EPERM');
    assert.equal(lstatSync(at(rootPath, 'd/out')).isSymbolicLink(), true);
  });
});

test('an intermediate component that is a file, missing, a symlink or a fifo: the same errnos from the root and from a cached directory', { skip }, () => {
  withRoot(Buffer.from('root'), (root, rootPath) => {
    mkdirSync(at(rootPath, 'd/sub'), { recursive: true });
    writeFileSync(at(rootPath, 'd/f.ts'), 'x');
    writeFileSync(at(rootPath, 'd/sub/g'), 'abc');
    symlinkSync('sub', at(rootPath, 'd/tosub'));
    symlinkSync('f.ts', at(rootPath, 'd/tofile'));
    symlinkSync('nowhere', at(rootPath, 'd/dangling'));
    symlinkSync('../..', at(rootPath, 'd/up'));
    symlinkSync('/etc', at(rootPath, 'd/abs'));
    execFileSync('mkfifo', [at(rootPath, 'd/fifo').toString()]);
    const errno = (f) => { try { f(); return 0; } catch (e) { return e?.errno ?? e; } };
    for (const cache of [undefined, new DirCache()]) {
      if (cache) lookup(root, cache, 'd/f.ts'); // d is cached: the walks below start there
      const how = cache ? 'from the cached d' : 'from the root';
      for (const follow of [false, true]) {
        assert.equal(errno(() => lookup(root, cache, 'd/f.ts/tsconfig.json', follow)), 54, `ENOTDIR through a file, ${how}`);
        assert.equal(errno(() => lookup(root, cache, 'd/f.ts/a/b', follow)), 54, `ENOTDIR through a file, deeper, ${how}`);
        assert.equal(errno(() => lookup(root, cache, 'd/fifo/x', follow)), 54, `ENOTDIR through a fifo, ${how}`);
        assert.equal(errno(() => lookup(root, cache, 'd/tofile/x', follow)), 54, `ENOTDIR through a symlink to a file, ${how}`);
        assert.equal(errno(() => lookup(root, cache, 'd/missing/x', follow)), 44, `ENOENT through a missing name, ${how}`);
        assert.equal(errno(() => lookup(root, cache, 'd/dangling/x', follow)), 44, `ENOENT through a dangling symlink, ${how}`);
        assert.equal(errno(() => lookup(root, cache, 'd/up/x', follow)), 63, `EPERM through a symlink climbing out, ${how}`);
        assert.equal(errno(() => lookup(root, cache, 'd/abs/passwd', follow)), 63, `EPERM through an absolute symlink, ${how}`);
        assert.equal(lookup(root, cache, 'd/tosub/g', follow).stat.size, 3n, `a symlink to a directory is followed, ${how}`);
        assert.equal(lookup(root, cache, 'd/sub/g', follow).stat.size, 3n);
        assert.equal(lookup(root, cache, 'd/sub/missing', follow).stat, undefined, 'a missing last name: no stat, no error');
      }
    }
  });
});

test("a root of '/' (what napi-rs's generated loaders preopen): its cache validates, it follows an absolute symlink from itself and a symlink's '..' stays at it, and the path's own '..' still stops at it", { skip }, () => {
  // Nothing is outside '/': there (DirRef.hostRoot, which HostDirectory sets for the host's root)
  // an absolute symlink's target is walked from the root, as the kernel and node:wasi look it up,
  // also when the walk started at a cached directory (it restarts at the root); '..' above the
  // root stays EPERM, and a cached directory renamed since is not used. The root's own d_path is
  // '/', so a cached prefix must validate as '/' + prefix (not '//' + prefix), or every lookup
  // would walk. The same fd without hostRoot (any other root) keeps wasmtime's EPERM.
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'spindle-dircache-')));
  const rel = base.slice(1);
  const fd = openSync('/', constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    mkdirSync(`${base}/d/sub`, { recursive: true });
    mkdirSync(`${base}/t`);
    writeFileSync(`${base}/d/sub/g`, 'abc');
    writeFileSync(`${base}/t/h`, 'hello');
    symlinkSync(`${base}/t`, `${base}/d/abs`);
    symlinkSync(`${base}/t/h`, `${base}/d/sub/absfile`);
    // A relative target climbing above '/' and down again: its '..' at '/' stays there (the kernel's answer).
    symlinkSync(`${'../'.repeat(rel.split('/').length + 3)}${rel}/t`, `${base}/d/sky`);
    const root = { fd, path: '', hostRoot: true };
    const errno = (f) => { try { f(); return 0; } catch (e) { return e?.errno ?? e; } };
    const cache = new DirCache();
    assert.equal(lookup(root, cache, `${rel}/d/sub/g`).stat.size, 3n);
    for (const prefix of [rel.split('/')[0], `${rel}/d`, `${rel}/d/sub`]) {
      const e = cache.take(fd, prefix);
      assert.ok(e, `${prefix} is cached and validates under '/'`);
      e.uses--;
    }
    const up = '../'.repeat(rel.split('/').length + 2);
    for (const c of [undefined, cache, cache]) {
      const how = c ? 'with the cache' : 'from the root';
      for (const follow of [false, true]) {
        assert.equal(lookup(root, c, `${rel}/d/abs/h`, follow).stat.size, 5n, `an absolute symlink inside the path is walked from '/', ${how}`);
        assert.equal(lookup(root, c, `${rel}/d/sky/h`, follow).stat.size, 5n, `a symlink's '..' at '/' stays at '/', ${how}`);
        assert.equal(errno(() => lookup(root, c, '..', follow)), 63, `EPERM for '..' at '/', ${how}`);
        assert.equal(errno(() => lookup(root, c, `${rel}/d/${up}etc`, follow)), 63, `EPERM for '..' climbing above '/', ${how}`);
        assert.equal(lookup(root, c, `${rel}/d/sub/g`, follow).stat.size, 3n);
      }
      assert.equal(lookup(root, c, `${rel}/d/sub/absfile`, true).stat.size, 5n, `the last name, an absolute symlink, followed when asked, ${how}`);
      assert.ok(lookup(root, c, `${rel}/d/sub/absfile`).stat.isSymbolicLink(), `the last name is not followed unless asked, ${how}`);
    }
    const other = { fd, path: '' };
    assert.equal(errno(() => lookup(other, undefined, `${rel}/d/abs/h`)), 63, 'the same fd as any other root: EPERM');
    assert.equal(errno(() => lookup(other, undefined, `${rel}/d/sky/h`)), 63, "the same fd as any other root: a symlink's '..' above it is EPERM");
    assert.equal(errno(() => lookup(other, new DirCache(), `${rel}/d/sub/absfile`, true)), 63, 'the same fd as any other root, cached: EPERM');
    renameSync(`${base}/d/sub`, `${base}/d/moved`);
    assert.equal(cache.take(fd, `${rel}/d/sub`), undefined, 'the renamed directory is not used');
    assert.equal(errno(() => lookup(root, cache, `${rel}/d/sub/g`)), 44, 'ENOENT: d/sub is gone');
    assert.equal(lookup(root, cache, `${rel}/d/moved/g`).stat.size, 3n);
  } finally {
    closeSync(fd);
    rmSync(base, { recursive: true, force: true });
  }
});

test('the bound is the fd limit / 16, between 64 and 1024', () => {
  assert.deepEqual([undefined, 0, 512, 1024, 4096, 16384, 20000, 1 << 20].map(cacheBound), [64, 64, 64, 64, 256, 1024, 1024, 1024]);
  const soft = Number(execFileSync('sh', ['-c', 'ulimit -Sn'], { encoding: 'utf8' }).trim());
  if (Number.isFinite(soft)) assert.equal(fdLimit(), soft, "the limit read is the process's soft limit (a child shell inherits it)");
  assert.equal(MAX_CACHED_DIRS, cacheBound(fdLimit()));
});

test("a project's directories stay cached up to the bound; past it the oldest are closed, and no more than the bound stay open", { skip }, () => {
  // What a bundler's lookups do in a project with node_modules: one name in each of hundreds of
  // package directories, again on the next bundle (bench/results/napi-2026-11-28-bigproject: 724
  // directories per bundle; a bound of 64 reopened ~1,700 of them every bundle).
  withRoot(Buffer.from('root'), (root, rootPath) => {
    const fds = () => readdirSync('/proc/self/fd').length;
    // node_modules, then pkgN and pkgN/lib each: 2 x pkgs + 1 directories, below the bound this
    // process's fd limit gives by an eviction batch (1/16) and a few entries of the tests above.
    const bound = cacheBound(fdLimit());
    const pkgs = Math.min(400, (bound - (bound >> 4) - 8) >> 1);
    const more = ((bound - 2 * pkgs) >> 1) + 40; // then enough packages to pass the bound by 80 directories
    const lib = (i) => `node_modules/pkg${i}/lib`;
    for (let i = 0; i < pkgs + more; i++) {
      mkdirSync(at(rootPath, lib(i)), { recursive: true });
      writeFileSync(at(rootPath, `${lib(i)}/index.js`), 'x');
    }
    const cache = new DirCache();
    const before = fds();
    for (let i = 0; i < pkgs; i++) assert.equal(lookup(root, cache, `${lib(i)}/index.js`).stat.size, 1n);
    for (let i = 0; i < pkgs; i++) {
      const e = cache.take(root.fd, lib(i));
      assert.ok(e, `${lib(i)} is still cached after ${pkgs} packages (bound ${MAX_CACHED_DIRS})`);
      release(e);
    }
    // Past the bound: the oldest go, the newest stay, the fds held stay within the bound.
    for (let i = pkgs; i < pkgs + more; i++) assert.equal(lookup(root, cache, `${lib(i)}/index.js`).stat.size, 1n);
    assert.ok(fds() - before <= MAX_CACHED_DIRS, `${fds() - before} fds more, bound ${MAX_CACHED_DIRS}`);
    for (let i = pkgs + more - 40; i < pkgs + more; i++) {
      const e = cache.take(root.fd, lib(i));
      assert.ok(e, `${lib(i)}, just walked, is cached`);
      release(e);
    }
    // node_modules/pkg0 is the least recently used (the checks above took only the lib directories).
    assert.equal(cache.take(root.fd, 'node_modules/pkg0'), undefined, 'the least recently used directory was evicted');
    assert.equal(lookup(root, cache, `${lib(0)}/index.js`).stat.size, 1n, 'and is walked again');
  });
});

test("at the fd limit, a lookup gets the cache's idle fds back instead of failing (EMFILE)", { skip }, () => {
  // A child with a limit of 256 fds (bound 64): 60 directories cached and idle, then every other
  // fd taken; the walk into one more directory meets EMFILE, the thread's idle entries are closed
  // and the open is tried once more. The program's own open of a file (path_open's) likewise.
  const base = mkdtempSync(join(tmpdir(), 'spindle-dircache-'));
  try {
    writeFileSync(join(base, 'top'), 'x');
    for (let i = 0; i < 61; i++) {
      mkdirSync(join(base, `d${i}`));
      writeFileSync(join(base, `d${i}/f`), 'x');
    }
    const dist = new URL('../dist/platform/node/', import.meta.url).href;
    const script = join(base, 'child.mjs');
    writeFileSync(script, `
      import { closeSync, constants, openSync } from 'node:fs';
      import { DirCache, MAX_CACHED_DIRS } from '${dist}host-dir-cache.js';
      import { inDir, quiet, walk } from '${dist}host-path.js';
      const root = { fd: openSync(${JSON.stringify(base)}, constants.O_RDONLY | constants.O_DIRECTORY), path: '' };
      const cache = new DirCache();
      const errno = (f) => { try { return f(); } catch (e) { return 'errno ' + (e?.errno ?? e?.code ?? e); } };
      const stat = (p) => errno(() => String(walk(root, p, false, (r) => r.stat.size, cache)));
      for (let i = 0; i < 60; i++) stat('d' + i + '/f');
      const held = [];
      for (;;) { try { held.push(openSync('/dev/null', 'r')); } catch { break; } }
      const dir = stat('d60/f');
      for (const fd of held.splice(0)) closeSync(fd);
      for (let i = 0; i < 50; i++) stat('d' + i + '/f');
      for (;;) { try { held.push(openSync('/dev/null', 'r')); } catch { break; } }
      const file = errno(() => walk(root, 'top', false, (r) => { const fd = quiet(() => openSync(inDir(r.parent, r.name), 'r')); closeSync(fd); return 'opened'; }, cache));
      console.log(JSON.stringify({ bound: MAX_CACHED_DIRS, held: held.length, dir, file }));
    `);
    const out = execFileSync('sh', ['-c', 'ulimit -n 256 && exec "$0" "$1"', process.execPath, script], { encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop());
    assert.equal(r.bound, 64);
    assert.ok(r.held > 100, `the child took the fds left (${r.held})`);
    assert.equal(r.dir, '1', 'the walk into a new directory at the limit succeeds');
    assert.equal(r.file, 'opened', "a file's open at the limit succeeds");
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
