// The thread guards' rewrite kept across runs (runtime/src/platform/node/guard-cache.ts): a large
// threaded module's rewrite is read back instead of computed again, never a stale or partial
// entry, and a cache that cannot be used changes nothing but the time.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { numbered, runCli, runtimeDir, writeDated } from './helpers.mjs';
import { command } from './fixtures/wasm-command.mjs';

const { cachedGuardThreads, cacheDir, CACHE_MIN_BYTES, GUARD_ENTRIES, GUARD_BYTES } = await import(join(runtimeDir, 'dist', 'platform', 'node', 'guard-cache.js'));
const { guardThreads } = await import(join(runtimeDir, 'dist', 'thread-guards.js'));

const scratch = mkdtempSync(join(tmpdir(), 'spindle-guard-cache-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(scratch, `cache-${n++}`);
const entries = (dir) => (existsSync(join(dir, 'thread-guards')) ? readdirSync(join(dir, 'thread-guards')) : []);

/** guardThreads, counting its calls. */
function counting() {
  const f = (bytes) => { f.calls++; return guardThreads(bytes); };
  f.calls = 0;
  return f;
}

const large = command({ threads: true, padBytes: CACHE_MIN_BYTES, fill: true });

describe('cachedGuardThreads', () => {
  test('a large threaded module: rewritten once, then read back equal to the rewrite', () => {
    const dir = freshDir(), rewrite = counting();
    const first = cachedGuardThreads(large, dir, rewrite);
    assert.equal(first.bulk, 1, 'the memory.fill is guarded');
    assert.notDeepEqual(first.bytes, large);
    assert.equal(entries(dir).length, 1);
    const again = cachedGuardThreads(large, dir, rewrite);
    assert.equal(rewrite.calls, 1, 'the second call reads the entry');
    assert.deepEqual(again, first);
    assert.ok(WebAssembly.validate(again.bytes));
  });

  test('a module the rewrite leaves unchanged: the original bytes and the reason come back', () => {
    const dir = freshDir(), rewrite = counting();
    const plain = command({ threads: true, padBytes: CACHE_MIN_BYTES });
    const first = cachedGuardThreads(plain, dir, rewrite);
    assert.match(first.unchanged, /no bulk memory instruction/);
    const again = cachedGuardThreads(plain, dir, rewrite);
    assert.equal(rewrite.calls, 1);
    assert.equal(again.bytes, plain);
    assert.deepEqual({ ...again, bytes: null }, { ...first, bytes: null });
  });

  test('a damaged entry (cut short) is ignored and written again', () => {
    const dir = freshDir(), rewrite = counting();
    const first = cachedGuardThreads(large, dir, rewrite);
    const file = join(dir, 'thread-guards', entries(dir)[0]);
    truncateSync(file, 1000);
    assert.deepEqual(cachedGuardThreads(large, dir, rewrite), first);
    assert.equal(rewrite.calls, 2);
    assert.deepEqual(cachedGuardThreads(large, dir, rewrite), first);
    assert.equal(rewrite.calls, 2, 'the entry was written again, whole');
  });

  test('another module is another entry', () => {
    const dir = freshDir();
    cachedGuardThreads(large, dir);
    cachedGuardThreads(command({ threads: true, padBytes: CACHE_MIN_BYTES + 1, fill: true }), dir);
    assert.equal(entries(dir).length, 2);
  });

  test('bounded: a write keeps the GUARD_ENTRIES newest entries within GUARD_BYTES; a read entry counts as new', () => {
    const dir = freshDir(), folder = join(dir, 'thread-guards');
    // Entries of earlier builds: 70 small ones (oldest first), then a 300 MiB one (sparse: no
    // disk used) newer than them all.
    const old = numbered('old-', 70, 3, '.bin');
    writeDated(folder, old, 'x', 1.6e9);
    const huge = join(folder, 'huge.bin');
    writeFileSync(huge, '');
    truncateSync(huge, 300 << 20);
    utimesSync(huge, 1.7e9, 1.7e9);
    const first = cachedGuardThreads(large, dir);
    const kept = entries(dir);
    assert.equal(kept.length, GUARD_ENTRIES);
    assert.ok(!kept.includes('huge.bin'), 'past GUARD_BYTES together: dropped');
    assert.ok(kept.reduce((sum, f) => sum + statSync(join(folder, f)).size, 0) <= GUARD_BYTES);
    assert.ok(kept.includes(`${first.key}.bin`), 'the new entry is kept');
    old.forEach((name, i) => assert.equal(kept.includes(name), i >= 70 - (GUARD_ENTRIES - 1), name));
    // A read touches its entry: made oldest, read, then the next write drops another one.
    const mine = join(folder, `${first.key}.bin`);
    utimesSync(mine, 1.5e9, 1.5e9);
    cachedGuardThreads(large, dir);
    assert.ok(statSync(mine).mtimeMs > Date.now() - 600_000, 'touched by the read');
    cachedGuardThreads(command({ threads: true, padBytes: CACHE_MIN_BYTES + 1, fill: true }), dir);
    assert.ok(existsSync(mine));
    assert.equal(entries(dir).length, GUARD_ENTRIES);
  });

  test('a module under CACHE_MIN_BYTES is rewritten every time, nothing written', () => {
    const dir = freshDir(), rewrite = counting();
    const small = command({ threads: true, padBytes: 1000, fill: true });
    cachedGuardThreads(small, dir, rewrite);
    cachedGuardThreads(small, dir, rewrite);
    assert.equal(rewrite.calls, 2);
    assert.deepEqual(entries(dir), []);
  });

  test('a directory that cannot be written: the rewrite still comes back, computed', () => {
    const blocker = join(scratch, 'a-file');
    writeFileSync(blocker, 'not a directory');
    const rewrite = counting();
    const r = cachedGuardThreads(large, join(blocker, 'cache'), rewrite);
    assert.equal(r.bulk, 1);
    assert.ok(WebAssembly.validate(r.bytes));
  });

  test('the directory: SPINDLE_CACHE_DIR, else XDG_CACHE_HOME/spindle, else ~/.cache/spindle; none turns it off', () => {
    assert.equal(cacheDir({ SPINDLE_CACHE_DIR: '/c' }), '/c');
    assert.equal(cacheDir({ SPINDLE_CACHE_DIR: 'none' }), undefined);
    assert.equal(cacheDir({ XDG_CACHE_HOME: '/x' }), '/x/spindle');
    assert.match(cacheDir({}), /\.cache\/spindle$/);
  });
});

describe('the CLI with the cache', () => {
  test('a large threaded program runs the same from a cold and a warm cache; none writes nothing', () => {
    const file = join(scratch, 'large-fill.wasm');
    writeFileSync(file, large);
    const dir = freshDir();
    for (const run of ['cold', 'warm']) {
      const r = runCli(['run', file], { env: { ...process.env, SPINDLE_CACHE_DIR: dir } });
      assert.deepEqual({ run, status: r.status, stderr: r.stderr }, { run, status: 0, stderr: '' });
      assert.equal(entries(dir).length, 1);
    }
    const off = freshDir();
    const r = runCli(['run', file], { env: { ...process.env, SPINDLE_CACHE_DIR: 'none', XDG_CACHE_HOME: off } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(existsSync(off), false);
  });
});
