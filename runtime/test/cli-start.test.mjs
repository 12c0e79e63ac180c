// The spindle command's first file (runtime/src/cli-start.ts, dist/cli.cjs): the CLI bundle runs
// with V8's code cache kept in the cache directory (`cli/`). A cold and a warm start give the same
// results, a warm start uses the entry the cold one wrote, a damaged entry is replaced, a rebuilt
// bundle of the same length never runs the old one's code, the folder is pruned to its newest
// entries, and SPINDLE_CACHE_DIR=none writes nothing.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { guestsBuild, needs, numbered, runCli, runtimeDir, writeDated } from './helpers.mjs';

const hello = join(guestsBuild, 'c', 'hello.wasm');
const scratch = mkdtempSync(join(tmpdir(), 'spindle-cli-start-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(scratch, `cache-${n++}`);
const entries = (dir) => (existsSync(join(dir, 'cli')) ? readdirSync(join(dir, 'cli')) : []);
const withCache = (dir) => ({ env: { ...process.env, SPINDLE_CACHE_DIR: dir } });

function expectHello(r, what) {
  assert.deepEqual({ what, status: r.status, stdout: r.stdout, stderr: r.stderr }, { what, status: 0, stdout: 'hello from c\n', stderr: 'to stderr\n' });
}

describe('the CLI bundle\'s code cache', { skip: needs(hello, 'bash tests/guests/build.sh') }, () => {
  test('a cold start writes one entry; a warm start runs the same and leaves the entry as it was', () => {
    const dir = freshDir();
    expectHello(runCli(['run', hello], withCache(dir)), 'cold');
    const [entry, ...more] = entries(dir);
    assert.ok(entry && more.length === 0, `expected one entry in ${dir}/cli, got ${entries(dir)}`);
    const written = statSync(join(dir, 'cli', entry)).mtimeMs;
    expectHello(runCli(['run', hello], withCache(dir)), 'warm');
    assert.deepEqual(entries(dir), [entry]);
    assert.equal(statSync(join(dir, 'cli', entry)).mtimeMs, written, 'the warm start wrote the entry again: V8 refused it');
    // Another command line of the same process options uses the same entry.
    const v = runCli(['--version'], withCache(dir));
    assert.deepEqual({ status: v.status, stdout: v.stdout }, { status: 0, stdout: '0.1.0\n' });
    assert.deepEqual(entries(dir), [entry]);
  });

  test('a damaged entry changes nothing but the time, and is replaced', () => {
    const dir = freshDir();
    expectHello(runCli(['run', hello], withCache(dir)), 'cold');
    const file = join(dir, 'cli', entries(dir)[0]);
    const good = readFileSync(file);
    writeFileSync(file, good.subarray(0, good.length >> 1)); // cut short
    expectHello(runCli(['run', hello], withCache(dir)), 'cut entry');
    writeFileSync(file, Buffer.alloc(good.length, 0x5a)); // garbage of the right length
    expectHello(runCli(['run', hello], withCache(dir)), 'garbage entry');
    assert.equal(readFileSync(file).length > 1000 && readFileSync(file)[0] !== 0x5a, true, 'the damaged entry was not replaced');
  });

  test('a rebuilt bundle of the same length runs its own code, not the cached one', () => {
    // A copy of dist/, then a "rebuild" as scripts/bundle.mjs makes one: the bundle changed in
    // place (same length: V8 alone would accept the old cache) and its new hash in cli.cjs.
    const dist = join(scratch, `dist-${n++}`);
    cpSync(join(runtimeDir, 'dist'), dist, { recursive: true });
    writeFileSync(join(dist, 'package.json'), '{"type":"module"}');
    const dir = freshDir();
    const cli = join(dist, 'cli.cjs');
    const run = () => spawnVersion(cli, dir);
    assert.equal(run(), '0.1.0\n');
    assert.equal(run(), '0.1.0\n');
    const bundleFile = join(dist, 'cli-bundle.cjs');
    const oldBundle = readFileSync(bundleFile, 'utf8');
    assert.equal(oldBundle.split('"0.1.0\\n"').length, 2, 'the bundle prints its version from one literal');
    const newBundle = oldBundle.replace('"0.1.0\\n"', '"0.1.9\\n"');
    writeFileSync(bundleFile, newBundle);
    const hash = (s) => createHash('sha256').update(s).digest('hex').slice(0, 16);
    const start = readFileSync(cli, 'utf8');
    assert.equal(start.split(`"${hash(oldBundle)}"`).length, 2, 'cli.cjs holds the bundle\'s hash once');
    writeFileSync(cli, start.replace(`"${hash(oldBundle)}"`, `"${hash(newBundle)}"`));
    assert.equal(run(), '0.1.9\n');
  });

  test('the folder keeps the 16 newest entries: a new one stays, the oldest others go', () => {
    const dir = freshDir();
    const old = numbered('old-', 20, 2, '.bin');
    writeDated(join(dir, 'cli'), old); // old-19 the newest of them
    expectHello(runCli(['run', hello], withCache(dir)), 'cold');
    const left = entries(dir).sort();
    assert.equal(left.length, 16, left.join(' '));
    assert.deepEqual(left.filter((f) => f.startsWith('old-')), old.slice(5), 'not the 15 newest old entries');
    assert.equal(left.filter((f) => !f.startsWith('old-')).length, 1, 'the new entry is not there');
  });

  test('SPINDLE_CACHE_DIR=none: no cache directory is made, and the program runs', () => {
    const off = freshDir();
    const r = runCli(['run', hello], { env: { ...process.env, SPINDLE_CACHE_DIR: 'none', XDG_CACHE_HOME: off } });
    expectHello(r, 'no cache');
    assert.equal(existsSync(off), false);
  });
});

/** `node CLI --version` with the cache in `dir`: its stdout (fails the test on any other outcome). */
function spawnVersion(cli, dir) {
  const r = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8', env: { ...process.env, SPINDLE_CACHE_DIR: dir } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}
