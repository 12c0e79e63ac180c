// The escape suite (tests/escape, issue 14): C programs that attack the confinement of a host
// directory (a stale directory fd after rename + symlink, a racing symlink swap, every path call
// through a swapped directory, fd close/reuse races across threads, read-only mounts, a directory
// cache swapped under it), each as an
// unmodified WASI program and linked with the in-program FS (whose host preopens are forwarded to
// the host), run on spindle under every Node line the test command installed
// (SPINDLE_TEST_NODES, colon-separated; the Node running this file always) and on wasmtime 46
// side by side, SPINDLE_ESCAPE_REPEAT times each (default 3). A run passes when it exits 0, prints
// what wasmtime prints, and nothing under ROOT/outside changed on the host. wasmtime missing fails
// the test command (helpers.mjs `needs`; bash bench/harness/setup.sh installs it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cliPath, needs, repoRoot, wasmtimeBin, withTempDir, RUN_TIMEOUT_MS } from './helpers.mjs';

const escapeBuild = join(repoRoot, 'build', 'tests', 'escape');
const REPEAT = Number(process.env.SPINDLE_ESCAPE_REPEAT ?? 3);
/** Node binaries to run spindle with: this one, then SPINDLE_TEST_NODES. */
export const NODES = [process.execPath, ...(process.env.SPINDLE_TEST_NODES ?? '').split(':').filter(Boolean)];

/** Each program with its arguments (tests/escape/<name>.c explains the attack). */
const PROGRAMS = [
  ['stale_dirfd', []],
  ['race_swap', ['20000']],
  ['close_race', ['3000']],
  ['fd_chaos', ['20000']],
  ['cache_swap', ['20000']],
];

function program(name) {
  const p = join(escapeBuild, `${name}.wasm`);
  assert.ok(existsSync(p), `${p} is missing: run 'bash tests/escape/build.sh' from the repository root`);
  return p;
}

/** ROOT/outside (secret.txt, dir/) and an empty ROOT/box, as tests/escape/escape.h describes. */
function layout(root) {
  mkdirSync(join(root, 'outside', 'dir'), { recursive: true });
  writeFileSync(join(root, 'outside', 'secret.txt'), 'OUTSIDE\n');
  mkdirSync(join(root, 'box'));
}

/** Everything observable of a tree: names, types, sizes, contents, link targets, mtimes (ns). */
export function snapshot(dir) {
  const out = {};
  const walk = (d, rel) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name), r = rel + name;
      const st = lstatSync(p, { bigint: true });
      const what = st.isSymbolicLink() ? `-> ${readlinkSync(p)}` : st.isDirectory() ? 'dir' : readFileSync(p, 'latin1');
      out[r] = `${what} size ${st.size} mtime ${st.mtimeNs} mode ${st.mode}`;
      if (st.isDirectory()) walk(p, r + '/');
    }
  };
  walk(dir, '');
  const st = lstatSync(dir, { bigint: true });
  out['.'] = `mtime ${st.mtimeNs} mode ${st.mode}`;
  return out;
}

/** Runs `cmd args` with a timeout; resolves { status, signal, stdout, stderr }. */
export function runProcess(cmd, args, timeoutMs = RUN_TIMEOUT_MS) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [], err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

export const spindleRun = (node, flags, wasm, args) => runProcess(node, [cliPath, 'run', ...flags, wasm, ...args]);
export const wasmtimeRun = (flags, wasm, args) =>
  runProcess(wasmtimeBin, ['run', '-W', 'threads=y,shared-memory=y', '-S', 'threads=y', ...flags, wasm, ...args]);

/** One run of `name` in a fresh layout; returns the result after checking ROOT/outside is untouched. */
async function attack(run, name, args) {
  return withTempDir('spindle-escape-', async (root) => {
    layout(root);
    const before = snapshot(join(root, 'outside'));
    const r = await run(['--dir', `${join(root, 'box')}::/box`], program(name), args);
    assert.deepEqual(snapshot(join(root, 'outside')), before, `${name}: ROOT/outside changed on the host\n${r.stdout}`);
    return r;
  });
}

