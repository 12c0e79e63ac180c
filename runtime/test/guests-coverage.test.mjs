// Every guest program has a test that runs it (the rule wasmtime's test-programs enforce with a
// macro): a guest added to tests/guests without a test fails here. Also checks that build.sh
// built each of them.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { guestSources, guestsBuild, runtimeDir } from './helpers.mjs';

const testDir = join(runtimeDir, 'test');
const testText = readdirSync(testDir)
  .filter((f) => f.endsWith('.test.mjs') && f !== 'guests-coverage.test.mjs')
  .map((f) => readFileSync(join(testDir, f), 'utf8'))
  .join('\n');

for (const [kind, short] of [['c', 'c'], ['rust', 'rs']]) {
  test(`every ${kind} guest is built and run by a test`, () => {
    const names = guestSources(kind);
    assert.ok(names.length > 0);
    const untested = names.filter((n) => !testText.includes(`${short}('${n}')`) && !testText.includes(`guest('${kind}', '${n}')`));
    assert.deepEqual(untested, [], `guests without a test: ${untested.join(', ')}`);
    const unbuilt = names.filter((n) => !existsSync(join(guestsBuild, kind, `${n}.wasm`)));
    assert.deepEqual(unbuilt, [], `not built (run bash tests/guests/build.sh): ${unbuilt.join(', ')}`);
  });
}
