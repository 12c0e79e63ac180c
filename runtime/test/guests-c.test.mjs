// The C guest programs (tests/guests/c/*.c, wasm32-wasip1-threads) run through the JS API:
// exact output and exit code of each. Reference behaviour: wasmtime 46 (see tests/guests/README.md).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { assertChildEnded, exitGuard, expectRun, fnv1a32, guest, lines, runApiInChild, runGuest } from './helpers.mjs';

exitGuard(after);
const c = (name) => guest('c', name);

describe('C guests: threads', () => {
  test('hello: stdout and stderr captured, exit 0', async () => {
    const r = await runGuest(c('hello'));
    assert.deepEqual(r, { ...r, code: 0, stdout: 'hello from c\n', stderr: 'to stderr\n' });
  });

  test('pthread_basic: create, join with return values, detach', async () => {
    const r = await runGuest(c('pthread_basic'));
    expectRun(r, { code: 0, stdout: 'joined thread 0: 4\njoined thread 1: 9\njoined thread 2: 16\n'
      + 'detached threads finished: 2\nmain thread is pthread_self: 1\n' });
  });

  test('mutex_cond: bounded queue with 2 producers, 2 consumers; mutex counter', async () => {
    const r = await runGuest(c('mutex_cond'));
    expectRun(r, { code: 0, stdout: 'consumed 1000 items, sum 750500\ncounter 40000\n' });
  });

  test('thread_local: every thread has its own _Thread_local copy', async () => {
    const r = await runGuest(c('thread_local'));
    expectRun(r, { code: 0, stdout: 'thread 0 tls 110\nthread 1 tls 120\nthread 2 tls 130\nthread 3 tls 140\n'
      + 'main tls 5\ntls addresses distinct: 1\n' });
  });

  test('threads64: 64 threads alive at once (pool grows past its prewarmed size)', async () => {
    const r = await runGuest(c('threads64'), { threads: 2 });
    expectRun(r, { code: 0, stdout: 'threads 64 sum 2016\n' });
  });

  test('threads4: 4 threads sum 1..1,000,000', async () => {
    const r = await runGuest(c('threads4'));
    expectRun(r, { code: 0, stdout: 'thread 0 partial 31250125000\nthread 1 partial 93750125000\n'
      + 'thread 2 partial 156250125000\nthread 3 partial 218750125000\ntotal 500000500000\n' });
  });

  test('threads4 with an empty prewarmed pool (threads: 0): every spawn grows the pool', async () => {
    const r = await runGuest(c('threads4'), { threads: 0 });
    assert.match(r.stdout, /total 500000500000\n$/);
    assert.equal(r.code, 0);
  });

  test('nested_spawn: threads spawn threads while their parents wait in pthread_join (31 threads)', async () => {
    const r = await runGuest(c('nested_spawn'));
    expectRun(r, { code: 0, stdout: 'threads in the tree (main included): 31\n' });
  });

  test('nested_spawn with threads: 0: every worker is started by a spawned thread', async () => {
    const r = await runGuest(c('nested_spawn'), { threads: 0 });
    expectRun(r, { code: 0, stdout: 'threads in the tree (main included): 31\n' });
  });

  test('eagain: a prewarm count above maxThreads is capped by it', async () => {
    const r = await runGuest(c('eagain'), { threads: 8, maxThreads: 2 });
    expectRun(r, { code: 0, stdout: 'pthread_create failed: EAGAIN\ncreated 2 threads, joined all\ncreate after join: ok\n' });
  });

  test('eagain: past maxThreads pthread_create fails with EAGAIN; slots are reused after join', async () => {
    const r = await runGuest(c('eagain'), { maxThreads: 4 });
    expectRun(r, { code: 0, stdout: 'pthread_create failed: EAGAIN\ncreated 4 threads, joined all\ncreate after join: ok\n' });
  });
});

