// Exit and failure modes (issue #2, items 4 and 8), through the JS API and the CLI:
//  - a trap in any thread -> exit 134 and a message naming the thread and the trap;
//  - proc_exit from any thread -> that code at once; main returning -> 0 with threads running;
//  - bad input (non-wasm, missing file, unshared memory, unknown import, no wasi_thread_start,
//    corrupt module, no _start) -> a one-line error, exit code 1 or 2, no stack trace.
// Hand-made modules come from fixtures/modules.mjs (built with fixtures/wasm-builder.mjs).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as modules from './fixtures/modules.mjs';
import {
  assertChildEnded, assertNoJsStack, assertOneLineError, exitGuard, expectRun, guest, runApiInChild, runCli, runCliAsync,
  runGuest,
} from './helpers.mjs';

exitGuard(after);
const c = (name) => guest('c', name);

let dir;
const fixture = {};
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'spindle-failures-'));
  for (const [name, make] of Object.entries(modules)) {
    fixture[name] = join(dir, `${name}.wasm`);
    writeFileSync(fixture[name], make());
  }
  fixture.text = join(dir, 'notes.wasm');
  writeFileSync(fixture.text, 'this is a text file, not WebAssembly\n');
  fixture.empty = join(dir, 'empty.wasm');
  writeFileSync(fixture.empty, '');
  fixture.directory = join(dir, 'a-directory.wasm');
  mkdirSync(fixture.directory);
  fixture.missing = join(dir, 'does-not-exist.wasm');
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('traps: exit 134, message names the thread and the trap', () => {
  test('API: __builtin_trap in a worker thread while main is in pthread_join', async () => {
    const r = await runGuest(c('trap_in_thread'));
    assert.equal(r.code, 134);
    assert.equal(r.stdout, 'main before spawn\nthread about to trap\n', 'output before the trap is kept');
    assert.match(r.stderr, /\bthread 1\b/);
    assert.match(r.stderr, /unreachable/);
    assertNoJsStack(r.stderr);
  });

  test('API: the trap message carries the wasm stack (the module has a name section)', async () => {
    const r = await runGuest(c('trap_in_thread'));
    assert.match(r.stderr, /crash_here/);
  });

  test('API: integer divide by zero on the main thread (thread 0)', async () => {
    const r = await runGuest(c('trap_in_main'));
    assert.equal(r.code, 134);
    assert.equal(r.stdout, 'main about to divide by zero\n');
    assert.match(r.stderr, /divide by zero/);
    assert.match(r.stderr, /\bthread 0\b|\bmain thread\b/);
    assertNoJsStack(r.stderr);
  });

  test('API: abort() in a thread is a trap', async () => {
    const r = await runGuest(c('abort'));
    assert.equal(r.code, 134);
    assert.match(r.stderr, /^thread calling abort\(\)\n/);
    assert.match(r.stderr, /\bthread 1\b/);
    assert.match(r.stderr, /unreachable/);
  });

  test('API: after a trap run() resolves and the process ends by itself (no worker left)', () => {
    const r = runApiInChild(c('trap_in_thread'));
    assertChildEnded(r);
    assert.equal(r.code, 134);
    assert.equal(r.status, 0);
  });

  test('CLI: trap in a thread -> 134, message on stderr, stdout kept', () => {
    const r = runCli(['run', c('trap_in_thread')]);
    assert.equal(r.signal, null, 'CLI timed out');
    assert.equal(r.status, 134);
    assert.equal(r.stdout, 'main before spawn\nthread about to trap\n');
    assert.match(r.stderr, /\bthread 1\b/);
    assert.match(r.stderr, /unreachable/);
    assertNoJsStack(r.stderr);
  });

  test('CLI: trap on the main thread -> 134', () => {
    const r = runCli(['run', c('trap_in_main')]);
    assert.equal(r.status, 134);
    assert.match(r.stderr, /divide by zero/);
  });
});

