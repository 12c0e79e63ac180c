// Never a silent success (issue 15, item 2): the exit status is 0 only when `_start` returned 0
// or the program called proc_exit(0). Each way a run can fail outside the program (a compile
// that does not settle, an instance that never starts, a worker that dies, Node itself crashing)
// ends with a non-zero status and one line saying what happened. The faults are provoked with
// a preload (fixtures/worker-fault.mjs) in the CLI's process and, through Node, in every worker.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { assertOneLineError, exitGuard, guest, runApiInChild, runCli, runtimeDir } from './helpers.mjs';

exitGuard(after);
const threads4 = guest('c', 'threads4');
const THREADS4_OUT = 'thread 0 partial 31250125000\nthread 1 partial 93750125000\n'
  + 'thread 2 partial 156250125000\nthread 3 partial 218750125000\ntotal 500000500000\n';
/** A fault makes the program stop early: bound each run well below the suite's generous default. */
const TIMEOUT_MS = 60_000;
const fault = (name) => ({
  nodeArgs: ['--import', join(runtimeDir, 'test', 'fixtures', 'worker-fault.mjs')],
  env: { ...process.env, SPINDLE_TEST_WORKER_FAULT: name },
  timeoutMs: TIMEOUT_MS,
});

describe('a compile that V8 finishes on background threads', () => {
  // With eager compilation given at start, V8 compiles on background threads and settles
  // WebAssembly.compile from a task; a pending compile does not keep Node's event loop alive, so
  // Node 24 and 26 exited 0 with no output before the compile finished (Node 20 and 22 finish it).
  const eager = ['--no-liftoff', '--no-wasm-lazy-compilation'];

  test('CLI: the program runs and prints its output', () => {
    const r = runCli(['run', threads4], { nodeArgs: eager, timeoutMs: TIMEOUT_MS });
    assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 0, stdout: THREADS4_OUT, stderr: '' });
  });

  test('JS API: run() resolves with the exit code and the output', () => {
    const r = runApiInChild(threads4, {}, TIMEOUT_MS, { nodeArgs: eager });
    assert.deepEqual({ code: r.code, stdout: r.stdout, stderr: r.stderr, status: r.status },
      { code: 0, stdout: THREADS4_OUT, stderr: '', status: 0 }, r.childStderr);
  });
});

describe('a worker that ends while the program runs', () => {
  test('an instance that never starts (every worker exits at boot): exit 1, one line', () => {
    const r = runCli(['run', threads4], fault('exit-at-boot'));
    assert.equal(r.signal, null, `killed by ${r.signal}: the run hung`);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, '');
    assertOneLineError(r.stderr, /^spindle: error: worker for slot \d+ stopped \(exit code 0\) while the program was running/);
  });

  test('a worker that dies when handed a thread: CLI exit 1, one line', () => {
    const r = runCli(['run', threads4], fault('exit-on-thread'));
    assert.equal(r.signal, null, `killed by ${r.signal}: the run hung`);
    assert.equal(r.status, 1, r.stderr);
    assertOneLineError(r.stderr, /^spindle: error: worker for slot \d+ stopped \(exit code 7\) while the program was running/);
  });

  test('a worker that dies when handed a thread: run() resolves 1 with the message on stderr', () => {
    const f = fault('exit-on-thread');
    const r = runApiInChild(threads4, {}, TIMEOUT_MS, f);
    assert.equal(r.signal, null, `killed by ${r.signal}: run() never settled`);
    assert.equal(r.code, 1, JSON.stringify(r));
    assertOneLineError(r.stderr, /^spindle: error: worker for slot \d+ stopped \(exit code 7\)/);
  });
});

describe('Node itself crashing', () => {
  test('a V8 abort (SIGTRAP) in a worker: status 133 and one line naming the crash', () => {
    const r = runCli(['run', threads4], fault('sigtrap-on-thread'));
    assert.deepEqual({ status: r.status, signal: r.signal }, { status: 128 + 5, signal: null }, r.stderr);
    assertOneLineError(r.stderr, /^spindle: error: Node crashed \(SIGTRAP\) while running threads4\.wasm/);
  });
});
