// Every guest program has a test that runs it (the rule wasmtime's test-programs enforce with a
// macro): a guest added to any guest tree without a test fails here. Also checks that the build
// scripts built each of them.
//   tests/guests/{c,rust}           runtime behaviours (tests/guests/build.sh), run as c('name') / rs('name')
//   tests/fs-guests/{c,runtime,oom} filesystem guests (tests/fs-guests/build.sh), named in a test
//                                   as 'name', 'name_rt', 'name_alloc' or a table key `name:`
//   tests/alloc/c, tests/alloc/rust allocator guests (tests/alloc/build.sh), run by alloc-wasm.test.mjs
// A new guest tree must be added to TREES below.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { guestSources, guestsBuild, repoRoot, runtimeDir } from './helpers.mjs';

const testDir = join(runtimeDir, 'test');
const testText = readdirSync(testDir)
  .filter((f) => f.endsWith('.test.mjs') && f !== 'guests-coverage.test.mjs')
  .map((f) => readFileSync(join(testDir, f), 'utf8'))
  .join('\n');

for (const [kind, short] of [['c', 'c'], ['rust', 'rs']]) {
  test(`every ${kind} guest of tests/guests is built and run by a test`, () => {
    const names = guestSources(kind);
    assert.ok(names.length > 0);
    const untested = names.filter((n) => !testText.includes(`${short}('${n}')`) && !testText.includes(`guest('${kind}', '${n}')`));
    assert.deepEqual(untested, [], `guests without a test: ${untested.join(', ')}`);
    const unbuilt = names.filter((n) => !existsSync(join(guestsBuild, kind, `${n}.wasm`)));
    assert.deepEqual(unbuilt, [], `not built (run bash tests/guests/build.sh): ${unbuilt.join(', ')}`);
  });
}

/**
 * The other guest trees: source folder, extension, build folder, build command, and the built
 * files each source must produce (a source may be built several ways).
 */
const TREES = [
  { src: 'tests/fs-guests/c', ext: '.c', out: 'build/tests/fs', build: 'bash tests/fs-guests/build.sh',
    built: (n) => (n === 'mounts' ? [n] : [n, `${n}_rt`]) },
  { src: 'tests/fs-guests/runtime', ext: '.c', out: 'build/tests/fs', build: 'bash tests/fs-guests/build.sh', built: (n) => [`${n}_rt`] },
  { src: 'tests/fs-guests/oom', ext: '.c', out: 'build/tests/fs', build: 'bash tests/fs-guests/build.sh', built: (n) => [n, `${n}_alloc`] },
  { src: 'tests/alloc/c', ext: '.c', out: 'build/tests/alloc', build: 'bash tests/alloc/build.sh',
    built: (n) => (n === 'hello' ? ['hello_c_dlmalloc', 'hello_c_spindle'] : [n]) },
  { src: 'tests/alloc/rust/src/bin', ext: '.rs', out: 'build/tests/alloc', build: 'bash tests/alloc/build.sh', built: (n) => [n] },
];

/** Whether some test names guest `name` (or one of its builds) as a quoted string, a path or a table key. */
function named(name, builds) {
  return [name, ...builds].some((n) => new RegExp(`['"\`/(]${n}(_rt|_alloc|_plain)?['"\`.)]|\\b${n}: `).test(testText));
}

for (const tree of TREES) {
  test(`every guest of ${tree.src} is built and run by a test`, () => {
    const names = readdirSync(join(repoRoot, tree.src)).filter((f) => f.endsWith(tree.ext)).map((f) => f.slice(0, -tree.ext.length));
    assert.ok(names.length > 0, `${tree.src} has no guest`);
    const untested = names.filter((n) => !named(n, tree.built(n)));
    assert.deepEqual(untested, [], `guests of ${tree.src} without a test: ${untested.join(', ')}`);
    const unbuilt = names.flatMap((n) => tree.built(n)).filter((b) => !existsSync(join(repoRoot, tree.out, `${b}.wasm`)));
    assert.deepEqual(unbuilt, [], `not built (run ${tree.build}): ${unbuilt.join(', ')}`);
  });
}
