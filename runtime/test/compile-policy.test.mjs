// The compile policy (issue 17, item 2; runtime/src/compile-policy.ts, README "Compile policy"):
// which V8 flags the CLI's Node process gets for each program shape and user choice. The choice
// itself is asserted here; what it costs or saves in time is bench/hosts' business.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { guest, runCli, runtimeDir } from './helpers.mjs';
import { command } from './fixtures/wasm-command.mjs';

const { nodeFlagsFor, shapeOf, EAGER_CODE_BYTES, LARGE_CODE_BYTES } = await import(join(runtimeDir, 'dist', 'compile-policy.js'));
const { load } = await import(join(runtimeDir, 'dist', 'index.js'));

const scratch = mkdtempSync(join(tmpdir(), 'spindle-policy-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const EAGER_FLAGS = ['--no-liftoff', '--no-wasm-lazy-compilation'];
// Node 20's V8 (11.3) gives workers JSPI only when started with this flag (setting it later
// crashes the process: docs/known-issues/node20-stack-switching-flag.md); the CLI adds it to a
// restart it makes anyway for a threaded program. Later lines have JSPI (or set it safely) without it.
const JSPI_AT_START = process.versions.v8.startsWith('11.3.') ? ['--experimental-wasm-stack-switching'] : [];

describe('the policy for each shape and choice (nodeFlagsFor)', () => {
  const EAGER = ['--no-liftoff', '--no-wasm-lazy-compilation'];
  const small = { usesThreads: true, codeBytes: 200_000 };
  const medium = { usesThreads: true, codeBytes: EAGER_CODE_BYTES + 1 };
  const large = { usesThreads: true, codeBytes: LARGE_CODE_BYTES + 1 };
  const single = { usesThreads: false, codeBytes: 200_000 };

  test('by default, threaded: optimized before _start up to EAGER_CODE_BYTES, optimized lazily up to LARGE_CODE_BYTES, default tiering above', () => {
    assert.deepEqual(nodeFlagsFor(small), EAGER);
    assert.deepEqual(nodeFlagsFor({ usesThreads: true, codeBytes: EAGER_CODE_BYTES }), EAGER);
    assert.deepEqual(nodeFlagsFor(medium), ['--no-liftoff']);
    assert.deepEqual(nodeFlagsFor({ usesThreads: true, codeBytes: LARGE_CODE_BYTES }), ['--no-liftoff']);
    assert.deepEqual(nodeFlagsFor(large), []);
    assert.deepEqual(nodeFlagsFor({ usesThreads: true }), ['--no-liftoff'], 'unknown size (a module given compiled): optimized lazily');
  });

  test('by default, single-threaded: default tiering whatever the size', () => {
    assert.deepEqual(nodeFlagsFor(single), []);
    assert.deepEqual(nodeFlagsFor({ usesThreads: false, codeBytes: 100 }), []);
  });

  test("'optimize' (--optimize) asks for the optimizing tier whatever the shape; 'baseline' (--no-optimize) never", () => {
    for (const shape of [small, medium, large, single]) {
      assert.deepEqual(nodeFlagsFor(shape, 'optimize'), ['--no-liftoff']);
      assert.deepEqual(nodeFlagsFor(shape, 'baseline'), []);
      assert.deepEqual(nodeFlagsFor(shape, false), [], 'false is the former optimize=false');
      assert.deepEqual(nodeFlagsFor(shape, true), nodeFlagsFor(shape), 'true is the default');
    }
  });

  test('shapeOf reads threads and the code size from the bytes; a file that is not wasm is single-threaded', () => {
    const bytes = command({ threads: true, padBytes: 1000 });
    const shape = shapeOf(bytes);
    assert.equal(shape.usesThreads, true);
    assert.equal(shape.codeBytes, 1 + (1 + 2) + (2 + 1002), 'the code section: count, two sized bodies');
    assert.equal(shapeOf(command({ threads: false, padBytes: 10 })).usesThreads, false);
    assert.deepEqual(shapeOf(Buffer.from('#!/bin/sh\n')), { usesThreads: false });
  });

  test('the library reports the same shape on a loaded program (nodeFlagsFor(program) for embedders)', async () => {
    const threaded = await load(readFileSync(guest('c', 'threads4')));
    assert.ok(threaded.usesThreads && threaded.codeBytes > 0 && threaded.codeBytes < LARGE_CODE_BYTES, JSON.stringify(threaded.codeBytes));
    assert.deepEqual(nodeFlagsFor(threaded), EAGER_FLAGS);
    const big = await load(command({ threads: true, padBytes: LARGE_CODE_BYTES }));
    assert.deepEqual(nodeFlagsFor(big), []);
  });
});

describe('the CLI starts Node with the flags the policy names', () => {
  const largeThreaded = join(scratch, 'large-threaded.wasm');
  writeFileSync(largeThreaded, command({ threads: true, padBytes: LARGE_CODE_BYTES }));
  const smallSingle = join(scratch, 'small-single.wasm');
  writeFileSync(smallSingle, command({ threads: false, padBytes: 100 }));
  let n = 0;
  /** Runs the CLI with `args`; returns the options of each Node process it ran in, in order. */
  const processes = (args) => {
    const log = join(scratch, `execargv-${n++}.log`);
    const r = runCli(args, {
      nodeArgs: ['--import', join(runtimeDir, 'test', 'fixtures', 'record-execargv.mjs')],
      env: { ...process.env, SPINDLE_TEST_EXECARGV_LOG: log },
    });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  };

  test('a small threaded program: Node is started again, once, with the optimizing tier before _start', () => {
    assert.deepEqual(processes(['run', guest('c', 'threads4')]), [[], [...EAGER_FLAGS, ...JSPI_AT_START]]);
  });

  test('Node 20: the restart of a threaded program also gives workers JSPI (--experimental-wasm-stack-switching), unless --no-host-threads',
    { skip: JSPI_AT_START.length ? false : `${process.version} needs no JSPI flag at start` }, () => {
      assert.deepEqual(processes(['run', '--no-host-threads', guest('c', 'threads4')]), [[], EAGER_FLAGS]);
      assert.deepEqual(processes(['run', '--host-threads', guest('c', 'threads4')]), [[], [...EAGER_FLAGS, ...JSPI_AT_START]]);
    });

  test('a threaded program between EAGER_CODE_BYTES and LARGE_CODE_BYTES: started again with --no-liftoff', () => {
    const medium = join(scratch, 'medium-threaded.wasm');
    writeFileSync(medium, command({ threads: true, padBytes: EAGER_CODE_BYTES + 1 }));
    assert.deepEqual(processes(['run', medium]), [[], ['--no-liftoff', ...JSPI_AT_START]]);
  });

  test('a threaded program with more than LARGE_CODE_BYTES of code runs in the first process, default tiering', () => {
    assert.deepEqual(processes(['run', largeThreaded]), [[]]);
  });

  test('a single-threaded program runs in the first process', () => {
    assert.deepEqual(processes(['run', smallSingle]), [[]]);
  });

  test('--optimize: Node started again with --no-liftoff for a large or single-threaded program too', () => {
    assert.deepEqual(processes(['run', '--optimize', largeThreaded]), [[], ['--no-liftoff', ...JSPI_AT_START]]);
    assert.deepEqual(processes(['run', '--optimize', smallSingle]), [[], ['--no-liftoff']]);
  });

  test('--no-optimize: never started again', () => {
    assert.deepEqual(processes(['run', '--no-optimize', guest('c', 'threads4')]), [[]]);
  });

  test('started with the flag already: no second process', () => {
    const log = join(scratch, 'execargv-given.log');
    const r = runCli(['run', guest('c', 'threads4')], {
      nodeArgs: [...EAGER_FLAGS, '--import', join(runtimeDir, 'test', 'fixtures', 'record-execargv.mjs')],
      env: { ...process.env, SPINDLE_TEST_EXECARGV_LOG: log },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)), [EAGER_FLAGS]);
  });
});
