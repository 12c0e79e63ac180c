// The CLI: `node dist/cli.js run [--env K=V]... [--threads N] [--max-threads N] [--] prog.wasm [args...]`,
// run as a child process with a timeout (a hang fails the test instead of hanging CI).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import {
  assertNoJsStack, assertOneLineError, cliPath, exitGuard, expectRun, fnv1a32, guest, lines, runCli, runCliAsync, SIXTEEN_THREADS_OUTPUT,
} from './helpers.mjs';

exitGuard(after);
const c = (name) => guest('c', name);
const rs = (name) => guest('rust', name);

describe('CLI: acceptance programs', () => {
  test('a C pthreads program with 4 threads', () => {
    const r = runCli(['run', c('threads4')]);
    assert.equal(r.signal, null, 'CLI timed out');
    assert.equal(r.stdout, 'thread 0 partial 31250125000\nthread 1 partial 93750125000\n'
      + 'thread 2 partial 156250125000\nthread 3 partial 218750125000\ntotal 500000500000\n');
    assert.equal(r.stderr, '');
    assert.equal(r.status, 0);
  });

  test('a Rust program with 16 threads', () => {
    const r = runCli(['run', rs('sixteen_threads')]);
    assert.equal(r.signal, null, 'CLI timed out');
    assert.equal(r.stdout, SIXTEEN_THREADS_OUTPUT);
    assert.equal(r.stderr, '');
    assert.equal(r.status, 0);
  });

  test('C threads64 and Rust many_threads (1,000 threads)', async () => {
    const [a, b] = await Promise.all([runCliAsync(['run', c('threads64')]), runCliAsync(['run', rs('many_threads')])]);
    assert.equal(a.stdout, 'threads 64 sum 2016\n');
    assert.equal(a.status, 0);
    assert.equal(b.stdout, 'threads 1000\ntotal 499500\n');
    assert.equal(b.status, 0);
  });
});

