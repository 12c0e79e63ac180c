/**
 * The preempt-cost experiment: what the budget of hosted threads' preemptible compile
 * (runtime/src/preempt.ts, docs/threads-beyond-the-pool.md) costs per loop iteration and per tail
 * call, plain wasm against the rewritten module in the same run (bench/runtime/hosts/
 * loop-budget.mjs: a loop of arithmetic, the worst case, a loop with a memory load, and two
 * functions that return_call each other), on each Node line given (default 24
 * and 26: the lines with JSPI, the only ones that host threads), with V8's default tiers and with
 * the optimizing tier up front (`--no-liftoff`, what spindle runs programs with by default).
 */
import { dirname, join } from 'node:path';
import { measure, parseLine, withRatios } from '../../harness/lib/measure.mjs';
import { otherLines } from './thread-cost.mjs';

export const id = 'preempt-cost';
export const title = 'Hosted threads: the cost of the preemption budget per loop iteration and per tail call';
export const needs = ['programs']; // the runtime's snapshot (ctx.spindleCli): its dist/preempt.js
export const runByDefault = false;
export const params = {
  iterations: 'loop iterations timed per run (default 200000000)',
  lines: 'Node lines, comma-separated majors (default 24,26; tools/node-lines.sh installs them)',
};
export const notes = [
  'ns per iteration of one call of ITERATIONS iterations, after two warm-up calls; plain = the module as it is, preemptible = rewritten by runtime/src/preempt.ts (unarmed: it counts down and resets, never suspends).',
  'arith: acc = acc * 31 + i (8 instructions: the check roughly doubles the loop body); mem: a load per iteration; tail: ns per return_call of two functions that tail-call each other (a little arithmetic each; the check counts in a per-instance global).',
];

const METRICS = [{ key: 'arith', unit: 'ns' }, { key: 'mem', unit: 'ns' }, { key: 'tail', unit: 'ns' }];

export async function run(ctx) {
  const script = join(ctx.benchDir, 'hosts', 'loop-budget.mjs');
  const preempt = join(dirname(ctx.spindleCli), 'preempt.js');
  const n = String(ctx.params?.[`${id}.iterations`] ?? 200_000_000);
  const lines = otherLines({ ...ctx, params: { [`${id}.lines`]: '24,26', ...ctx.params } }, id);
  const rows = [];
  for (const { major, exe } of lines) {
    for (const [tier, flags] of [['default tiers', []], ['optimizing tier', ['--no-liftoff']]]) {
      const variant = `node${major}, ${tier}`;
      const configs = ['plain', 'preemptible'].map((mode) => ({
        config: mode, variant, cmd: [exe, [...flags, script, preempt, mode, n]],
        check: (r) => { const f = parseLine(r.stdout, 'loop '); return { arith: Number(f.arith_ns), mem: Number(f.mem_ns), tail: Number(f.tail_ns) }; },
      }));
      ctx.log(`preempt-cost ${variant}`);
      rows.push(...await measure(ctx, { experiment: id, variant, baseline: 'plain', metrics: METRICS, configs }));
    }
  }
  return withRatios(rows);
}
