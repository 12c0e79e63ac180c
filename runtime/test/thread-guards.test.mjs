// The load-time rewrite of threaded programs (src/thread-guards.ts, src/atomic-guards.ts,
// src/wasm-code.ts): the growth guard around memory.fill/copy/init and atomic accesses, and the
// wrapper around atomic waits.
//   - every module the repository builds round-trips: rewritten, it validates, keeps every
//     function, has no unguarded site left (each atomic access left in place is checked inline
//     or provably within the initial memory), and is marked so it is not rewritten twice (the
//     guest suites then run every threaded guest rewritten);
//   - the walker follows every instruction family (SIMD, atomics, GC, both exception handling
//     encodings, tail calls, typed references, multi-memory memargs);
//   - a guarded operation does what the operation did (same bytes, same trap when out of bounds);
//   - a wrapped wait keeps the caller's locals on Node 20's baseline compiler (its bug);
//   - the wait hook (the calling thread's interruptible wait): off, a wait is the instruction; on,
//     the same results through JS, and the program's end unwinds a wait that has no timeout.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { guardThreads, HOOKED_EXPORT, HOOKS_EXPORT, TAIL_INTERVAL } from '../dist/thread-guards.js';
import { installSpinWaitHook, installWaitHook, mayWaitHere } from '../dist/wait-hook.js';
import { ExitSignal } from '../dist/errors.js';
import { sitesOf, walkBody } from '../dist/wasm-code.js';
import { ModuleBuilder, op, uleb } from './fixtures/wasm-builder.mjs';
import { repoRoot, runtimeDir } from './helpers.mjs';

/** Every .wasm the build produced that a runtime test runs (guests, fs and alloc tests, the memory FS module). */
function builtModules() {
  const roots = [join(repoRoot, 'build', 'guests'), join(repoRoot, 'build', 'tests'), join(runtimeDir, 'dist')];
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) { if (e !== 'cargo-target' && !e.startsWith('.')) walk(p); } else if (e.endsWith('.wasm')) out.push(p);
    }
  };
  for (const r of roots) if (existsSync(r)) walk(r);
  return out;
}

/**
 * A reader at the start of section `id`'s contents in module `b` (`p`: the position, `leb()`: reads
 * an unsigned LEB128 there), or undefined when the module has no such section.
 */
function section(b, id) {
  const r = { p: 8, leb() { let v = 0, s = 0, x; do { x = b[this.p++]; v += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80); return v; } };
  while (r.p < b.length) {
    const sid = b[r.p++];
    const size = r.leb();
    if (sid === id) return r;
    r.p += size;
  }
  return undefined;
}

/** `bytes` without its custom sections named `name`. */
function withoutSection(bytes, name) {
  const parts = [bytes.subarray(0, 8)];
  let p = 8;
  while (p < bytes.length) {
    const head = p;
    const id = bytes[p++];
    let size = 0, shift = 0, byte;
    do { byte = bytes[p++]; size |= (byte & 0x7f) << shift; shift += 7; } while (byte & 0x80);
    const end = p + size;
    let named = false;
    if (id === 0) {
      let n = 0, s = 0, q = p;
      do { byte = bytes[q++]; n |= (byte & 0x7f) << s; s += 7; } while (byte & 0x80);
      named = Buffer.from(bytes.subarray(q, q + n)).toString() === name;
    }
    if (!named) parts.push(bytes.subarray(head, end));
    p = end;
  }
  return new Uint8Array(Buffer.concat(parts));
}

/** How many functions the module imports. */
function importedFuncs(b) {
  const r = section(b, 2);
  if (!r) return 0;
  let funcs = 0;
  for (let n = r.leb(); n > 0; n--) {
    for (let k = 0; k < 2; k++) { const len = r.leb(); r.p += len; } // module, name
    const kind = b[r.p++];
    if (kind === 0) { funcs++; r.leb(); } else if (kind === 1) { r.p++; const f = b[r.p++]; r.leb(); if (f & 1) r.leb(); } else if (kind === 2) { const f = b[r.p++]; r.leb(); if (f & 1) r.leb(); } else if (kind === 3) { r.p += 2; } else { r.p++; r.leb(); }
  }
  return funcs;
}

