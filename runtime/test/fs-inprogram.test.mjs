// The in-program filesystem (crates/spindle-wasi-fs linked into the program), guests in
// tests/fs-guests built by `bash tests/fs-guests/build.sh` into build/tests/fs/:
//   (i)  on spindle (CLI child processes): every guest, threads included;
//   (ii) on node:wasi (single-threaded guests): no preopen from the host, so everything lives
//        in spindle's /tmp; and with a host preopen, forwarded to the host;
//   and on wasmtime 46 (every guest, threads included) when bench/harness/setup.sh installed it
//        (build/bench/bin/wasmtime; skipped otherwise).
// `checkFsImports` runs on every guest: zero WASI filesystem imports may bypass spindle.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { checkCommand, checkFsImports, FS_CALLS } from '../dist/check.js';
import { cliPath, expectGuestOk, fsGuest, fsGuestsBuild, repoRoot, runtimeDir, needs } from './helpers.mjs';

const built = fsGuestsBuild;
const src = join(repoRoot, 'tests', 'fs-guests', 'c');
const nodeWasiRunner = join(runtimeDir, 'test', 'fs-node-wasi-runner.mjs');
const TIMEOUT = 120_000;

const wasm = fsGuest;

const expectOk = expectGuestOk;

/** (i): the spindle CLI (`dirs`: host directories, `--dir HOST::GUEST`). */
function onSpindle(name, { env = [], args = [], program = name, dirs = [] } = {}) {
  const flags = [...env.flatMap((e) => ['--env', e]), ...dirs.flatMap((d) => ['--dir', d])];
  return spawnSync(process.execPath, [cliPath, 'run', ...flags, wasm(program), ...args], { encoding: 'utf8', timeout: TIMEOUT });
}

/** (ii): node:wasi. */
function onNodeWasi(name, { env = [], preopens = [], args = [] } = {}) {
  const flags = [...env.flatMap((e) => ['--env', e]), ...preopens.flatMap((p) => ['--preopen', p])];
  return spawnSync(process.execPath, ['--no-warnings', nodeWasiRunner, wasm(name), ...flags, '--', ...args],
    { encoding: 'utf8', timeout: TIMEOUT });
}

/** Each guest: the configurations it runs in. */
const GUESTS = {
  stdio: { nodeWasi: true },
  posix: { nodeWasi: true },
  dirs: { nodeWasi: true },
  links: { nodeWasi: true },
  badinput: { nodeWasi: true },
  mounts: { nodeWasi: true, env: ['SPINDLE_FS_MOUNTS=/tmp,/data'] },
  append_threads: { nodeWasi: false },
  threads_share: { nodeWasi: false },
  dir_threads: { nodeWasi: false },
  hostdir: { nodeWasi: true }, // with a host directory preopened at /host (--dir HOST::/host)
  enospc: { nodeWasi: true }, // oom/enospc.c, 32 MiB maximum memory: a file written until memory runs out
  preopens: { nodeWasi: true, args: ['threads'] }, // wasi-libc's preopen table and cwd (threads: not on node:wasi)
};

