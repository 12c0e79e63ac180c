/**
 * The cost of the preemptible compile's loop budget (runtime/src/preempt.ts) per loop iteration:
 * two loops, as plain wasm and rewritten, timed on this thread (bench/runtime/experiments/
 * preempt-cost.mjs runs it).
 *
 *   node loop-budget.mjs PREEMPT_JS MODE ITERATIONS
 *     PREEMPT_JS  the runtime's dist/preempt.js;  MODE  plain | preemptible
 *   prints: loop mode=MODE arith_ns=F mem_ns=F checksum=N
 *
 * arith: acc = acc * 31 + i (a loop of 8 instructions: the worst case, the check about doubles
 * what the loop does); mem: acc += load(base + (i * 4 & 0xfffc)) (a load per iteration). Each is
 * called twice to warm up (V8 tiers a function up between calls), then timed over ITERATIONS.
 */
import { pathToFileURL } from 'node:url';

const [preemptJs, mode, iterations] = process.argv.slice(2);
const n = Number(iterations ?? 1e8);
const { preemptible, ARMED_EXPORT } = await import(pathToFileURL(preemptJs).href);

// (module (memory 1) (func (export "arith") (param i32) (result i32) ...) (func (export "mem") ...))
const body = (loop) => [0x01, 0x02, 0x7f, 0x03, 0x40, ...loop,
  0x20, 0x01, 0x41, 0x01, 0x6a, 0x22, 0x01, 0x20, 0x00, 0x48, 0x0d, 0x00, 0x0b, 0x20, 0x02, 0x0b];
const arith = body([0x20, 0x02, 0x41, 0x1f, 0x6c, 0x20, 0x01, 0x6a, 0x21, 0x02]);
const mem = body([0x20, 0x02, 0x20, 0x01, 0x41, 0x02, 0x74, 0x41, 0xfc, 0xff, 0x03, 0x71, 0x28, 0x02, 0x00, 0x6a, 0x21, 0x02]);
const sec = (id, bytes) => [id, bytes.length, ...bytes];
const name = (s) => [s.length, ...Buffer.from(s)];
const code = [2, arith.length, ...arith, mem.length, ...mem];
const bytes = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
  ...sec(1, [1, 0x60, 1, 0x7f, 1, 0x7f]),
  ...sec(3, [2, 0, 0]),
  ...sec(5, [1, 0, 1]),
  ...sec(7, [2, ...name('arith'), 0, 0, ...name('mem'), 0, 1]),
  ...sec(10, code)]);

const module = mode === 'preemptible' ? preemptible(bytes) : { bytes };
if (module.unchanged) throw new Error(`not rewritten: ${module.unchanged}`);
const { exports } = new WebAssembly.Instance(new WebAssembly.Module(module.bytes));
// Unarmed (no host worker here): the budget counts down and resets, nothing suspends.
if (mode === 'preemptible' && !(exports[ARMED_EXPORT] instanceof WebAssembly.Global)) throw new Error('no preemption hook');
const time = (f) => {
  f(n / 10); f(n / 10); // tier up (a function's next call runs the optimized code)
  const t0 = process.hrtime.bigint();
  const r = f(n);
  return [Number(process.hrtime.bigint() - t0) / n, r];
};
const [arithNs, a] = time(exports.arith);
const [memNs, m] = time(exports.mem);
process.stdout.write(`loop mode=${mode} arith_ns=${arithNs.toFixed(4)} mem_ns=${memNs.toFixed(4)} checksum=${(a ^ m) >>> 0}\n`);