/** Whether an atomic site is preceded by an inline check that calls `refresh` (atomic-guards.ts). */
function checkedInline(b, site, refresh) {
  // The check ends `call refresh; end`; after it come at most the address and two values
  // (local.get), or nothing.
  const call = [0x10, ...uleb(refresh), 0x0b];
  for (let i = 0; i < Math.min(site.before.length, 4); i++) {
    const at = site.before[i];
    if (b[at] === 0x20) continue; // the operands pushed back from locals
    if (b[at] !== 0x0b) return false;
    return site.before[i + 1] !== undefined && call.every((x, k) => b[site.before[i + 1] + k] === x);
  }
  return false;
}

/** The code section's bodies: [start, end) of each. */
function bodies(b) {
  const r = section(b, 10);
  const out = [];
  if (r) for (let n = r.leb(); n > 0; n--) { const len = r.leb(); out.push([r.p, r.p + len]); r.p += len; }
  return out;
}

describe('every module of the repository round-trips through the rewrite', () => {
  const modules = builtModules();
  test('the build produced modules to check', () => assert.ok(modules.length >= 50, `only ${modules.length} modules found under build/`));
  for (const file of modules) {
    const name = file.slice(repoRoot.length + 1);
    test(name, () => {
      const original = new Uint8Array(readFileSync(file));
      const r = guardThreads(original);
      if (r.unchanged) {
        // Only modules without a shared memory 0 or without any site are left alone.
        assert.match(r.unchanged, /not shared|no bulk memory instruction or atomic access|provably within its initial size/);
        // Walked, with no wait outside the wrapper: its threads may be hosted (load.ts).
        if (!/not shared/.test(r.unchanged)) assert.equal(r.walked, true);
        return;
      }
      assert.ok(WebAssembly.validate(r.bytes), `${name}: the rewritten module does not validate`);
      const before = bodies(original), after = bodies(r.bytes);
      // The tail-call count's tick comes last (file comment, 4).
      const tail = r.tailCalls ? 1 : 0;
      const inserted = after.length - before.length - tail;
      // One per distinct (bulk kind or init segment | wait memarg), and the inline checks' refresh.
      assert.ok(inserted >= 1 && inserted <= r.bulk + r.waits + r.atomics + 1, `${inserted} functions inserted`);
      // Every bulk operation and wait became a call; every atomic access left in the program's
      // bodies is checked inline (the call of refresh, the last function, just before it) or was
      // left alone as provably within the initial memory; the inserted functions' sites are one each.
      const refresh = importedFuncs(r.bytes) + after.length - tail - 1;
      const left = after.slice(0, before.length).flatMap(([s, e]) => sitesOf(r.bytes, s, e).filter((x) => x.memories.every((m) => m === 0)));
      assert.deepEqual(left.filter((x) => x.kind !== 0x200).map((x) => x.at), [], 'bulk operations or waits left in place');
      const inline = left.filter((x) => checkedInline(r.bytes, x, refresh)).length;
      assert.equal(inline, r.atomics, `${inline} atomic accesses checked inline, ${r.atomics} guarded`);
      assert.equal(left.length - inline, r.elided, `${left.length - inline} atomic accesses left unchecked, ${r.elided} proved in bounds`);
      for (const [s, e] of after.slice(before.length, after.length - tail - (r.atomics ? 1 : 0))) assert.equal(sitesOf(r.bytes, s, e).length, 1);
      assert.equal(r.bulk + r.waits + r.atomics + r.elided, before.reduce((n, [s, e]) => n + sitesOf(original, s, e).filter((x) => x.memories.every((m) => m === 0)).length, 0));
      assert.equal(guardThreads(r.bytes).unchanged, 'already rewritten');
    });
  }
});

// ---- the walker on every instruction family ---------------------------------------------------

/**
 * Instruction sequences, one instruction per array, as the spec encodes them. A body made of
 * them must walk with a boundary at every instruction and end exactly at its end.
 */
