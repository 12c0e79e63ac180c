/**
 * Shared helpers of the runtime's node:test tests: where the guest programs are, running one
 * through the JS API with captured output, running the CLI as a child process with a timeout,
 * and the assertions every failure-mode test makes (one line, no stack trace).
 *
 * Guests are built by `bash tests/guests/build.sh` (tools/test.sh runs it before these tests).
 */
import assert from 'node:assert/strict';
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../dist/index.js';

export const runtimeDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = join(runtimeDir, '..');
export const guestsBuild = join(repoRoot, 'build', 'guests');
export const guestsSrc = join(repoRoot, 'tests', 'guests');
export const cliPath = join(runtimeDir, 'dist', 'cli.js');
/** The fs guest programs (tests/fs-guests/build.sh) and wasmtime 46 (bench/harness/setup.sh). */
export const fsGuestsBuild = join(repoRoot, 'build', 'tests', 'fs');
export const wasmtimeBin = join(repoRoot, 'build', 'bench', 'bin', 'wasmtime');

/**
 * The `skip` option of a suite that needs a tool or a built file at `path`: false when it exists.
 * When it is missing: under the test command (tools/test.sh sets SPINDLE_TEST_ALL=1, and installs
 * and builds everything first) the suite FAILS at load with `install`, the command that provides
 * it; run alone (`npm test`), the suite is skipped with that reason, which node:test lists as a
 * SKIP and tools/test.sh's summary would print. Never a silent skip.
 */
export function needs(path, install) {
  if (existsSync(path)) return false;
  const why = `${path} is missing: ${install}`;
  if (process.env.SPINDLE_TEST_ALL === '1') throw new Error(`${why} (the test command provides it: a missing tool is a failure here)`);
  return why;
}

/** Path of fs guest `name`; fails with the build command when it is missing. */
export function fsGuest(name) {
  const p = join(fsGuestsBuild, `${name}.wasm`);
  assert.ok(existsSync(p), `${p} is missing: run 'bash tests/fs-guests/build.sh' from the repository root`);
  return p;
}

/** Calls `f` with a fresh temporary directory named `prefix`..., removed afterwards. */
export async function withTempDir(prefix, f) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await f(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An fs guest's success: exit 0, stdout exactly "<name> ok", nothing on stderr. */
export function expectGuestOk(r, name) {
  assert.equal(r.error, undefined, `${name}: ${r.error}`);
  assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 0, stdout: `${name} ok\n`, stderr: '' });
}

/**
 * Bound for any single guest run: a hang fails the test instead of hanging CI. Generous: on a
 * loaded 2-core machine (load average 20-30) threads64 alone took up to 22 s.
 */
export const RUN_TIMEOUT_MS = 120_000;

/**
 * Path of a built guest: kind is 'c', 'rust' or 'rust-wasip1'.
 * Fails with the command to run when the guests have not been built.
 */
export function guest(kind, name) {
  const p = join(guestsBuild, kind, `${name}.wasm`);
  assert.ok(existsSync(p), `${p} is missing: run 'bash tests/guests/build.sh' from the repository root`);
  return p;
}

/** Names of the guest sources of one kind ('c' or 'rust'), for the every-guest-has-a-test check. */
export function guestSources(kind) {
  const dir = kind === 'c' ? join(guestsSrc, 'c') : join(guestsSrc, 'rust', 'src', 'bin');
  const ext = kind === 'c' ? '.c' : '.rs';
  return readdirSync(dir).filter((f) => f.endsWith(ext)).map((f) => f.slice(0, -ext.length)).sort();
}

const decoder = () => new TextDecoder('utf-8');

/**
 * Runs a program through the JS API with stdout/stderr captured.
 * Resolves { code, stdout, stderr } (strings); rejects if `run` throws or if the run takes
 * longer than `timeoutMs` (the program may keep workers alive; the test still ends).
 * stdin defaults to empty input so a test never reads the test runner's stdin.
 */
