// The napi host's pool demand kept across runs (runtime/src/platform/node/pool-demand.ts): the
// record holds the highest peak of all runs, ignores what does not parse as a count, and a cache
// that is off or unwritable changes nothing.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { numbered, runtimeDir, writeDated } from './helpers.mjs';

const { rememberDemand, rememberedDemand, DEMAND_ENTRIES } = await import(join(runtimeDir, 'dist', 'platform', 'node', 'pool-demand.js'));

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

  test('bounded: a write keeps the DEMAND_ENTRIES most recently written or read records', () => {
    const dir = freshDir(), folder = join(dir, 'pool-demand');
    const old = writeDated(folder, numbered('old-', DEMAND_ENTRIES + 10, 3), '2', 1.6e9);
    assert.equal(rememberedDemand('old-000', dir), 2, 'read: now the most recently used');
    assert.ok(statSync(old[0]).mtimeMs > Date.now() - 600_000);
    rememberDemand(KEY, 3, dir);
    const kept = readdirSync(folder);
    assert.equal(kept.length, DEMAND_ENTRIES);
    assert.ok(kept.includes(KEY) && existsSync(old[0]));
    for (let i = 1; i <= 11; i++) assert.equal(existsSync(old[i]), false, `old-${i} dropped`);
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