const FAMILIES = {
  'control, br_table, select t': [[0x02, 0x40], [0x03, 0x7f], [0x41, 0x01], [0x0e, 0x02, 0x00, 0x01, 0x00], [0x0b], [0x1a], [0x0b],
    [0x41, 0x00], [0x41, 0x01], [0x41, 0x00], [0x1c, 0x01, 0x7f], [0x1a]],
  'block type by index (s33)': [[0x02, 0x80, 0x01], [0x0b]],
  'constants': [[0x41, 0xff, 0xff, 0xff, 0xff, 0x07], [0x1a], [0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f], [0x1a],
    [0x43, 0, 0, 0x80, 0x3f], [0x1a], [0x44, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f], [0x1a]],
  'memory, multi-memory memarg, memory64 offset': [[0x41, 0x00], [0x28, 0x02, 0x08], [0x1a], [0x41, 0x00], [0x28, 0x42, 0x01, 0x08], [0x1a],
    [0x41, 0x00], [0x29, 0x03, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], [0x1a], [0x3f, 0x00], [0x40, 0x00], [0x1a]],
  'bulk memory and tables': [[0x41, 0], [0x41, 0], [0x41, 0], [0xfc, 0x08, 0x00, 0x00], [0xfc, 0x09, 0x00], [0x41, 0], [0x41, 0], [0x41, 0],
    [0xfc, 0x0a, 0x00, 0x00], [0x41, 0], [0x41, 0], [0x41, 0], [0xfc, 0x0b, 0x00], [0xfc, 0x0c, 0x00, 0x00], [0xfc, 0x0d, 0x00],
    [0xfc, 0x0e, 0x00, 0x00], [0xfc, 0x0f, 0x00], [0xfc, 0x10, 0x00], [0xfc, 0x11, 0x00], [0xfc, 0x00], [0xfc, 0x13]],
  'SIMD': [[0xfd, 0x0c, ...new Array(16).fill(1)], [0xfd, 0x0d, ...new Array(16).fill(0)], [0xfd, 0x15, 0x03], [0xfd, 0x00, 0x04, 0x00],
    [0xfd, 0x54, 0x00, 0x00, 0x07], [0xfd, 0x5c, 0x02, 0x00], [0xfd, 0x62], [0xfd, 0xff, 0x01], [0xfd, 0x80, 0x02]],
  'atomics': [[0xfe, 0x00, 0x02, 0x00], [0xfe, 0x01, 0x02, 0x10], [0xfe, 0x02, 0x03, 0x00], [0xfe, 0x03, 0x00], [0xfe, 0x10, 0x02, 0x00],
    [0xfe, 0x4e, 0x03, 0x08]],
  'reference types, typed references, tail calls': [[0xd0, 0x70], [0xd1], [0xd2, 0x00], [0x25, 0x00], [0x26, 0x00], [0x14, 0x00], [0x15, 0x00],
    [0xd4], [0xd5, 0x00], [0xd6, 0x00], [0x12, 0x00], [0x13, 0x00, 0x00], [0xd3]],
  'GC': [[0xfb, 0x00, 0x01], [0xfb, 0x01, 0x01], [0xfb, 0x02, 0x01, 0x00], [0xfb, 0x05, 0x01, 0x00], [0xfb, 0x06, 0x02], [0xfb, 0x08, 0x02, 0x03],
    [0xfb, 0x09, 0x02, 0x00], [0xfb, 0x0f], [0xfb, 0x11, 0x02, 0x02], [0xfb, 0x14, 0x6e], [0xfb, 0x17, 0x01], [0xfb, 0x18, 0x01, 0x00, 0x6e, 0x01],
    [0xfb, 0x1a], [0xfb, 0x1c], [0xfb, 0x1e]],
  'exceptions, legacy encoding': [[0x06, 0x40], [0x08, 0x00], [0x07, 0x00], [0x19], [0x09, 0x00], [0x0b], [0x06, 0x40], [0x18, 0x00]],
  'exceptions, exnref encoding': [[0x1f, 0x40, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00, 0x03, 0x00], [0x0b], [0x0a]],
};

describe('the walker follows every instruction family', () => {
  for (const [family, instructions] of Object.entries(FAMILIES)) {
    test(family, () => {
      const code = [0x01, 0x02, 0x7f, ...instructions.flat(), 0x0b]; // locals: 2 x i32
      const body = Uint8Array.from(code);
      const expected = [];
      let at = 3;
      for (const i of instructions) { expected.push(at); at += i.length; }
      expected.push(at); // the function's end
      const seen = [];
      walkBody(body, 0, body.length, null, (p) => seen.push(p));
      assert.deepEqual(seen, expected);
    });
  }

  test('a body that does not end where its size says is refused (the module is left unchanged)', () => {
    const body = Uint8Array.from([0x00, 0x41, 0x80, 0x80, 0x0b]); // a LEB128 runs past the end
    assert.throws(() => walkBody(body, 0, body.length, null), /function|LEB|end/);
  });
});

// ---- behaviour of guarded modules ------------------------------------------------------------

/**
 * A module with a shared memory of 1..4 pages and exports fill(d, v, n), copy(d, s, n),
 * init(d, s, n) of a passive segment "spindle!", and grow(pages).
 */
