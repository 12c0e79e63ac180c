// Host file times through node:fs on the Node running this file (runtime/src/platform/node/
// host-times.ts): what libuv writes for a time given as seconds in a double changed in libuv 1.52
// (Node 24): before, whole microseconds; since, the nanoseconds the double carries. host-times.ts
// predicts what node:fs writes (`nodeWrites`) and takes node:fs's fast path only for a double it
// writes exactly (`exactSeconds`); every prediction is checked here against a real file, so a
// Node line whose libuv writes otherwise fails here (tools/test.sh runs this on Node 20 and 26).
import assert from 'node:assert/strict';
import { closeSync, fstatSync, futimesSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { exactSeconds, nodeWrites } from '../dist/platform/node/host-times.js';

let dir, fd;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'spindle-host-times-'));
  writeFileSync(join(dir, 'f'), 'x');
  fd = openSync(join(dir, 'f'), 'r+');
});
after(() => { closeSync(fd); rmSync(dir, { recursive: true }); });

/** What the file's mtime reads back after node:fs wrote `seconds`. */
function written(seconds) {
  futimesSync(fd, seconds, seconds);
  return fstatSync(fd, { bigint: true }).mtimeNs;
}

const S = 1_700_000_000n * 1_000_000_000n;
/** Whole seconds, whole microseconds, nanoseconds, both ends of a second, an early time. */
const TIMES = [S, S + 123_456_000n, S + 123_456_789n, S + 1000n, S + 999_999_000n, S + 999_999_999n, S + 500_000n,
  S + 123_456_689n, 1_000_000n, 86_400n * 1_000_000_000n + 1n];

const keepsNs = (() => {
  const [major, minor] = process.versions.uv.split('.').map(Number);
  return major > 1 || minor >= 52;
})();

test(`node:fs writes what host-times.ts predicts (libuv ${process.versions.uv}: ${keepsNs ? 'nanoseconds' : 'whole microseconds'})`, () => {
  for (const ns of TIMES) {
    const near = Number(ns / 1_000_000_000n) + Number(ns % 1_000_000_000n) / 1e9;
    for (const seconds of [near, near + 5e-7, near - 5e-7]) {
      assert.equal(written(seconds), nodeWrites(seconds), `futimes(${seconds}) on Node ${process.version}`);
    }
  }
});

test('a time with a double that node:fs writes exactly reads back to the nanosecond; one without has none', () => {
  let exact = 0;
  for (const ns of TIMES) {
    const seconds = exactSeconds(ns);
    if (seconds === undefined) {
      assert.ok(keepsNs || ns % 1000n !== 0n, `whole microseconds always have a double before libuv 1.52: ${ns}`);
      continue;
    }
    exact++;
    assert.equal(written(seconds), ns, `exactSeconds(${ns}) = ${seconds}`);
  }
  // Whole seconds always have one; before 1.52 every whole microsecond does.
  assert.ok(exact >= (keepsNs ? 2 : 6), `${exact} of ${TIMES.length} times have an exact double`);
  if (!keepsNs) assert.equal(exactSeconds(S + 123_456_789n), undefined, 'nanoseconds cannot be written before libuv 1.52');
});
