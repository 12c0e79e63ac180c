// `spindle check` through the CLI: exit 0 for a program whose filesystem calls all go to the
// in-program FS, 1 (with the bypassing calls named) for one that does not link it, 2 for a file
// that cannot be read. Guests from tests/fs-guests/build.sh and tests/guests/build.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const cli = `${repo}runtime/dist/cli.js`;
const check = (...files) => spawnSync(process.execPath, [cli, 'check', ...files], { encoding: 'utf8', timeout: 60_000 });

test('a program linked with libspindle-fs.a passes spindle check', () => {
  const wasm = `${repo}build/tests/fs/stdio.wasm`;
  assert.ok(existsSync(wasm), `${wasm} is missing: run 'bash tests/fs-guests/build.sh'`);
  const r = check(wasm);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /stdio\.wasm: ok/);
});

test('a program without the library fails spindle check and names the calls', () => {
  const wasm = `${repo}build/guests/c/hello.wasm`;
  assert.ok(existsSync(wasm), `${wasm} is missing: run 'bash tests/guests/build.sh'`);
  const r = check(wasm);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /bypass spindle: .*fd_write/);
});

test('spindle check on a missing file exits 2 with one line', () => {
  const r = check(`${repo}build/no-such-program.wasm`);
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.doesNotMatch(r.stderr + r.stdout, /\n\s+at /);
});