function bulkModule() {
  const m = new ModuleBuilder();
  m.importMemory('env', 'memory', { initial: 1, maximum: 4, shared: true });
  const seg = m.passiveData('spindle!');
  const args = [...op.localGet(0), ...op.localGet(1), ...op.localGet(2)];
  m.exportFunc('fill', m.func(['i32', 'i32', 'i32'], [], [...args, 0xfc, 0x0b, 0x00]));
  m.exportFunc('copy', m.func(['i32', 'i32', 'i32'], [], [...args, 0xfc, 0x0a, 0x00, 0x00]));
  m.exportFunc('init', m.func(['i32', 'i32', 'i32'], [], [...args, 0xfc, 0x08, ...uleb(seg), 0x00]));
  m.exportFunc('grow', m.func(['i32'], ['i32'], [...op.localGet(0), 0x40, 0x00]));
  return m.build();
}

describe('a guarded operation does what the operation does', () => {
  const original = bulkModule();
  const guarded = guardThreads(original);
  const instance = (bytes) => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
    return { memory, x: new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports };
  };

  test('the module was rewritten: 3 bulk operations guarded', () => {
    assert.equal(guarded.unchanged, undefined);
    assert.deepEqual({ bulk: guarded.bulk, waits: guarded.waits, functions: guarded.functions }, { bulk: 3, waits: 0, functions: 3 });
  });

  test('fill, overlapping copy and init leave the same bytes as the unguarded module', () => {
    const results = [original, guarded.bytes].map((bytes) => {
      const { memory, x } = instance(bytes);
      x.grow(1);
      x.fill(65530, 7, 20); // across the page boundary, into the grown page
      x.init(100, 0, 8);
      x.copy(102, 100, 8); // overlapping, forward
      x.copy(70000, 65530, 16);
      return Buffer.from(new Uint8Array(memory.buffer, 0, 2 * 65536)).toString('base64');
    });
    assert.equal(results[1], results[0]);
  });

  test('out of bounds still traps as the operation does', () => {
    for (const bytes of [original, guarded.bytes]) {
      const { x } = instance(bytes);
      assert.throws(() => x.fill(65536 - 4, 1, 8), (e) => e instanceof WebAssembly.RuntimeError && /out of bounds/.test(e.message));
      assert.throws(() => x.copy(0, 65530, 16), (e) => e instanceof WebAssembly.RuntimeError && /out of bounds/.test(e.message));
      assert.throws(() => x.init(65535, 0, 8), (e) => e instanceof WebAssembly.RuntimeError && /out of bounds/.test(e.message));
    }
  });
});

describe('a wrapped wait keeps the caller\'s locals on the baseline compiler', () => {
  // f(p): two locals set before a memory.atomic.wait32 that times out at once, read after it.
  // V8 11.3's Liftoff (Node 20) lost them across the wait: f returned 41 instead of 149.
  const m = new ModuleBuilder();
  m.importMemory('env', 'memory', { initial: 1, maximum: 2, shared: true });
  m.exportFunc('f', m.func(['i32'], ['i32'], [
    ...op.i32(41), 0x21, 1, // local.set 1
    ...op.localGet(0), ...op.i32(8), 0x6a, 0x21, 2, // local.set 2 = p + 8
    ...op.localGet(0), ...op.i32(-1), 0x42, 0x00, 0xfe, 0x01, 0x02, 0x00, 0x1a, // wait32(p, -1, timeout 0); drop
    ...op.localGet(1), ...op.localGet(2), 0x6a,
  ], ['i32', 'i32']));
  const original = m.build();
  const guarded = guardThreads(original);

  test('the wait was wrapped', () => assert.deepEqual({ bulk: guarded.bulk, waits: guarded.waits }, { bulk: 0, waits: 1 }));

  test('f(100) is 149 in the baseline tier (node --liftoff-only), rewritten', () => {
    const script = `const m = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true });
      const i = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(process.argv[1], 'base64')), { env: { memory: m } });
      console.log(i.exports.f(100));`;
    const r = spawnSync(process.execPath, ['--liftoff-only', '-e', script, Buffer.from(guarded.bytes).toString('base64')], { encoding: 'utf8' });
    assert.equal(r.stdout.trim(), '149', r.stderr);
  });
});