describe('C guests: output', () => {
  test('interleave: 8 threads x 200 lines on stdout and stderr; lines whole, per-thread order kept', async () => {
    const r = await runGuest(c('interleave'));
    assert.equal(r.code, 0);
    for (const [stream, ids] of [[r.stdout, [0, 2, 4, 6]], [r.stderr, [1, 3, 5, 7]]]) {
      const got = lines(stream);
      assert.equal(got.length, 800);
      const next = new Map(ids.map((id) => [id, 0]));
      for (const l of got) {
        const m = /^t(\d) line (\d+)$/.exec(l);
        assert.ok(m, `malformed or torn line: ${JSON.stringify(l)}`);
        const id = Number(m[1]);
        assert.ok(next.has(id), `thread ${id} wrote to the wrong stream`);
        assert.equal(Number(m[2]), next.get(id), `thread ${id} lines out of order`);
        next.set(id, next.get(id) + 1);
      }
      for (const id of ids) assert.equal(next.get(id), 200);
    }
  });

  const expectLargeOutput = (stdout) => {
    assert.equal(stdout.length, 1 << 20, 'stdout must be exactly 1 MiB');
    const got = lines(stdout);
    assert.equal(got.length, 16384);
    got.forEach((l, i) => {
      if (l !== `line ${String(i).padStart(6, '0')} abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY`) {
        assert.fail(`line ${i} is wrong: ${JSON.stringify(l)}`);
      }
    });
  };

  test('large_output: 1 MiB from main and a thread, nothing lost', async () => {
    const r = await runGuest(c('large_output'));
    assert.equal(r.code, 0);
    expectLargeOutput(r.stdout);
  });

  test('large_output then exit(3): all output delivered before the end', async () => {
    const r = await runGuest(c('large_output'), { args: ['exit'] });
    assert.equal(r.code, 3);
    expectLargeOutput(r.stdout);
  });
});

describe('C guests: memory', () => {
  test('grow_memory: threads grow the shared memory and write from the new region; stdin lands in grown memory', async () => {
    const input = new Uint8Array(3 << 20).fill(0x41);
    input[input.length - 1] = 0x7a;
    const r = await runGuest(c('grow_memory'), { stdin: input });
    expectRun(r, {
      code: 0,
      stdout: 'thread 0 block sum 397312\nthread 1 block sum 401408\nthread 2 block sum 405504\n'
        + 'thread 3 block sum 409600\nstdin into grown memory: 3145728 bytes, last byte 122\n',
    });
  });
});

describe('C guests: WASI', () => {
  test('args_env: argv (UTF-8 byte lengths) and environ in the given order', async () => {
    const r = await runGuest(c('args_env'), {
      args: ['a1', 'héllo wörld', ''],
      env: { SPINDLE_X: 'y', SPINDLE_A: 'b=c', SPINDLE_U: 'ü€😀', OTHER: 'z' },
    });
    expectRun(r, { code: 0, stdout: 'argc 4\nargv[0]=args_env.wasm (13 bytes)\nargv[1]=a1 (2 bytes)\n'
      + 'argv[2]=héllo wörld (13 bytes)\nargv[3]= (0 bytes)\n'
      + 'env SPINDLE_X=y\nenv SPINDLE_A=b=c\nenv SPINDLE_U=ü€😀\nenv count 4\n' });
  });

  test('args_env: 2,000 arguments and 500 variables of mixed UTF-8', async () => {
    const args = Array.from({ length: 2000 }, (_, i) => `a${i}-${'é€😀'.repeat(i % 7)}`);
    const env = Array.from({ length: 500 }, (_, i) => `SPINDLE_V${String(i).padStart(3, '0')}=${'ü'.repeat(i % 5)}`);
    const r = await runGuest(c('args_env'), { args, env });
    const expected = ['argc 2001', 'argv[0]=args_env.wasm (13 bytes)',
      ...args.map((a, i) => `argv[${i + 1}]=${a} (${Buffer.byteLength(a)} bytes)`),
      ...env.map((e) => `env ${e}`), 'env count 500'];
    assert.deepEqual(lines(r.stdout), expected);
    assert.equal(r.code, 0);
  });

  test('args_env: argv0 override and env as a list', async () => {
    const r = await runGuest(c('args_env'), { argv0: 'prog', env: ['SPINDLE_L=1', 'SPINDLE_M=2'] });
    assert.equal(r.stdout, 'argc 1\nargv[0]=prog (4 bytes)\nenv SPINDLE_L=1\nenv SPINDLE_M=2\nenv count 2\n');
  });

  test('args_env: no env given -> empty environment', async () => {
    const r = await runGuest(c('args_env'));
    assert.match(r.stdout, /env count 0\n$/);
  });

  test('clocks: realtime, monotonic, resolution, nanosleep, usleep, cputime clocks', async () => {
    const r = await runGuest(c('clocks'));
    expectRun(r, { code: 0, stdout: 'realtime after 2020: true\nmonotonic res ok: true\nmonotonic: true\n'
      + 'nanosleep 30ms rc 0 slept enough: true\nusleep 10ms slept enough: true\n'
      + 'process cputime: ok (errno 0)\nthread cputime: ok (errno 0)\n' });
  });

  test('clock_threads: MONOTONIC never goes backwards from one thread to another', async () => {
    expectRun(await runGuest(c('clock_threads')), { code: 0, stdout: 'cross-thread monotonic: true\n' });
  });

  test('stdin_read: a string as stdin', async () => {
    const r = await runGuest(c('stdin_read'), { stdin: 'hello\nworld\n' });
    expectRun(r, { code: 0, stdout: 'bytes 12 lines 2 fnv 3d3d5389\nfirst line: hello\n' });
  });

  test('stdin_read: 200 KB of bytes as stdin, read in 1000-byte chunks', async () => {
    const input = new Uint8Array(200_000).map((_, i) => (i % 97 === 96 ? 10 : 33 + (i % 90)));
    const newlines = input.filter((b) => b === 10).length;
    const r = await runGuest(c('stdin_read'), { stdin: input });
    assert.equal(lines(r.stdout)[0], `bytes 200000 lines ${newlines} fnv ${fnv1a32(input)}`);
  });

  test('stdin_read: empty stdin is EOF at once', async () => {
    const r = await runGuest(c('stdin_read'), { stdin: '' });
    assert.equal(r.stdout, 'bytes 0 lines 0 fnv 811c9dc5\nfirst line: \n');
  });
});

