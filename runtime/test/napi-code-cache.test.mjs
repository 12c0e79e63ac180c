// spindle/napi's own code in Node (dist/napi/index.cjs runs dist/napi/napi-bundle.cjs with V8's
// code cache of it, platform/node/bundle-cache.ts, kept in the cache directory's `napi/`): a first
// load writes one entry per copy of the bundle, a load in a fresh process uses it and writes
// nothing, for `require` of spindle/napi, `import` of it and the drop-in alike; a damaged entry
// changes nothing but the time and is replaced; a bundle edited in place (same length: V8 alone
// would accept the old cache) runs its own code; the folder is pruned to its newest entries;
// SPINDLE_CACHE_DIR=none writes nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { numbered, RUN_TIMEOUT_MS, runtimeDir, writeDated } from './helpers.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'spindle-napi-code-cache-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(scratch, `cache-${n++}`);
const entries = (dir) => (existsSync(join(dir, 'napi')) ? readdirSync(join(dir, 'napi')).sort() : []);
const mtimes = (dir) => entries(dir).map((f) => statSync(join(dir, 'napi', f)).mtimeMs);
const dropin = join(runtimeDir, 'examples', 'napi');

/**
 * A script that loads spindle/napi (`how`: 'require' from `runtime`, 'import' of its ES module
 * shim, or 'dropin': the drop-in's `require('@napi-rs/wasm-runtime')`) and prints what a call into
 * it answers (napiPoolStats of an object no addon gave: a SpindleError).
 */
function loader(how, runtime = runtimeDir) {
  const load = {
    require: `require(${JSON.stringify(join(runtime, 'dist', 'napi', 'index.cjs'))})`,
    import: `await import(${JSON.stringify(pathToFileURL(join(runtime, 'dist', 'napi', 'index.js')).href)})`,
    dropin: `createRequire(${JSON.stringify(join(dropin, 'package.json'))})('@napi-rs/wasm-runtime')`,
  }[how];
  const file = join(scratch, `load-${n++}.mjs`);
  writeFileSync(file, `import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const napi = ${load};
    try { napi.napiPoolStats({}); } catch (e) { console.log(e.code + ': ' + e.message + ' ' + typeof napi.loadNapiSync); }`);
  return file;
}

/** Runs `script` with the cache directory `dir` (or the environment `env`); its stdout. */
function run(script, dir, env = { SPINDLE_CACHE_DIR: dir }) {
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS, env: { ...process.env, ...env } });
  assert.equal(r.status, 0, `loading spindle/napi failed:\n${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  return r.stdout;
}

const ANSWER = 'BAD_OPTION: not the exports of an addon loaded by spindle/napi function\n';

describe('spindle/napi\'s code cache in Node (napi/ of the cache directory)', () => {
  test('a first load writes one entry, a load in a fresh process uses it and writes nothing: require, import and the drop-in', () => {
    assert.ok(existsSync(join(dropin, 'node_modules', '@napi-rs', 'wasm-runtime')), 'run \'bash tests/napi/setup.sh\' (the drop-in\'s install)');
    const dir = freshDir();
    const byRequire = loader('require');
    assert.equal(run(byRequire, dir), ANSWER, 'cold');
    const first = entries(dir);
    assert.equal(first.length, 1, `entries after the first load: ${first}`);
    const written = mtimes(dir);
    assert.equal(run(byRequire, dir), ANSWER, 'warm');
    assert.equal(run(loader('import'), dir), ANSWER, 'import, warm');
    assert.deepEqual(entries(dir), first, 'the ES module shim reaches the same bundle, hence the same entry');
    assert.deepEqual(mtimes(dir), written, 'a warm load wrote the entry again: V8 refused it');
    // The drop-in's install holds its own copy of spindle (another path): its own entry.
    const byDropin = loader('dropin');
    assert.equal(run(byDropin, dir), ANSWER, 'drop-in, cold');
    const both = entries(dir);
    assert.equal(both.length, 2, `entries after the drop-in's first load: ${both}`);
    const bothWritten = mtimes(dir);
    assert.equal(run(byDropin, dir), ANSWER, 'drop-in, warm');
    assert.deepEqual(entries(dir), both);
    assert.deepEqual(mtimes(dir), bothWritten, 'the drop-in\'s warm load wrote an entry again');
  });

  test('a damaged entry changes nothing but the time, and is replaced', () => {
    const dir = freshDir();
    const script = loader('require');
    assert.equal(run(script, dir), ANSWER, 'cold');
    const file = join(dir, 'napi', entries(dir)[0]);
    const good = readFileSync(file);
    writeFileSync(file, good.subarray(0, good.length >> 1)); // cut short
    assert.equal(run(script, dir), ANSWER, 'cut entry');
    assert.ok(readFileSync(file).length > good.length * 0.9, 'the cut entry was not replaced');
    writeFileSync(file, Buffer.alloc(good.length, 0x5a)); // garbage of the right length
    assert.equal(run(script, dir), ANSWER, 'garbage entry');
    assert.notEqual(readFileSync(file)[0], 0x5a, 'the garbage entry was not replaced');
    assert.deepEqual(entries(dir), [file.split('/').pop()]);
  });

  test('a bundle edited in place, of the same length, runs its own code, not the cached one', () => {
    // A copy of dist/ whose bundle is then edited as patch-package would (the starter's content
    // hash unchanged): V8 checks of the source only its length, so the entry's key must change.
    const copy = join(scratch, `runtime-${n++}`);
    cpSync(join(runtimeDir, 'dist'), join(copy, 'dist'), { recursive: true });
    writeFileSync(join(copy, 'package.json'), '{"type":"module"}');
    const dir = freshDir();
    const script = loader('require', copy);
    assert.equal(run(script, dir), ANSWER, 'cold');
    assert.equal(run(script, dir), ANSWER, 'warm');
    const bundle = join(copy, 'dist', 'napi', 'napi-bundle.cjs');
    const text = readFileSync(bundle, 'utf8');
    assert.equal(text.split('not the exports of an addon').length, 2, 'the message is in the bundle once');
    writeFileSync(bundle, text.replace('not the exports of an addon', 'NOT THE EXPORTS OF AN ADDON'));
    assert.equal(run(script, dir), ANSWER.replace('not the exports of an addon', 'NOT THE EXPORTS OF AN ADDON'));
  });

  test('the folder keeps the 16 newest entries: a new one stays, the oldest others go', () => {
    const dir = freshDir();
    const old = numbered('old-', 20, 2, '.bin');
    writeDated(join(dir, 'napi'), old); // old-19 the newest of them
    assert.equal(run(loader('require'), dir), ANSWER);
    const left = entries(dir);
    assert.equal(left.length, 16, left.join(' '));
    assert.deepEqual(left.filter((f) => f.startsWith('old-')), old.slice(5), 'not the 15 newest old entries');
  });

  test('SPINDLE_CACHE_DIR=none: no cache directory is made, and spindle/napi loads', () => {
    const off = freshDir();
    assert.equal(run(loader('require'), off, { SPINDLE_CACHE_DIR: 'none', XDG_CACHE_HOME: off }), ANSWER);
    assert.equal(run(loader('import'), off, { SPINDLE_CACHE_DIR: 'none', XDG_CACHE_HOME: off }), ANSWER);
    assert.equal(existsSync(off), false);
  });
});