describe('spindle check: WASI filesystem imports', () => {
  const programs = existsSync(built) ? readdirSync(built).filter((f) => f.endsWith('.wasm')) : [];

  test('every guest that links spindle-wasi-fs has zero bypassing imports', () => {
    assert.ok(programs.length > 0, `no programs in ${built}: run 'bash tests/fs-guests/build.sh'`);
    // stdio_plain and the *_rt builds (for the runtime's filesystem) are built without it on purpose.
    for (const p of programs.filter((f) => f !== 'stdio_plain.wasm' && !f.endsWith('_rt.wasm'))) {
      const r = checkFsImports(readFileSync(join(built, p)));
      assert.deepEqual(r.bypassing, [], `${p} bypasses spindle for ${r.bypassing.join(', ')}`);
      assert.equal(r.hasNames, true, p);
      assert.ok(r.forwarded.includes('fd_write'), `${p}: stdio is forwarded to the host`);
    }
  });

  test('the Rust guest (fat LTO, one `use spindle_wasi_fs as _;`) forwards all 32 calls and bypasses none', () => {
    const r = checkFsImports(readFileSync(wasm('fs_rust')));
    assert.deepEqual(r.bypassing, []);
    assert.deepEqual(r.forwarded, [...FS_CALLS].sort());
  });

  test('the Rust guest linked with libspindle-fs.a by -l static= or -C link-arg (no source change) bypasses nothing', () => {
    for (const p of ['fs_rust_libflag', 'fs_rust_linkarg']) {
      const r = checkFsImports(readFileSync(wasm(p)));
      assert.deepEqual(r.bypassing, [], p);
      assert.ok(r.forwarded.includes('path_open'), p);
    }
  });

  test("spindle's preopen table replaces wasi-libc's, except where libc comes first on the link line", () => {
    // A static function of wasi-libc's preopens.c: in the name section only if that file was linked.
    const libcTable = (p) => readFileSync(wasm(p)).includes('internal_register_preopened_fd_unlocked');
    for (const p of ['preopens', 'stdio', 'append_threads_alloc', 'fs_rust', 'fs_rust_libflag']) assert.equal(libcTable(p), false, p);
    assert.equal(libcTable('fs_rust_linkarg'), true, 'rustc puts -C link-arg after libc');
    assert.equal(libcTable('preopens_rt'), true, 'a program without the library');
  });

  test('a program without the library is flagged', () => {
    const r = checkFsImports(readFileSync(wasm('stdio_plain')));
    assert.ok(r.bypassing.includes('path_open') && r.bypassing.includes('fd_write'), r.bypassing.join(','));
    assert.deepEqual(r.forwarded, []);
  });

  test('without a name section everything counts as bypassing (conservative)', () => {
    const r = checkFsImports(stripCustomSections(readFileSync(wasm('stdio'))));
    assert.equal(r.hasNames, false);
    assert.deepEqual(r.forwarded, []);
    assert.ok(r.bypassing.includes('fd_write'));
  });

  test('checkCommand (spindle check): 0 clean, 1 bypassing, 2 unreadable; one line per program', async () => {
    const lines = [];
    const out = (s) => lines.push(s);
    assert.equal(await checkCommand([wasm('stdio'), wasm('fs_rust')], out), 0);
    assert.match(lines.join(''), /stdio\.wasm: ok \(\d+ fs imports are spindle's forwarders for host fds\)\n.*fs_rust\.wasm: ok/s);
    lines.length = 0;
    assert.equal(await checkCommand([wasm('stdio'), wasm('stdio_plain')], out), 1);
    assert.match(lines[1], /stdio_plain\.wasm: \d+ WASI filesystem imports bypass spindle: .*path_open/);
    lines.length = 0;
    assert.equal(await checkCommand([join(built, 'missing.wasm')], out), 2);
    assert.match(lines[0], /missing\.wasm: cannot check: no such file/);
    assert.equal(await checkCommand([], out), 2);
  });

  test('a non-wasm file is a RangeError', () => {
    assert.throws(() => checkFsImports(new TextEncoder().encode('not wasm at all')), RangeError);
  });
});

describe('(i) in-program FS on spindle', () => {
  for (const [name, cfg] of Object.entries(GUESTS)) {
    if (cfg.spindle === false) continue;
    test(name, () => {
      // hostdir: the library forwards /host to the runtime's host directory; /tmp stays in-program.
      const dir = name === 'hostdir' ? mkdtempSync(join(tmpdir(), 'spindle-hostdir-')) : undefined;
      try {
        expectOk(onSpindle(name, { ...cfg, dirs: dir ? [`${dir}::/host`] : [] }), name);
        if (dir) assert.deepEqual(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]), [['from-guest.txt', 'to the host\n']]);
      } finally {
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    });
  }
  for (const name of ['append_threads', 'threads_share', 'dir_threads', 'enospc']) {
    test(`${name} with libspindle.a (fs + spindle-alloc)`, () => expectOk(onSpindle(name, { program: `${name}_alloc` }), name));
  }
  test('fs_rust: std::fs, and threads sharing files and a File', () => {
    expectOk(onSpindle('fs_rust', { args: ['threads'] }), 'fs_rust');
  });
  test('fs_rust_libflag: the same through -l static=spindle-fs', () => {
    expectOk(onSpindle('fs_rust', { program: 'fs_rust_libflag', args: ['threads'] }), 'fs_rust');
  });
  test('fs_rust_linkarg: the same through -C link-arg=libspindle-fs.a', () => {
    expectOk(onSpindle('fs_rust', { program: 'fs_rust_linkarg', args: ['threads'] }), 'fs_rust');
  });
  test('a bad SPINDLE_FS_MOUNTS entry is reported on stderr and skipped', () => {
    const r = onSpindle('stdio', { env: ['SPINDLE_FS_MOUNTS=/tmp,/a/../b'] });
    assert.equal(r.status, 0);
    assert.equal(r.stdout, 'stdio ok\n');
    assert.match(r.stderr, /^spindle-fs: SPINDLE_FS_MOUNTS: cannot mount '\/a\/\.\.\/b' \(WASI errno 28\); give absolute paths/);
  });
  test('SPINDLE_FS_MOUNTS= (empty) mounts nothing: /tmp is ENOENT', () => {
    const r = onSpindle('stdio', { env: ['SPINDLE_FS_MOUNTS='] });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /CHECK\(f != NULL\) failed \(errno 44/);
  });
});

describe('(ii) in-program FS on node:wasi (single-threaded programs)', () => {
  for (const [name, cfg] of Object.entries(GUESTS)) {
    if (!cfg.nodeWasi) continue;
    test(name, () => {
      const dir = name === 'hostdir' ? mkdtempSync(join(tmpdir(), 'spindle-hostdir-')) : undefined;
      try {
        // node:wasi has no threads: the guests' arguments (`threads`) are for spindle and wasmtime.
        const r = onNodeWasi(name, { ...cfg, args: [], preopens: dir ? [`/host=${dir}`] : [] });
        expectOk(r, name);
        if (dir) assert.equal(readFileSync(join(dir, 'from-guest.txt'), 'utf8'), 'to the host\n');
      } finally {
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    });
  }
  test('fs_rust', () => expectOk(onNodeWasi('fs_rust'), 'fs_rust'));
  test('fs_rust_libflag', () => expectOk(onNodeWasi('fs_rust_libflag'), 'fs_rust'));
  test('fs_rust_linkarg', () => expectOk(onNodeWasi('fs_rust_linkarg'), 'fs_rust'));

  test('a host preopen of /tmp wins over the default memory /tmp', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spindle-hosttmp-'));
    try {
      const r = onNodeWasi('stdio', { preopens: [`/tmp=${dir}`], env: ['FS_GUEST_HOST_TMP=1'] });
      expectOk(r, 'stdio');
      assert.match(readFileSync(join(dir, 'stdio.txt'), 'utf8'), /^line 0\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an explicit SPINDLE_FS_MOUNTS=/tmp shadows the host /tmp', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spindle-hosttmp-'));
    try {
      const r = onNodeWasi('stdio', { preopens: [`/tmp=${dir}`], env: ['SPINDLE_FS_MOUNTS=/tmp'] });
      expectOk(r, 'stdio');
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// bench/harness/setup.sh installs wasmtime 46 as build/bench/bin/wasmtime (the native binary; the
// venv's script is the slower Python wrapper of the same).
const wasmtime = [join(repoRoot, 'build', 'bench', 'bin', 'wasmtime'), join(repoRoot, 'build', 'bench', 'venv', 'bin', 'wasmtime')]
  .find((p) => existsSync(p)) ?? join(repoRoot, 'build', 'bench', 'bin', 'wasmtime');
describe('in-program FS on wasmtime 46 (portability; threads included)', { skip: needs(wasmtime, 'bash bench/harness/setup.sh (installs wasmtime 46)') }, () => {
  const onWasmtime = (name, { env = [], dirs = [], args = [], program = name } = {}) => spawnSync(wasmtime,
    ['run', '-W', 'threads=y,shared-memory=y', '-S', 'threads=y', ...env.flatMap((e) => ['--env', e]),
      ...dirs.flatMap((d) => ['--dir', d]), wasm(program), ...args],
    { encoding: 'utf8', timeout: TIMEOUT });
  /** wasmtime 46 warns on stderr that -S threads will change in 47; only that may be there. */
  const expectOkBesidesWarning = (r, name) => {
    assert.equal(r.error, undefined, `${name}: ${r.error}`);
    assert.deepEqual({ status: r.status, stdout: r.stdout }, { status: 0, stdout: `${name} ok\n` }, r.stderr);
    assert.equal(r.stderr.replace(/WARNING: the `-Sthreads` flag[^\n]*\n\s*/g, '').trim(), '');
  };
  for (const [name, cfg] of Object.entries(GUESTS)) {
    test(name, () => {
      const dir = name === 'hostdir' ? mkdtempSync(join(tmpdir(), 'spindle-hostdir-')) : undefined;
      try {
        expectOkBesidesWarning(onWasmtime(name, { ...cfg, dirs: dir ? [`${dir}::/host`] : [] }), name);
      } finally {
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    });
  }
  test('fs_rust with threads', () => expectOkBesidesWarning(onWasmtime('fs_rust', { args: ['threads'] }), 'fs_rust'));
});

test('every C guest in tests/fs-guests/c and oom/ has a runner here', () => {
  const sources = [src, join(src, '..', 'oom')].flatMap((d) => readdirSync(d)).filter((f) => f.endsWith('.c')).map((f) => f.slice(0, -2)).sort();
  assert.deepEqual(sources, Object.keys(GUESTS).sort());
});

/** The module without its custom sections (as `--strip-all` would leave it). */
function stripCustomSections(bytes) {
  const out = [bytes.subarray(0, 8)];
  let pos = 8;
  const u32 = () => {
    let result = 0, shift = 0, b;
    do { b = bytes[pos++]; result += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    return result;
  };
  while (pos < bytes.length) {
    const start = pos;
    const id = bytes[pos++];
    const size = u32();
    const end = pos + size;
    if (id !== 0) out.push(bytes.subarray(start, end));
    pos = end;
  }
  return Buffer.concat(out);
}