describe('C guests: WASI corners (wasi_misc, proc_raise)', () => {
  test('wasi_misc: random_get, sched_yield, EFAULT for out-of-bounds pointers, sock_* errnos, poll_oneoff', async () => {
    const r = await runGuest(c('wasi_misc'), { stdin: 'hi\n' });
    assert.equal(r.code, 0);
    const out = lines(r.stdout);
    assert.deepEqual(out.slice(0, 6), [
      'random_get: errno 0 0, draws differ: true',
      'sched_yield: errno 0',
      'fd_write, buffer out of bounds: errno 21',
      'fd_write, iovec array out of bounds: errno 21',
      'random_get out of bounds: errno 21',
      'fd_write, result pointer out of bounds: errno 21',
    ]);
    assert.equal(out[6], 'sock_accept on fd 99: errno 8');
    // ENOTSOCK (57, POSIX) here; wasmtime answers EBADF (8). Either is an errno, not a crash.
    assert.match(out[7], /^sock_shutdown on stdout: errno (57|8)$/);
    assert.equal(out[8], 'poll two clocks: errno 0, events 1, first userdata 222, error 0');
    assert.equal(out[9], 'poll stdin: errno 0, stdin readable: true');
    assert.equal(out.length, 10);
  });

  test('wasi_misc: at end of input stdin is readable too (a read would not block)', async () => {
    const r = await runGuest(c('wasi_misc'), { stdin: '' });
    assert.match(r.stdout, /poll stdin: errno 0, stdin readable: true\n$/);
  });

  test('proc_raise(SIGTERM) returns ENOTSUP and the program continues', async () => {
    // spindle's WASI layer answers ENOTSUP (documented in runtime/src/wasi/proc.ts); wasmtime 46
    // ends the program with "proc_raise unsupported", exit 1.
    const r = await runGuest(c('proc_raise'));
    expectRun(r, { code: 0, stdout: 'raising SIGTERM\nproc_raise returned errno 58\n' });
  });
});

describe('C guests: _start on the calling thread (runOnCallingThread, Node)', () => {
  // Run in a child process: this mode blocks the caller's event loop, so an in-process timeout
  // could never fire.
  // exit_in_thread: proc_exit from another thread ends the calling thread's pthread_join (a wasm
  // wait: src/wait-hook.ts).
  for (const [name, options, code, stdout] of [
    ['hello', {}, 0, 'hello from c\n'],
    ['threads4', {}, 0, /total 500000500000\n$/],
    ['exit_in_thread', { args: ['5'] }, 5, 'main joining\nthread calling exit(5)\n'],
    ['main_returns', {}, 0, '3 threads running; main returns 0\n'],
  ]) {
    test(`${name}`, () => {
      const r = runApiInChild(c(name), { runOnCallingThread: true, ...options });
      assertChildEnded(r);
      assert.equal(r.error, undefined, `run threw: ${JSON.stringify(r.error)}`);
      assert.equal(r.code, code);
      if (typeof stdout === 'string') assert.equal(r.stdout, stdout);
      else assert.match(r.stdout, stdout);
    });
  }
});