describe('CLI: flags and arguments', () => {
  test('--help prints usage to stdout and exits 0', () => {
    const r = runCli(['--help']);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /spindle run/);
    for (const flag of ['--env', '--threads', '--max-threads', '--dir HOST\\[::GUEST\\]', '--dir-ro', '--mount GUEST=memory', '--preload', '--save']) {
      assert.match(r.stdout, new RegExp(flag));
    }
  });

  test('run --help also prints usage', () => {
    const r = runCli(['run', '--help']);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /spindle run/);
  });

  test('program arguments after the program are passed through, even if they look like flags', () => {
    const r = runCli(['run', c('args_env'), 'a1', '--threads', '-x', 'héllo']);
    expectRun(r, { code: 0, stdout: 'argc 5\nargv[0]=args_env.wasm (13 bytes)\nargv[1]=a1 (2 bytes)\n'
      + 'argv[2]=--threads (9 bytes)\nargv[3]=-x (2 bytes)\nargv[4]=héllo (6 bytes)\nenv count 0\n' });
  });

  test('-- ends the options', () => {
    const r = runCli(['run', '--env', 'SPINDLE_Q=1', '--', c('args_env'), '--', 'x']);
    expectRun(r, { code: 0, stdout: 'argc 3\nargv[0]=args_env.wasm (13 bytes)\nargv[1]=-- (2 bytes)\nargv[2]=x (1 bytes)\n'
      + 'env SPINDLE_Q=1\nenv count 1\n' });
  });

  test('--env K=V (repeated, in order); the host environment is not passed through', () => {
    const r = runCli(['run', '--env', 'SPINDLE_B=2', '--env', 'SPINDLE_A=x=y', '--env', 'OTHER=', c('args_env')],
      { env: { ...process.env, SPINDLE_LEAK: 'no' } });
    expectRun(r, { code: 0, stdout: 'argc 1\nargv[0]=args_env.wasm (13 bytes)\nenv SPINDLE_B=2\nenv SPINDLE_A=x=y\nenv count 3\n' });
  });

  test('--threads N and --threads=0 (pool grows on demand)', () => {
    for (const args of [['--threads', '1'], ['--threads=0']]) {
      const r = runCli(['run', ...args, c('threads4')]);
      assert.match(r.stdout, /total 500000500000\n$/, `with ${args.join(' ')}`);
      assert.equal(r.status, 0);
    }
  });

  test('--max-threads 4: the fifth pthread_create fails with EAGAIN', () => {
    const r = runCli(['run', '--max-threads', '4', c('eagain')]);
    expectRun(r, { code: 0, stdout: 'pthread_create failed: EAGAIN\ncreated 4 threads, joined all\ncreate after join: ok\n' });
  });

  test('--main-thread runs _start on the CLI thread', () => {
    const r = runCli(['run', '--main-thread', c('threads4')]);
    assert.match(r.stdout, /total 500000500000\n$/);
    assert.equal(r.status, 0);
  });

  test('--main-thread: exit() from a thread while main waits in pthread_join ends the CLI', () => {
    const r = runCli(['run', '--main-thread', c('exit_in_thread')], { timeoutMs: 8_000 });
    assert.equal(r.signal, null, 'CLI hung');
    assert.equal(r.status, 7);
  });

  test('stdin is the CLI process stdin', () => {
    const input = 'first line\nsecond\nthird\n';
    const r = runCli(['run', c('stdin_read')], { input });
    expectRun(r, { code: 0, stdout: `bytes ${input.length} lines 3 fnv ${fnv1a32(Buffer.from(input))}\nfirst line: first line\n` });
  });

  test('2 MiB of stdin through the CLI, nothing lost or reordered', () => {
    const input = Buffer.alloc(2 << 20);
    for (let i = 0; i < input.length; i++) input[i] = i % 251 === 250 ? 10 : 32 + (i % 91);
    const newlines = input.filter((b) => b === 10).length;
    const r = runCli(['run', c('stdin_read')], { input });
    assert.equal(r.status, 0);
    assert.equal(lines(r.stdout)[0], `bytes ${input.length} lines ${newlines} fnv ${fnv1a32(input)}`);
  });

  test('stdin of a Rust program (read_to_string)', () => {
    const r = runCli(['run', rs('stdin_echo')], { input: 'abc\ndéf\n' });
    assert.equal(r.stdout, 'bytes 9 lines 2\n> ABC\n> DÉF\n');
  });

  test('poll_oneoff on inherited stdin: ready when data is waiting and at end of input', async () => {
    const [withData, atEof] = await Promise.all([
      runCliAsync(['run', c('wasi_misc')], { input: 'hi\n' }),
      runCliAsync(['run', c('wasi_misc')], { input: '' }),
    ]);
    for (const r of [withData, atEof]) {
      assert.equal(r.status, 0);
      assert.match(r.stdout, /poll stdin: errno 0, stdin readable: true\n$/);
    }
  });

  test('a plain wasm32-wasip1 program', () => {
    const r = runCli(['run', guest('rust-wasip1', 'hello')]);
    assert.equal(r.stdout, 'hello from rust\n');
    assert.equal(r.stderr, 'to stderr\n');
    assert.equal(r.status, 0);
  });
});