describe('the wait hook (calling-thread mode: another thread\'s exit ends a blocked wait)', () => {
  // w32(p, expected, timeout ns) and w64(p, expected i64, timeout ns): the two waits, results as is.
  const m = new ModuleBuilder();
  m.importMemory('env', 'memory', { initial: 1, maximum: 2, shared: true });
  const g = (i) => op.localGet(i);
  m.exportFunc('w32', m.func(['i32', 'i32', 'i64'], ['i32'], [...g(0), ...g(1), ...g(2), 0xfe, 0x01, 0x02, 0x00]));
  m.exportFunc('w64', m.func(['i32', 'i64', 'i64'], ['i32'], [...g(0), ...g(1), ...g(2), 0xfe, 0x02, 0x03, 0x00]));
  const guarded = guardThreads(m.build());
  const module = new WebAssembly.Module(guarded.bytes);
  const instantiate = () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true });
    return { memory, exports: new WebAssembly.Instance(module, { env: { memory } }).exports };
  };
  /** A stand-in for the program's control block: `exited` turns true at its `after`-th read. */
  const control = (after = Infinity, exitCode = 7) => ({ reads: 0, exitCode, get exited() { return ++this.reads >= after; } });

  test('the rewritten module exports the hook table and its switch', () => {
    const kinds = Object.fromEntries(WebAssembly.Module.exports(module).map((e) => [e.name, e.kind]));
    assert.deepEqual([kinds[HOOKS_EXPORT], kinds[HOOKED_EXPORT]], ['table', 'global']);
  });

  test('a module without a wait gets no hook', () => {
    const n = new ModuleBuilder();
    n.importMemory('env', 'memory', { initial: 1, maximum: 2, shared: true });
    n.exportFunc('add', n.func(['i32'], ['i32'], [...op.localGet(0), ...op.i32(1), 0xfe, 0x1e, 0x02, 0x00]));
    const names = WebAssembly.Module.exports(new WebAssembly.Module(guardThreads(n.build()).bytes)).map((e) => e.name);
    assert.deepEqual(names.filter((x) => x.startsWith('spindle.')), []);
  });

  for (const hooked of [false, true]) {
    test(`results of both waits with the hook ${hooked ? 'on' : 'off'}: 1 not equal, 2 timed out; an unaligned address traps`, () => {
      const { exports, memory } = instantiate();
      const ctl = control();
      if (hooked) assert.equal(installWaitHook(exports, memory, ctl), true);
      assert.equal(exports.w32(16, 1, 0n), 1);
      assert.equal(exports.w32(16, 0, 1_000_000n), 2); // 1 ms
      assert.equal(exports.w64(16, 1n, 0n), 1);
      assert.equal(exports.w64(16, 0n, 0n), 2);
      assert.throws(() => exports.w32(18, 0, 0n), WebAssembly.RuntimeError);
      assert.throws(() => exports.w64(20, 0n, 0n), WebAssembly.RuntimeError);
      assert.equal(ctl.reads > 0, hooked, 'the waits went through the hook exactly when it is on');
    });
  }

  test('with the hook on, a wait without timeout ends with ExitSignal once the program has ended', () => {
    const { exports, memory } = instantiate();
    const ctl = control(3, 7); // the end is seen after two slices
    installWaitHook(exports, memory, ctl);
    assert.throws(() => exports.w32(32, 0, -1n), (e) => e instanceof ExitSignal && e.code === 7);
    assert.equal(ctl.reads, 3);
    assert.throws(() => exports.w64(32, 0n, -1n), (e) => e instanceof ExitSignal && e.code === 7, 'an ended program: at once');
  });
});

