/**
 * The cost of the preemptible compile's budget (runtime/src/preempt.ts) per loop iteration and per
 * tail call: two loops and a cycle of tail calls, as plain wasm and rewritten, timed on this
 * thread (bench/runtime/experiments/preempt-cost.mjs runs it).
 *
 *   node loop-budget.mjs PREEMPT_JS MODE ITERATIONS
 *     PREEMPT_JS  the runtime's dist/preempt.js;  MODE  plain | preemptible | guarded | hosted
 *     guarded: the module with a shared memory, rewritten by dist/thread-guards.js (every thread
 *     of a threaded program: it counts tail calls); hosted: that, then by preempt.js (hosted threads)
 *   prints: loop mode=MODE arith_ns=F mem_ns=F tail_ns=F checksum=N
 *
 * arith: acc = acc * 31 + i (a loop of 8 instructions: the worst case, the check about doubles
 * what the loop does); mem: acc += load(base + (i * 4 & 0xfffc)) (a load per iteration); tail:
 * ping(n, acc) and pong(n, acc) return_call each other, n - 1 and acc * 31 + n (ping) or acc ^ n
 * (pong), until n is 0 (ns per tail call). Each is called twice to warm up (V8 tiers a function
 * up between calls), then timed over ITERATIONS.
 */
import { pathToFileURL } from 'node:url';

const [preemptJs, mode, iterations] = process.argv.slice(2);
const n = Number(iterations ?? 1e8);
const { preemptible, ARMED_EXPORT } = await import(pathToFileURL(preemptJs).href);
const { guardThreads } = await import(pathToFileURL(preemptJs.replace(/preempt\.js$/, 'thread-guards.js')).href);
const shared = mode === 'guarded' || mode === 'hosted';

// (module (memory 1) (func (export "arith") (param i32) (result i32) ...) (func (export "mem") ...))
const body = (loop) => [0x01, 0x02, 0x7f, 0x03, 0x40, ...loop,
  0x20, 0x01, 0x41, 0x01, 0x6a, 0x22, 0x01, 0x20, 0x00, 0x48, 0x0d, 0x00, 0x0b, 0x20, 0x02, 0x0b];
const arith = body([0x20, 0x02, 0x41, 0x1f, 0x6c, 0x20, 0x01, 0x6a, 0x21, 0x02]);
const mem = body([0x20, 0x02, 0x20, 0x01, 0x41, 0x02, 0x74, 0x41, 0xfc, 0xff, 0x03, 0x71, 0x28, 0x02, 0x00, 0x6a, 0x21, 0x02]);
// (func $ping (param $n i32) (param $acc i32) (result i32): n == 0 ? acc : return_call $other (n - 1) (next acc))
const tail = (next, other) => [0x00, 0x20, 0x00, 0x45, 0x04, 0x40, 0x20, 0x01, 0x0f, 0x0b,
  0x20, 0x00, 0x41, 0x01, 0x6b, ...next, 0x12, other, 0x0b];
const ping = tail([0x20, 0x01, 0x41, 0x1f, 0x6c, 0x20, 0x00, 0x6a], 3);
const pong = tail([0x20, 0x01, 0x20, 0x00, 0x73], 2);
const sec = (id, bytes) => [id, bytes.length, ...bytes];
const name = (s) => [s.length, ...Buffer.from(s)];
const code = [4, arith.length, ...arith, mem.length, ...mem, ping.length, ...ping, pong.length, ...pong];
const bytes = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
  ...sec(1, [2, 0x60, 1, 0x7f, 1, 0x7f, 0x60, 2, 0x7f, 0x7f, 1, 0x7f]),
  ...sec(3, [4, 0, 0, 1, 1]),
  ...sec(5, shared ? [1, 3, 1, 1] : [1, 0, 1]),
  ...sec(7, [3, ...name('arith'), 0, 0, ...name('mem'), 0, 1, ...name('tail'), 0, 2]),
  ...sec(10, code)]);

// guarded: a module without tail calls or other site is left as it is (main before tail calls were counted).
const guarded = shared ? guardThreads(bytes).bytes : bytes;
const module = mode === 'preemptible' || mode === 'hosted' ? preemptible(guarded) : { bytes: guarded };
if (module.unchanged) throw new Error(`not rewritten: ${module.unchanged}`);
const { exports } = new WebAssembly.Instance(new WebAssembly.Module(module.bytes));
// Unarmed (no host worker here): the budget counts down and resets, nothing suspends.
if ((mode === 'preemptible' || mode === 'hosted') && !(exports[ARMED_EXPORT] instanceof WebAssembly.Global)) throw new Error('no preemption hook');
const time = (f) => {
  f(n / 10); f(n / 10); // tier up (a function's next call runs the optimized code)
  const t0 = process.hrtime.bigint();
  const r = f(n);
  return [Number(process.hrtime.bigint() - t0) / n, r];
};
const [arithNs, a] = time(exports.arith);
const [memNs, m] = time(exports.mem);
const [tailNs, t] = time(exports.tail);
process.stdout.write(`loop mode=${mode} arith_ns=${arithNs.toFixed(4)} mem_ns=${memNs.toFixed(4)} tail_ns=${tailNs.toFixed(4)} checksum=${(a ^ m ^ t) >>> 0}\n`);