describe('traps in busy programs', () => {
  test('API: a trap while 4 other threads spin without calling the host -> 134 at once', async () => {
    const r = await runGuest(c('trap_while_busy'));
    assert.equal(r.code, 134);
    assert.equal(r.stdout, '4 threads spinning; trapping\n');
    assert.match(r.stderr, /\bthread 5\b/);
    assert.match(r.stderr, /unreachable/);
  });

  test('CLI: a trap while other threads spin -> 134 and the process ends', () => {
    const r = runCli(['run', c('trap_while_busy')]);
    assert.equal(r.signal, null, 'CLI did not end: spinning threads kept it alive');
    assert.equal(r.status, 134);
    assert.match(r.stderr, /\bthread 5\b/);
  });

  test('API: unbounded recursion in a thread exhausts the call stack -> 134, named as a trap of that thread', async () => {
    // wasmtime: "wasm trap: call stack exhausted", 134. V8 raises a RangeError for this.
    const r = await runGuest(c('stack_overflow'));
    assert.equal(r.code, 134);
    assert.equal(r.stdout, 'recursing\n');
    assert.match(r.stderr, /\bthread 1\b/);
    assert.match(r.stderr, /call stack|stack size|stack overflow/i);
    assertNoJsStack(r.stderr);
  });
});

describe('a failing output callback', () => {
  test('API: the stdout callback throws -> run() settles and no worker is left running', () => {
    const r = runApiInChild(c('threads4'), {}, 30_000, { stdoutThrows: true });
    assertChildEnded(r);
    assert.ok(r.error || r.code !== undefined);
  });
});

describe('proc_exit from any thread ends the program with its code', () => {
  test('API: exit(7) from a thread while main blocks in pthread_join on a thread that never ends', async () => {
    const r = await runGuest(c('exit_in_thread'));
    assert.equal(r.code, 7);
    assert.equal(r.stdout, 'main joining\nthread calling exit(7)\n');
    assert.equal(r.stderr, '');
  });

  for (const code of [0, 1, 42, 125]) {
    test(`API: exit(${code}) from a thread`, async () => {
      const r = await runGuest(c('exit_in_thread'), { args: [String(code)] });
      assert.equal(r.code, code);
    });
  }

  test('API: a plain wasip1 module calling proc_exit(3) on the main thread', async () => {
    const r = await runGuest(modules.hello(3));
    assert.equal(r.code, 3);
    assert.equal(r.stdout, 'hand-made hello\n');
  });

  test('CLI: exit(42) from a thread -> 42, the CLI process ends although a thread runs forever', () => {
    const r = runCli(['run', c('exit_in_thread'), '42']);
    assert.equal(r.signal, null, 'CLI timed out');
    assert.equal(r.status, 42);
    assert.equal(r.stdout, 'main joining\nthread calling exit(42)\n');
  });
});

describe('main returning ends the program with 0 while other threads still run (POSIX)', () => {
  test('API: run() resolves 0', async () => {
    const r = await runGuest(c('main_returns'));
    assert.equal(r.code, 0);
    assert.equal(r.stdout, '3 threads running; main returns 0\n');
  });

  test('API: the process ends by itself after run() resolves (spinning, sleeping, waiting threads killed)', () => {
    const r = runApiInChild(c('main_returns'));
    assertChildEnded(r);
    assert.equal(r.status, 0);
    assert.equal(r.code, 0);
  });

  test('CLI: main returns while a thread blocks reading a stdin that stays open -> 0, the process ends', async () => {
    const r = await runCliAsync(['run', c('exit_while_reading')], { input: null });
    assert.equal(r.signal, null, 'CLI did not end: the blocked stdin reader kept it alive');
    expectRun(r, { code: 0, stdout: 'main returns while a thread waits for stdin\n' });
  });

  test('CLI: exit status 0 and the process ends', () => {
    const r = runCli(['run', c('main_returns')]);
    assert.equal(r.signal, null, 'CLI did not end: a thread kept it alive');
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '3 threads running; main returns 0\n');
    assert.equal(r.stderr, '');
  });
});