describe('the spinning wait (a thread that may not block: a napi addon\'s calls on a page\'s thread)', () => {
  // The same two waits (w32, w64) as above, their hook filled by installSpinWaitHook, which Node
  // (where this thread may wait) is told it may not, as a page's thread is.
  const m = new ModuleBuilder();
  m.importMemory('env', 'memory', { initial: 1, maximum: 2, shared: true });
  const g = (i) => op.localGet(i);
  m.exportFunc('w32', m.func(['i32', 'i32', 'i64'], ['i32'], [...g(0), ...g(1), ...g(2), 0xfe, 0x01, 0x02, 0x00]));
  m.exportFunc('w64', m.func(['i32', 'i64', 'i64'], ['i32'], [...g(0), ...g(1), ...g(2), 0xfe, 0x02, 0x03, 0x00]));
  const module = new WebAssembly.Module(guardThreads(m.build()).bytes);
  const spinning = (ctl = { exited: false, exitCode: 0 }) => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true });
    const exports = new WebAssembly.Instance(module, { env: { memory } }).exports;
    assert.equal(installSpinWaitHook(exports, memory, ctl, false), true);
    return { exports, memory };
  };

  test('where the thread may wait (Node) nothing is installed', () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true });
    const exports = new WebAssembly.Instance(module, { env: { memory } }).exports;
    assert.equal(mayWaitHere(), true);
    assert.equal(installSpinWaitHook(exports, memory, { exited: false, exitCode: 0 }), false);
    assert.equal(exports[HOOKED_EXPORT].value, 0, 'the waits stay the instructions');
  });

  test('results: 1 not equal, 2 timed out, 0 when another thread changes the value; an unaligned address traps', async () => {
    const { exports, memory } = spinning();
    assert.equal(exports.w32(16, 1, 0n), 1);
    assert.equal(exports.w32(16, 0, 1_000_000n), 2);
    assert.equal(exports.w64(16, 1n, 0n), 1);
    assert.equal(exports.w64(24, 0n, 1_000_000n), 2);
    assert.throws(() => exports.w32(18, 0, 0n), WebAssembly.RuntimeError);
    // A worker stores 5 at 64 (and 9n at 72) once this thread is spinning; the waits see the change.
    const { Worker } = await import('node:worker_threads');
    const w = new Worker(`const { workerData: m } = require('node:worker_threads');
      const i32 = new Int32Array(m.buffer), i64 = new BigInt64Array(m.buffer);
      while (Atomics.load(i32, 32) !== 1) {}
      Atomics.store(i32, 16, 5); Atomics.notify(i32, 16);
      while (Atomics.load(i32, 32) !== 2) {}
      Atomics.store(i64, 9, 9n); Atomics.notify(i64, 9);`, { eval: true, workerData: memory });
    const i32 = new Int32Array(memory.buffer);
    // A futex user's loop: wait while the value is the old one; every result is 0 (woken, maybe
    // spuriously) or 1 (changed before the wait began).
    const results = new Set();
    const untilChanged = (changed, wait) => { while (!changed()) results.add(wait()); };
    Atomics.store(i32, 32, 1);
    untilChanged(() => Atomics.load(i32, 16) === 5, () => exports.w32(64, 0, -1n));
    Atomics.store(i32, 32, 2);
    untilChanged(() => Atomics.load(new BigInt64Array(memory.buffer), 9) === 9n, () => exports.w64(72, 0n, -1n));
    assert.deepEqual([...results].filter((r) => r !== 0 && r !== 1), []);
    await new Promise((resolve) => w.once('exit', resolve));
  });

  test('no change and no timeout: it returns 0 (a spurious wake-up) rather than spin for good', () => {
    const { exports } = spinning();
    assert.equal(exports.w32(16, 0, -1n), 0);
    assert.equal(exports.w64(16, 0n, -1n), 0);
  });

  test('once the program has ended, a spinning wait ends with ExitSignal', () => {
    const { exports } = spinning({ exited: true, exitCode: 7 });
    assert.throws(() => exports.w32(32, 0, -1n), (e) => e instanceof ExitSignal && e.code === 7);
    assert.throws(() => exports.w64(32, 0n, 5_000_000_000n), (e) => e instanceof ExitSignal && e.code === 7);
  });
});