export async function runGuest(source, options = {}, timeoutMs = RUN_TIMEOUT_MS) {
  const out = [], err = [];
  const promise = run(source, {
    stdin: '',
    ...options,
    stdout: (c) => out.push(Uint8Array.from(c)),
    stderr: (c) => err.push(Uint8Array.from(c)),
  });
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`run did not finish within ${timeoutMs} ms`)), timeoutMs);
    timer.unref?.();
  });
  try {
    const code = await Promise.race([promise, timeout]);
    return { code, stdout: join8(out), stderr: join8(err), stdoutBytes: concat(out) };
  } finally {
    clearTimeout(timer);
  }
}

function concat(chunks) {
  const n = chunks.reduce((s, c) => s + c.length, 0);
  const all = new Uint8Array(n);
  let o = 0;
  for (const c of chunks) { all.set(c, o); o += c.length; }
  return all;
}
const join8 = (chunks) => decoder().decode(concat(chunks));

/**
 * Runs `node [...nodeArgs] dist/cli.js ...args` synchronously with a timeout.
 * Returns { status, signal, stdout, stderr, error }; status is null if the child was killed.
 */
export function runCli(args, { input = '', timeoutMs = RUN_TIMEOUT_MS, env, nodeArgs = [] } = {}) {
  const r = spawnSync(process.execPath, [...nodeArgs, cliPath, ...args], {
    input,
    timeout: timeoutMs,
    env: env ?? process.env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, error: r.error };
}

/** Process groups of runCliAsync's children not yet closed: killed when this test file's process
 * exits, so a test that node:test timed out leaves no CLI (or restarted child) running. */
const liveGroups = new Set();
process.on('exit', () => { for (const pid of liveGroups) killGroup(pid); });

/** SIGKILL to every process of the group `pid` leads; nothing if it is gone. */
function killGroup(pid) {
  try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ }
}

/**
 * Like runCli, but asynchronous (lets several CLI runs of one test file overlap).
 * `input: null` leaves the child's stdin pipe open (no data, no end of file) until it exits.
 * `stallStdoutMs` stops reading the child's stdout for that long at the start (a full pipe).
 * `closeStdoutEarly` closes the reading end of stdout after the first chunk (EPIPE afterwards).
 */
export function runCliAsync(args, { input = '', timeoutMs = RUN_TIMEOUT_MS, stallStdoutMs = 0, closeStdoutEarly = false } = {}) {
  return new Promise((resolve) => {
    // Its own process group: the CLI may have restarted Node (relaunch.ts), and a SIGKILL of the
    // supervisor alone would leave that child running; killing the group ends both.
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    liveGroups.add(child.pid);
    const out = [], err = [];
    child.stdout.on('data', (c) => {
      out.push(c);
      if (closeStdoutEarly) child.stdout.destroy(); // like `| head -1`: later writes get EPIPE
    });
    if (stallStdoutMs > 0) {
      // A slow reader: the pipe fills up and the program's writes must wait, not fail or drop.
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), stallStdoutMs);
    }
    child.stderr.on('data', (c) => err.push(c));
    const timer = setTimeout(() => killGroup(child.pid), timeoutMs);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      killGroup(child.pid); // a restarted child that outlived its supervisor
      liveGroups.delete(child.pid);
      resolve({ status, signal, pid: child.pid, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => {}); // EPIPE when the program ends without reading
    if (input !== null) child.stdin.end(input);
  });
}

/** Asserts that `stderr` is exactly one non-empty line and carries no JavaScript stack trace. */
export function assertOneLineError(stderr, pattern) {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `expected exactly one line on stderr, got ${lines.length}:\n${stderr}`);
  assert.doesNotMatch(stderr, /^\s+at /m, `stderr has a stack trace:\n${stderr}`);
  if (pattern) assert.match(lines[0], pattern);
  return lines[0];
}

/** Asserts there is no JavaScript stack trace of the runtime in `text`. */
export function assertNoJsStack(text) {
  assert.doesNotMatch(text, /^\s+at .*\.(m?js|ts):\d+/m, `output has a JavaScript stack trace:\n${text}`);
}

/**
 * Asserts a run's exit code, stdout and stderr at once, so a failure shows all three (a wrong
 * stdout usually comes with the explanation on stderr). stderr defaults to ''.
 */