// A thread spinning forever through a cycle of tail calls: on Node 24 and 26 worker.terminate()
// cannot end it by itself (docs/known-issues/v8-tail-call-terminate.md); the rewrite's tail-call
// count gives V8 a point to end it (thread-guards.ts, 4). Pool threads (a worker each).
describe('threads spinning through tail calls do not keep a program alive (pool threads)', () => {
  const out = '2 threads spinning through tail calls\n';
  test('CLI --no-host-threads: main returns -> 0, the process ends', async () => {
    const r = await runCliAsync(['run', '--no-host-threads', c('forever_tail')]);
    assert.equal(r.signal, null, 'CLI did not end: a thread spinning through tail calls kept it alive');
    expectRun(r, { code: 0, stdout: out });
  });

  test('CLI --no-host-threads: main calls exit(42) -> 42, the process ends', async () => {
    const r = await runCliAsync(['run', '--no-host-threads', c('forever_tail'), '42']);
    assert.equal(r.signal, null, 'CLI did not end: a thread spinning through tail calls kept it alive');
    expectRun(r, { code: 42, stdout: out });
  });
});

// name -> [fixture key, pattern the one-line message must match, SpindleError code]
const BAD_INPUT = [
  ['a missing file', 'missing', /does-not-exist\.wasm/, 'ENOENT_MODULE'],
  ['a directory', 'directory', /a-directory\.wasm/, 'ENOENT_MODULE'],
  ['a non-wasm (text) file', 'text', /not a WebAssembly module/i, 'NOT_WASM'],
  ['an empty file', 'empty', /not a WebAssembly module/i, 'NOT_WASM'],
  ['a corrupt module (wasm header, garbage after)', 'corrupt', /corrupt\.wasm/, 'BAD_MODULE'],
  ['a memory import that is not shared (threaded module)', 'memoryNotShared', /not shared/i, 'MEMORY_NOT_SHARED'],
  ['an unknown import', 'unknownImport', /env.*mystery_function/, 'UNKNOWN_IMPORT'],
  ['a threaded module without wasi_thread_start that spawns', 'noThreadStart', /wasi_thread_start/, 'NO_THREAD_START'],
  ['a module without _start', 'noStart', /_start/, 'NO_START'],
];

describe('bad input: one-line error, exit 1 or 2, no stack trace', () => {
  for (const [what, key, pattern, code] of BAD_INPUT) {
    test(`CLI: ${what}`, () => {
      const r = runCli(['run', fixture[key]]);
      assert.equal(r.signal, null, 'CLI timed out');
      assert.ok(r.status === 1 || r.status === 2, `exit status ${r.status}, expected 1 or 2; stderr: ${r.stderr}`);
      assertOneLineError(r.stderr, pattern);
      assert.equal(r.stdout, '');
    });

    test(`API: ${what} -> SpindleError ${code}`, async () => {
      const outcome = await runGuest(fixture[key]).then(
        (r) => ({ resolved: r }),
        (e) => ({ error: e }),
      );
      if (key === 'noThreadStart' && outcome.resolved) {
        // Detected only when the spawn happens: the runtime may end the program instead of
        // throwing; then it must not exit 0 and must say what is wrong.
        assert.ok(outcome.resolved.code === 1 || outcome.resolved.code === 2, `exit code ${outcome.resolved.code}`);
        assertOneLineError(outcome.resolved.stderr, pattern);
        return;
      }
      assert.ok(outcome.error, `run resolved ${JSON.stringify(outcome.resolved)} instead of throwing`);
      assert.equal(outcome.error.name, 'SpindleError');
      assert.equal(outcome.error.code, code);
      assert.ok(!outcome.error.message.includes('\n'), `message is not one line: ${outcome.error.message}`);
      assert.match(outcome.error.message, pattern);
    });
  }

  test('API: bad bytes given as a Uint8Array -> NOT_WASM', async () => {
    await assert.rejects(runGuest(new TextEncoder().encode('not wasm at all')), { name: 'SpindleError', code: 'NOT_WASM' });
  });

  test('API: bad options -> BAD_OPTION', async () => {
    await assert.rejects(runGuest(c('threads4'), { maxThreads: 0 }), { name: 'SpindleError', code: 'BAD_OPTION' });
    await assert.rejects(runGuest(c('threads4'), { threads: -1 }), { name: 'SpindleError', code: 'BAD_OPTION' });
    await assert.rejects(runGuest(c('threads4'), { threads: 1.5 }), { name: 'SpindleError', code: 'BAD_OPTION' });
  });
});
