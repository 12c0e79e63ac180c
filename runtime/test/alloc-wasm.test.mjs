// spindle-alloc's wasm guest tests (tests/alloc), run through the spindle CLI as child processes:
// the C archive replacing wasi-libc's dlmalloc (API semantics, multithreaded stress with
// cross-thread frees, 10,000 short threads, out of memory) and the Rust global allocator.
// Built by `bash tests/alloc/build.sh` (into build/tests/alloc/).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cliPath, repoRoot } from './helpers.mjs';

const built = join(repoRoot, 'build', 'tests', 'alloc');

function runAlloc(name, args = [], timeout = 120_000, cliFlags = []) {
  const wasm = join(built, `${name}.wasm`);
  assert.ok(existsSync(wasm), `${wasm} is missing: run 'bash tests/alloc/build.sh' from the repository root`);
  const r = spawnSync(process.execPath, [cliPath, 'run', ...cliFlags, wasm, ...args], { encoding: 'utf8', timeout });
  assert.equal(r.error, undefined, `${name}: ${r.error}`);
  return r;
}

describe('spindle-alloc on wasm (C archive replaces dlmalloc)', () => {
  test('api: sizes 0..16 MiB, alignments to 256 KiB, realloc, calloc zeroing, usable size', () => {
    const r = runAlloc('api');
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, 'api ok\n');
    assert.equal(r.status, 0);
  });

  test('threads: seeded producer/consumer cross-thread frees, then 10,000 short threads', () => {
    const r = runAlloc('threads', ['7', '10000']);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^threads ok \(10000 short threads, committed grew by \d+ KiB\)\n$/);
    assert.equal(r.status, 0);
  });

  // Link like libc: the archive's exports are weak, so a program's own definition wins (with
  // wasi-libc's dlmalloc, defining malloc_usable_size is a duplicate symbol).
  test('own_memalign: a program that defines memalign links, and its memalign is the one called', () => {
    const r = runAlloc('own_memalign');
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, 'own memalign ok\n');
    assert.equal(r.status, 0);
  });

  test('own_usable_size: a program that defines malloc_usable_size links; realloc never calls it', () => {
    const r = runAlloc('own_usable_size');
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, 'own malloc_usable_size ok\n');
    assert.equal(r.status, 0);
  });

  // Memory growth seen by other threads: the allocator never hands a thread memory above its view
  // of the memory size without refreshing it first (memory.grow(0)); V8's default tiering
  // (--no-optimize) is where the unrefreshed view trapped. tests/alloc/c/grow_handoff.c.
  for (const flags of [[], ['--no-optimize']]) {
    test(`grow_handoff ${flags.join(' ') || '(optimizing tier)'}: memory one thread grew, allocated by another, filled with memset/memcpy`, () => {
      const r = runAlloc('grow_handoff', ['32'], 120_000, flags);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, /^grow_handoff rounds=32 checksum=b5c02b075ccf59a5 view_refreshes=\d+ every_round=yes\n$/);
      assert.equal(r.status, 0);
    });
  }

  test('initial_memory: the free end of the initial memory is used before the memory grows (as dlmalloc does)', () => {
    const r = runAlloc('initial_memory');
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^initial_memory ok \(\d+ KiB before the first growth\)\n$/);
    assert.equal(r.status, 0);
  });

  test('oom: null at a 32 MiB maximum memory, old block kept, recovery after frees', () => {
    const r = runAlloc('oom');
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^oom ok \(\d+ blocks at the limit\)\n$/);
    assert.equal(r.status, 0);
  });
});

describe('spindle-alloc on wasm (Rust #[global_allocator])', () => {
  test('alloc_rust: GlobalAlloc semantics, std collections on 4 threads, 2,000 short threads', () => {
    const r = runAlloc('alloc_rust', ['2000']);
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, 'rust ok\n');
    assert.equal(r.status, 0);
  });
});

describe('the code-size programs run too (tests/alloc/build.sh builds them stripped)', () => {
  // hello.c with wasi-libc's dlmalloc and with the spindle-alloc archive; hello_rust(_default).rs
  // with spindle-alloc as #[global_allocator] and with Rust's default allocator.
  for (const [name, args, out] of [
    ['hello_c_dlmalloc', ['x'], 'hello 2\n'], ['hello_c_spindle', ['x'], 'hello 2\n'],
    ['hello_rust', ['x', 'y'], 'hello 3\n'], ['hello_rust_default', [], 'hello 1\n'],
  ]) {
    test(`${name} prints ${JSON.stringify(out)}`, () => {
      const r = runAlloc(name, args);
      assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 0, stdout: out, stderr: '' });
    });
  }
});