export function expectRun(r, { code, stdout, stderr = '' }) {
  assert.deepEqual({ code: r.code ?? r.status, stdout: r.stdout, stderr: r.stderr }, { code, stdout, stderr });
}

/** Splits text into lines, dropping the empty string after a final newline. */
export function lines(text) {
  const l = text.split('\n');
  if (l.at(-1) === '') l.pop();
  return l;
}

/**
 * Call once per test file. If the file's process is still alive 10 s after its tests ended
 * (a worker or handle the runtime forgot to release), it fails with a message instead of
 * hanging the test run.
 */
export function exitGuard(after) {
  after(() => {
    setTimeout(() => {
      process.stderr.write('test process still alive 10 s after its tests ended: a runtime worker or handle was not released\n');
      process.exit(1);
    }, 10_000).unref();
  });
}

/** FNV-1a 32-bit of bytes, as 8 hex digits (the checksum the stdin guests print). */
export function fnv1a32(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 16777619) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/**
 * Runs `run(source, options)` in a separate Node process (fixtures/run-api.mjs) with a timeout:
 * for modes that block the calling thread (runOnCallingThread) and for checking that the process
 * ends by itself after run() resolves. Returns the parsed JSON result plus { status, signal }.
 */
export function runApiInChild(source, options = {}, timeoutMs = RUN_TIMEOUT_MS, { stdoutThrows = false, nodeArgs = [], env } = {}) {
  const script = join(runtimeDir, 'test', 'fixtures', 'run-api.mjs');
  const r = spawnSync(process.execPath, [...nodeArgs, script, JSON.stringify({ source, options, stdoutThrows })], {
    timeout: timeoutMs, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: env ?? process.env,
  });
  let result = {};
  try { result = JSON.parse(r.stdout); } catch { /* reported below through status/stderr */ }
  return { ...result, status: r.status, signal: r.signal, childStderr: r.stderr, rawStdout: r.stdout };
}

/** Asserts that a runApiInChild process ended by itself (and says why not, if it did not). */
export function assertChildEnded(r) {
  if (r.signal === null) return;
  if (r.code !== undefined || r.error !== undefined) {
    assert.fail(`run() settled (${JSON.stringify(r.error ?? { code: r.code })}) but the process did not exit by itself `
      + `(killed by ${r.signal} at the timeout): a worker or handle was left alive`);
  }
  assert.fail(`run() did not settle before the timeout (killed by ${r.signal}); stderr: ${r.childStderr}`);
}

/** What the Rust `sixteen_threads` guest prints (checked against wasmtime). */
export const SIXTEEN_THREADS_OUTPUT = `thread  0 checksum 117966cd58fbf8e5
thread  1 checksum 43ed3f0280bb57a5
thread  2 checksum 3b2f202b9d3bdb65
thread  3 checksum b86b28e157aa23a5
thread  4 checksum 3309d0562ba43445
thread  5 checksum 843c24d9756e7285
thread  6 checksum 3ed182e0587df3a5
thread  7 checksum 027bae742d353525
thread  8 checksum 49310cc0291911a5
thread  9 checksum caf3221e10d45225
thread 10 checksum 86e0403e5d3eeba5
thread 11 checksum db7ecf3a2db9f425
thread 12 checksum 8faa8b27e3ca09e5
thread 13 checksum 22b75ec8359883e5
thread 14 checksum 7537bae217a3a425
thread 15 checksum a7a2613a19cb42a5
combined fb9b26f3a823e740
items 1600000
`;

/**
 * Stale entries for the tests of a cache folder's bounds: writes the files `names` into `folder`
 * (made if missing), each holding `content`, dated one second apart from `start` (Unix seconds),
 * the first the oldest. Returns their paths, in order.
 */
export function writeDated(folder, names, content = 'stale', start = 1_000_000) {
  mkdirSync(folder, { recursive: true });
  return names.map((name, i) => {
    const file = join(folder, name);
    writeFileSync(file, content);
    utimesSync(file, start + i, start + i);
    return file;
  });
}

/** `count` names: `prefix`, the index zero-padded to `width` digits, `suffix` (old-00.bin ...). */
export function numbered(prefix, count, width, suffix = '') {
  return Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(width, '0')}${suffix}`);
}
