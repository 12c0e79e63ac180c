// The napi host's pool demand kept across runs (runtime/src/platform/node/pool-demand.ts): the
// record holds the highest peak of all runs, ignores what does not parse as a count, and a cache
// that is off or unwritable changes nothing.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runtimeDir } from './helpers.mjs';

const { rememberDemand, rememberedDemand } = await import(join(runtimeDir, 'dist', 'platform', 'node', 'pool-demand.js'));

const scratch = mkdtempSync(join(tmpdir(), 'spindle-pool-demand-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(scratch, `cache-${n++}`);
const KEY = 'a'.repeat(64);

describe('pool demand records', () => {
  test('none at first; a run records its peak; a lower peak later leaves it, a higher one raises it', () => {
    const dir = freshDir();
    assert.equal(rememberedDemand(KEY, dir), undefined);
    rememberDemand(KEY, 3, dir);
    assert.equal(rememberedDemand(KEY, dir), 3);
    rememberDemand(KEY, 1, dir);
    assert.equal(rememberedDemand(KEY, dir), 3);
    rememberDemand(KEY, 4, dir);
    assert.equal(rememberedDemand(KEY, dir), 4);
    assert.equal(readFileSync(join(dir, 'pool-demand', KEY), 'latin1'), '4');
    assert.equal(rememberedDemand('b'.repeat(64), dir), undefined, 'another addon has its own record');
  });

  test('a run that never used the pool (peak 0) records nothing', () => {
    const dir = freshDir();
    rememberDemand(KEY, 0, dir);
    assert.equal(rememberedDemand(KEY, dir), undefined);
  });

  test('an entry that is not a count in [1, 512] is no record, and the next run replaces it', () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'pool-demand'), { recursive: true });
    for (const bad of ['', '0', '-3', '3.5', '4\n', 'x', '99999', '513']) {
      writeFileSync(join(dir, 'pool-demand', KEY), bad);
      assert.equal(rememberedDemand(KEY, dir), undefined, JSON.stringify(bad));
    }
    rememberDemand(KEY, 2, dir);
    assert.equal(rememberedDemand(KEY, dir), 2);
  });

  test('the cache turned off (SPINDLE_CACHE_DIR=none): nothing read, nothing written', () => {
    const was = process.env.SPINDLE_CACHE_DIR;
    process.env.SPINDLE_CACHE_DIR = 'none';
    try {
      rememberDemand(KEY, 3);
      assert.equal(rememberedDemand(KEY), undefined);
    } finally {
      if (was === undefined) delete process.env.SPINDLE_CACHE_DIR; else process.env.SPINDLE_CACHE_DIR = was;
    }
  });

  test('a directory that cannot be written: no record, no error', { skip: process.getuid?.() === 0 && 'root writes anywhere' }, () => {
    const dir = freshDir();
    mkdirSync(dir);
    chmodSync(dir, 0o500);
    try {
      rememberDemand(KEY, 3, dir);
      assert.equal(rememberedDemand(KEY, dir), undefined);
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});