describe('a guarded atomic access does what the instruction does', () => {
  // add(a, v) -> old (i32.atomic.rmw.add offset 4), cas64(a, e, r) -> old (i64.atomic.rmw.cmpxchg),
  // store8(a, v) (i32.atomic.store8), load(a) (i32.atomic.load offset 4), notify(a) (count 0), grow(pages):
  // the address is a local, checked where it is (the first form of atomic-guards.ts).
  // addB, cas64B: the same with an address computed (a + 0, a | 0): operands saved to locals (the second form).
  // loadStatic() (100 + offset 4) and loadMasked(x) ((x & 0xfff)): provably in the initial page, left alone;
  // loadHigh() (70000, past the initial page): checked.
  const m = new ModuleBuilder();
  m.importMemory('env', 'memory', { initial: 1, maximum: 4, shared: true });
  const g = (i) => op.localGet(i);
  m.exportFunc('add', m.func(['i32', 'i32'], ['i32'], [...g(0), ...g(1), 0xfe, 0x1e, 0x02, 0x04]));
  m.exportFunc('cas64', m.func(['i32', 'i64', 'i64'], ['i64'], [...g(0), ...g(1), ...g(2), 0xfe, 0x49, 0x03, 0x00]));
  m.exportFunc('store8', m.func(['i32', 'i32'], [], [...g(0), ...g(1), 0xfe, 0x19, 0x00, 0x00]));
  m.exportFunc('load', m.func(['i32'], ['i32'], [...g(0), 0xfe, 0x10, 0x02, 0x04]));
  m.exportFunc('notify', m.func(['i32'], ['i32'], [...g(0), ...op.i32(0), 0xfe, 0x00, 0x02, 0x00]));
  m.exportFunc('grow', m.func(['i32'], ['i32'], [...g(0), 0x40, 0x00]));
  m.exportFunc('addB', m.func(['i32', 'i32'], ['i32'], [...g(0), ...op.i32(0), 0x6a, ...g(1), 0xfe, 0x1e, 0x02, 0x04]));
  m.exportFunc('cas64B', m.func(['i32', 'i64', 'i64'], ['i64'], [...g(0), ...op.i32(0), 0x72, ...g(1), ...g(2), 0xfe, 0x49, 0x03, 0x00], ['i32']));
  m.exportFunc('loadStatic', m.func([], ['i32'], [...op.i32(100), 0xfe, 0x10, 0x02, 0x04]));
  m.exportFunc('loadMasked', m.func(['i32'], ['i32'], [...g(0), ...op.i32(0xfff), 0x71, 0xfe, 0x10, 0x02, 0x00]));
  m.exportFunc('loadHigh', m.func([], ['i32'], [...op.i32(70000), 0xfe, 0x10, 0x02, 0x00]));
  const original = m.build();
  const guarded = guardThreads(original);
  const instance = (bytes) => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
    return { memory, x: new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports };
  };

  test('the module was rewritten: 8 atomic accesses checked inline, 2 provably in bounds left alone', () => {
    assert.equal(guarded.unchanged, undefined);
    assert.deepEqual({ bulk: guarded.bulk, waits: guarded.waits, atomics: guarded.atomics, elided: guarded.elided },
      { bulk: 0, waits: 0, atomics: 8, elided: 2 });
    assert.ok(WebAssembly.validate(guarded.bytes));
  });

  test('results and memory equal the unguarded module\'s, in the grown page too', () => {
    const results = [original, guarded.bytes].map((bytes) => {
      const { memory, x } = instance(bytes);
      x.grow(1);
      const r = [x.add(100, 5), x.add(100, 7), x.add(70000, 3), x.load(70000), x.cas64(80000, 0n, 42n), x.cas64(80000, 1n, 9n), x.notify(90000),
        x.addB(70000, 4), x.addB(70100, 1), x.cas64B(80000, 42n, 7n), x.cas64B(80008, 1n, 2n), x.loadStatic(), x.loadMasked(0x12068), x.loadHigh()];
      x.store8(65537, 0x1ff);
      return JSON.stringify(r, (k, v) => (typeof v === 'bigint' ? String(v) : v)) + Buffer.from(new Uint8Array(memory.buffer, 0, 2 * 65536)).toString('base64');
    });
    assert.equal(results[1], results[0]);
  });

  test('out of bounds still traps as the instruction does', () => {
    // The same trap, message included: which check V8 names first for an access both unaligned and
    // out of bounds (add at 65530 + 4) differs between Node lines ("out of bounds" on Node 20,
    // "unaligned" on Node 26), so the guarded module is compared with the original on this line.
    const trap = (bytes, call) => {
      try { call(instance(bytes).x); } catch (e) { assert.ok(e instanceof WebAssembly.RuntimeError, String(e)); return e.message; }
      assert.fail('no trap');
    };
    for (const call of [(x) => x.add(65536 - 6, 1), (x) => x.add(65536 - 4, 1), (x) => x.store8(65536, 1), (x) => x.addB(65536 - 4, 1),
      (x) => x.addB(65536 - 6, 1), (x) => x.cas64B(65536, 0n, 1n), (x) => x.cas64B(65532, 0n, 1n), (x) => x.loadHigh()]) {
      assert.equal(trap(guarded.bytes, call), trap(original, call));
    }
    assert.match(trap(original, (x) => x.store8(65536, 1)), /out of bounds/);
  });
});

// ---- the tail-call count (file comment, 4) -------------------------------------------------------