const describeLabel = (r) => `status ${r.status}${r.signal ? ` (signal ${r.signal})` : ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

const noWasmtime = needs(wasmtimeBin, 'bash bench/harness/setup.sh (installs wasmtime 46, the reference of this suite)');

for (const [base, args] of PROGRAMS) {
  for (const name of [base, `${base}_ifs`]) {
    describe(`escape: ${name}`, { skip: noWasmtime }, () => {
      let reference;
      test('wasmtime 46: exits 0, no escape', async () => {
        const r = await attack(wasmtimeRun, name, args);
        assert.equal(r.status, 0, describeLabel(r));
        assert.match(r.stdout, / escapes 0\n$/);
        reference = r.stdout;
      });
      for (const node of NODES) {
        test(`spindle on ${node === process.execPath ? `this Node (${process.version})` : node}: ${REPEAT} runs, each as wasmtime`, async () => {
          for (let i = 0; i < REPEAT; i++) {
            const r = await attack((flags, wasm, a) => spindleRun(node, flags, wasm, a), name, args);
            assert.equal(r.status, 0, `run ${i + 1}: ${describeLabel(r)}`);
            assert.doesNotMatch(r.stderr, /ESCAPE|Error|abort/i, `run ${i + 1}: ${describeLabel(r)}`);
            if (reference !== undefined) assert.equal(r.stdout, reference, `run ${i + 1}: not what wasmtime printed`);
            else assert.match(r.stdout, / escapes 0\n$/);
          }
        });
      }
    });
  }
}

describe('escape: read-only mounts refuse every change (spindle only: wasmtime 46 has no read-only CLI form)', () => {
  for (const name of ['readonly', 'readonly_ifs']) {
    for (const node of NODES) {
      test(`${name} on ${node === process.execPath ? `this Node (${process.version})` : node}: wasmtime's errnos, nothing changed on the host`, () =>
        withTempDir('spindle-escape-ro-', async (root) => {
          mkdirSync(join(root, 'd'));
          writeFileSync(join(root, 'f'), 'data');
          const before = snapshot(root);
          const r = await spindleRun(node, ['--dir-ro', `${root}::/box`], program(name), []);
          assert.equal(r.status, 0, describeLabel(r));
          assert.match(r.stdout, /readonly failures 0\n$/);
          assert.deepEqual(snapshot(root), before, 'the read-only directory changed on the host');
        }));
    }
  }
});

describe("issue 14's smaller findings", () => {
  const guestC = (name) => {
    const p = join(repoRoot, 'build', 'guests', 'c', `${name}.wasm`);
    assert.ok(existsSync(p), `${p} is missing: run 'bash tests/guests/build.sh'`);
    return p;
  };

  test('--dir ::/x (an empty host path) is a usage error, not the current directory', async () => {
    const r = await runProcess(process.execPath, [cliPath, 'run', '--dir', '::/x', guestC('hello')]);
    assert.equal(r.status, 2, describeLabel(r));
    assert.match(r.stderr, /^spindle: error: --dir ::\/x: give the host directory \(e\.g\. --dir \.::\/x\); an empty one is refused\n$/);
    assert.equal(r.stdout, '');
  });

  test('exit(256) is an error (status 1, said on stderr), never a silent 0; 255 stays 255', async () => {
    let r = await runProcess(process.execPath, [cliPath, 'run', guestC('exit_in_thread'), '256']);
    assert.equal(r.status, 1, describeLabel(r));
    assert.match(r.stderr, /the program exited with status 256, outside of 0-255 \(reported as status 1\)/);
    r = await runProcess(process.execPath, [cliPath, 'run', guestC('exit_in_thread'), '255']);
    assert.equal(r.status, 255, describeLabel(r));
  });

  test('a command-line argument that is not UTF-8 is refused with a message (Node would pass U+FFFD)', async () => {
    // spawn takes strings; a Buffer-free way to get raw bytes into argv is a shell's printf.
    const r = await runProcess('/bin/sh', ['-c', `exec "$0" "$1" run "$2" "$(printf 'a\\377b')"`, process.execPath, cliPath, guestC('args_env')]);
    assert.equal(r.status, 2, describeLabel(r));
    assert.match(r.stderr, /^spindle: error: argument 3 of the command line is not valid UTF-8; .*pass it in UTF-8\n$/);
    const ok = await runProcess(process.execPath, [cliPath, 'run', guestC('args_env'), 'é']);
    assert.equal(ok.status, 0, describeLabel(ok));
    assert.match(ok.stdout, /argv\[1\]=é \(2 bytes\)/);
    // U+FFFD itself, given in UTF-8 (the CLI reads the raw bytes only when an argument holds one).
    const fffd = await runProcess(process.execPath, [cliPath, 'run', guestC('args_env'), '\uFFFD']);
    assert.equal(fffd.status, 0, describeLabel(fffd));
    assert.match(fffd.stdout, /argv\[1\]=\uFFFD \(3 bytes\)/);
  });
});