describe('CLI: output', () => {
  test('1 MiB of stdout through a pipe, nothing lost; also when the program ends with exit(3)', async () => {
    const [a, b] = await Promise.all([runCliAsync(['run', c('large_output')]), runCliAsync(['run', c('large_output'), 'exit'])]);
    for (const [r, code] of [[a, 0], [b, 3]]) {
      assert.equal(r.status, code);
      assert.equal(r.stdout.length, 1 << 20);
      const l = lines(r.stdout);
      assert.equal(l.length, 16384);
      assert.equal(l[0], 'line 000000 abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY');
      assert.equal(l[16383], 'line 016383 abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY');
    }
  });

  test('1 MiB of stdout to a reader that stalls for 1 s (the pipe fills up): nothing lost', async () => {
    const r = await runCliAsync(['run', c('large_output')], { stallStdoutMs: 1000 });
    assert.equal(r.status, 0);
    assert.equal(r.stdout.length, 1 << 20);
    assert.equal(lines(r.stdout).length, 16384);
  });

  test('stdout closed by the reader (like | head -1): writes fail with EPIPE, the C program ignores it and exits 0', async () => {
    // wasmtime 46 does the same (0); a Rust program panics on EPIPE instead (134 on both).
    const r = await runCliAsync(['run', c('large_output')], { closeStdoutEarly: true });
    assert.equal(r.signal, null);
    assert.equal(r.status, 0);
    assert.equal(r.stderr, '');
  });

  test('lines from 8 threads on stdout and stderr: whole lines, each thread in order', () => {
    const r = runCli(['run', c('interleave')]);
    assert.equal(r.status, 0);
    for (const [stream, ids] of [[r.stdout, [0, 2, 4, 6]], [r.stderr, [1, 3, 5, 7]]]) {
      const got = lines(stream);
      assert.equal(got.length, 800);
      for (const id of ids) {
        const mine = got.filter((l) => l.startsWith(`t${id} `));
        assert.deepEqual(mine, Array.from({ length: 200 }, (_, i) => `t${id} line ${i}`));
      }
    }
  });
});

describe('CLI: stdio terminals (isatty, the filetype of fds 0-2)', () => {
  // `script` (util-linux) runs the command with a pseudo-terminal as its stdin, stdout and stderr.
  const underPty = (command) => spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 120_000 });
  const shell = (args) => [process.execPath, cliPath, 'run', c('isatty'), ...args].map((a) => `'${a}'`).join(' ');

  for (const mode of [[], ['thread']]) {
    const where = mode.length ? 'asked from a pthread (_start on a worker)' : 'asked by _start on the calling thread';
    test(`pipes are not terminals, ${where}`, () => {
      const r = runCli(['run', c('isatty'), ...mode]);
      expectRun(r, { code: 0, stdout: 'isatty 0=0 1=0 2=0\n' });
    });

    test(`a terminal is one, /dev/null is not, ${where}`, () => {
      let r = underPty(shell(mode));
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.replace(/\r/g, ''), 'isatty 0=1 1=1 2=1\n');
      r = underPty(`${shell(mode)} </dev/null 2>/dev/null`);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.replace(/\r/g, ''), 'isatty 0=0 1=1 2=0\n');
    });
  }
});

describe('CLI: usage errors (one line, exit 2, no stack trace)', () => {
  test('run without a program', () => {
    const r = runCli(['run']);
    assert.ok(r.status === 1 || r.status === 2, `status ${r.status}`);
    assertNoJsStack(r.stderr);
    assert.notEqual(r.stderr.trim(), '');
  });

  test('an unknown flag', () => {
    const r = runCli(['run', '--bogus', c('hello')]);
    assert.ok(r.status === 1 || r.status === 2, `status ${r.status}`);
    assertOneLineError(r.stderr, /--bogus/);
    assert.equal(r.stdout, '');
  });

  test('an unknown command', () => {
    const r = runCli(['frobnicate']);
    assert.ok(r.status === 1 || r.status === 2, `status ${r.status}`);
    assertOneLineError(r.stderr, /frobnicate/);
  });

  test('a bad --threads / --max-threads value', () => {
    for (const args of [['--threads', 'many'], ['--max-threads', '0'], ['--threads']]) {
      const r = runCli(['run', ...args, c('hello')]);
      assert.ok(r.status === 1 || r.status === 2, `${args.join(' ')}: status ${r.status}`);
      assertOneLineError(r.stderr);
      assert.equal(r.stdout, '');
    }
  });

  test('--env without =', () => {
    const r = runCli(['run', '--env', 'NOEQUALS_AND_NOT_IN_HOST_ENV_1234', c('args_env')]);
    // wasmtime treats `--env NAME` as "inherit NAME from the host"; unset -> nothing passed.
    // Either that, or a one-line usage error, is acceptable; never a stack trace.
    assertNoJsStack(r.stderr);
    if (r.status === 0) assert.match(r.stdout, /env count 0\n$/);
    else assertOneLineError(r.stderr);
  });
});
