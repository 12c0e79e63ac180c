// The preemptible compile (runtime/src/preempt.ts) on hand-made modules, without a host worker:
// its yield table filled with a counting function, armed by hand. Outcomes: how many times a loop
// and a cycle of tail calls yield, and that an unarmed module never does. Every Node line (no
// JSPI needed: the yield here is a plain function). Hosted runs: host-threads.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARMED_EXPORT, BUDGET, preemptible, YIELD_EXPORT } from '../dist/preempt.js';
import { Cursor, guardThreads, readLayout, TAIL_INTERVAL } from '../dist/thread-guards.js';
import { funcrefModule } from '../dist/wasm-module-bytes.js';

const sec = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
const name = (s) => [s.length, ...Buffer.from(s)];
function uleb(n) {
  const out = [];
  do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n);
  return out;
}

/** A module of (i32) -> i32 functions `bodies` (each without its size), exported by `names`; with `shared`, a shared memory (a threaded program's). */
function moduleOf(names, bodies, shared = false) {
  const code = bodies.flatMap((b) => [...uleb(b.length), ...b]);
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...sec(1, [1, 0x60, 1, 0x7f, 1, 0x7f]),
    ...sec(3, [bodies.length, ...bodies.map(() => 0)]),
    ...(shared ? sec(5, [1, 0x03, 1, 1]) : []),
    ...sec(7, [names.length, ...names.flatMap((n, i) => [...name(n), 0, i])]),
    ...sec(10, [bodies.length, ...code])]);
}

// ping(n): n == 0 ? 0 : return_call pong(n - 1);  pong(n): return_call ping(n). 2n tail calls.
const PING = [0x00, 0x20, 0x00, 0x45, 0x04, 0x40, 0x41, 0x00, 0x0f, 0x0b, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x12, 0x01, 0x0b];
const PONG = [0x00, 0x20, 0x00, 0x12, 0x00, 0x0b];
// count(n): loop { n = n - 1; br_if 0 (n) }; n. n iterations.
const COUNT = [0x00, 0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b, 0x20, 0x00, 0x0b];
// loop_tail(n): loop { n == 0 ? return n : return_call loop_tail(n - 1) }: a loop whose body is a tail call.
const LOOP_TAIL = [0x00, 0x03, 0x40, 0x20, 0x00, 0x45, 0x04, 0x40, 0x20, 0x00, 0x0f, 0x0b,
  0x20, 0x00, 0x41, 0x01, 0x6b, 0x12, 0x03, 0x0b, 0x00, 0x0b];

/** The rewritten module's instance, its yield counted, armed or not. */
function instance(bytes, armed) {
  const r = preemptible(bytes);
  assert.equal(r.unchanged, undefined);
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(r.bytes));
  const counter = { yields: 0 };
  const y = new WebAssembly.Instance(new WebAssembly.Module(funcrefModule([['y', [[], []]]])), { h: { y: () => { counter.yields++; } } });
  exports[YIELD_EXPORT].set(0, y.exports.y);
  exports[ARMED_EXPORT].value = armed ? 1 : 0;
  return { r, exports, counter };
}

/** The byte at each offset the module's branch hint section names (0x04: an `if`). */
function hintedBytes(b) {
  const layout = readLayout(b);
  const starts = [];
  const code = new Cursor(b, layout.code.start);
  for (let n = code.u32(); n > 0; n--) { const size = code.u32(); starts.push(code.pos); code.pos += size; }
  const section = layout.sections.find((s) => s.id === 0 && Buffer.from(b.subarray(s.start, s.end)).includes('metadata.code.branch_hint'));
  const c = new Cursor(b, section.start);
  c.skipName();
  const out = [];
  for (let f = c.u32(); f > 0; f--) {
    const start = starts[c.u32() - layout.importedFuncs];
    for (let h = c.u32(); h > 0; h--) { out.push(b[start + c.u32()]); assert.equal(c.u32(), 1); assert.equal(c.byte(), 0); }
  }
  return out;
}

const bytes = moduleOf(['ping', 'pong', 'count', 'loop_tail'], [PING, PONG, COUNT, LOOP_TAIL]);

test('the hand-made module runs as written (the baseline of the tests below)', () => {
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  assert.equal(exports.ping(1000), 0);
  assert.equal(exports.count(1000), 0);
  assert.equal(exports.loop_tail(1000), 0);
});

test('the rewrite counts every loop header and every tail call', () => {
  const { r } = instance(bytes, true);
  assert.equal(r.loops, 2);
  assert.equal(r.tailCalls, 3);
});

test('a cycle of tail calls yields once per BUDGET tail calls, as a loop does per BUDGET iterations', () => {
  // The budget starts at BUDGET; the check that finds it spent yields: K counted steps yield
  // floor((K - 1) / BUDGET) times.
  const tail = instance(bytes, true);
  assert.equal(tail.exports.ping(3 * BUDGET / 2 + 2), 0); // 3 BUDGET + 4 tail calls
  assert.equal(tail.counter.yields, 3);
  const loop = instance(bytes, true);
  assert.equal(loop.exports.count(3 * BUDGET + 4), 0);
  assert.equal(loop.counter.yields, 3);
});

test('a loop whose body is a tail call counts both (its loop check and its tail call check)', () => {
  const { exports, counter } = instance(bytes, true);
  // Each call runs one loop iteration (a fresh local count) and one tail call (the global count).
  assert.equal(exports.loop_tail(2 * BUDGET + 1), 0);
  assert.equal(counter.yields, 2);
});

test('unarmed, the budget counts down and resets but never yields', () => {
  const { exports, counter } = instance(bytes, false);
  assert.equal(exports.ping(3 * BUDGET), 0);
  assert.equal(exports.count(3 * BUDGET), 0);
  assert.equal(counter.yields, 0);
});

test('a thread-guarded module: its tail calls are counted once (by the guard\'s tick), and still yield about once per BUDGET', () => {
  const guarded = guardThreads(moduleOf(['ping', 'pong', 'count', 'loop_tail'], [PING, PONG, COUNT, LOOP_TAIL], true));
  assert.equal(guarded.unchanged, undefined);
  assert.equal(guarded.tailCalls, 3);
  const { r, exports, counter } = instance(guarded.bytes, true);
  assert.equal(r.loops, 2);
  assert.equal(r.tailCalls, 0, 'preempt.ts counts no tail call the guard counts');
  // Every check's `if` keeps its unlikely hint: preempt's loops' and the guard's tail calls' (moved with their bodies).
  assert.deepEqual(hintedBytes(guarded.bytes), [0x04, 0x04, 0x04]);
  assert.deepEqual(hintedBytes(r.bytes), [0x04, 0x04, 0x04, 0x04, 0x04]);
  // The tick runs every TAIL_INTERVAL + 1 tail calls and spends TAIL_INTERVAL of the budget.
  assert.equal(exports.ping(5 * BUDGET), 0); // 10 BUDGET tail calls
  const expected = Math.floor(10 * BUDGET / (TAIL_INTERVAL + 1) / (BUDGET / TAIL_INTERVAL));
  assert.ok(Math.abs(counter.yields - expected) <= 1, `${counter.yields} yields, about ${expected} expected`);
  assert.ok(counter.yields >= 9, `${counter.yields} yields for 10 BUDGET tail calls`);
  assert.equal(exports.count(3 * BUDGET + 4), 0);
  assert.ok(counter.yields >= 12, 'loops still yield');
});