describe('tail calls are counted (an interrupt point every TAIL_INTERVAL: worker.terminate() on Node 24/26)', () => {
  const sec = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
  // ping(n): n == 0 ? 0 : return_call pong(n - 1);  pong(n): return_call ping(n); with a shared memory 0 and no atomic access.
  const PING = [0x00, 0x20, 0x00, 0x45, 0x04, 0x40, 0x41, 0x00, 0x0f, 0x0b, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x12, 0x01, 0x0b];
  const PONG = [0x00, 0x20, 0x00, 0x12, 0x00, 0x0b];
  const module = (bodies) => new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...sec(1, [1, 0x60, 1, 0x7f, 1, 0x7f]),
    ...sec(3, [bodies.length, ...bodies.map(() => 0)]), ...sec(5, [1, 0x03, 1, 1]), ...sec(7, [1, 4, ...Buffer.from('ping'), 0, 0]),
    ...sec(10, [bodies.length, ...bodies.flatMap((b) => [...uleb(b.length), ...b])])]);
  const hasSection = (b, name) => Buffer.from(b).includes(Buffer.from(name));

  test('a module with tail calls and no other site: rewritten, counted, runs as before, marked', () => {
    const r = guardThreads(module([PING, PONG]));
    assert.equal(r.unchanged, undefined);
    assert.equal(r.tailCalls, 2);
    assert.ok(WebAssembly.validate(r.bytes));
    assert.ok(hasSection(r.bytes, 'spindle.tail-count') && hasSection(r.bytes, 'metadata.code.branch_hint'));
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(r.bytes));
    assert.equal(exports.ping(3 * TAIL_INTERVAL + 5), 0, 'the countdown and its tick do not change what the cycle computes');
    assert.equal(guardThreads(r.bytes).unchanged, 'already rewritten');
  });

  test('a module without tail calls: no count, unchanged as before', () => {
    const r = guardThreads(module([[0x00, 0x20, 0x00, 0x0b]]));
    assert.match(r.unchanged, /no bulk memory instruction or atomic access/);
    assert.equal(r.tailCalls, 0);
  });

  test('every built module: counted exactly when it has tail calls', () => {
    for (const file of builtModules()) {
      const r = guardThreads(new Uint8Array(readFileSync(file)));
      assert.equal(hasSection(r.bytes, 'spindle.tail-count'), r.tailCalls > 0, file);
    }
    const spin = guardThreads(new Uint8Array(readFileSync(join(repoRoot, 'build', 'guests', 'c', 'spin_tail.wasm'))));
    assert.equal(spin.tailCalls, 2);
  });

  // target_features: a vector of (prefix, name); '+' used, '-' disallowed.
  const features = (...list) => sec(0, [...nameOf('target_features'), list.length, ...list.flatMap(([prefix, name]) => [prefix.charCodeAt(0), ...nameOf(name)])]);
  const nameOf = (text) => [...uleb(Buffer.byteLength(text)), ...Buffer.from(text)];
  const withSection = (m, extra) => new Uint8Array([...m, ...extra]);

  test('a module whose target_features leave tail calls out is not walked for them; one that lists them, or none, is', () => {
    const cycle = module([PING, PONG]);
    assert.equal(guardThreads(withSection(cycle, features(['+', 'atomics'], ['+', 'tail-call']))).tailCalls, 2);
    assert.equal(guardThreads(withSection(cycle, features(['+', 'atomics'], ['-', 'tail-call']))).tailCalls, 0, 'the toolchain says it used no tail call');
    assert.equal(guardThreads(withSection(cycle, features(['+', 'atomics']))).tailCalls, 0, 'the toolchain says it used no tail call');
    assert.equal(guardThreads(withSection(cycle, sec(0, [...nameOf('target_features'), 5, 0x2b]))).tailCalls, 2, 'a section that does not parse: walked');
  });

  test('every built module: its target_features give the same rewrite as the walk', () => {
    let declared = 0;
    for (const file of builtModules()) {
      const bytes = new Uint8Array(readFileSync(file));
      const stripped = withoutSection(bytes, 'target_features');
      if (stripped.length === bytes.length) continue;
      declared++;
      const a = guardThreads(bytes), b = guardThreads(stripped);
      assert.equal(a.tailCalls, b.tailCalls, file);
      assert.equal(hasSection(a.bytes, 'spindle.tail-count'), hasSection(b.bytes, 'spindle.tail-count'), file);
    }
    assert.ok(declared > 0, 'the built guests carry a target_features section (wasm-ld writes one)');
  });
});
