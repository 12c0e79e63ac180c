/**
 * The preemptible compile of a threaded program, for hosted threads only (host-worker.ts,
 * docs/threads-beyond-the-pool.md). Threads that share a host worker take turns: one runs until
 * it suspends. A thread that waits for a co-hosted one by spinning on a plain atomic (a spin
 * barrier in C11 atomics, never a futex wait or sched_yield) would never let it run, and the
 * program would hang where natively it is only slow. So the hosted instances run this second
 * rewrite of the (already thread-guarded) module, where every `loop` counts its iterations in an
 * appended local of its function and, every BUDGET of them, yields to the host's other threads:
 *
 *   loop bt                                   (the original header)
 *     local.get $n  i32.const 1  i32.add  local.tee $n  i32.const BUDGET-1  i32.and  i32.eqz
 *     if  call $expired  end
 *     ...                                     (the original loop body)
 *
 *   $expired:  $budget = BUDGET;  if ($armed) call_indirect $yields[0] ()
 *
 * A local, not a global: the count stays in a register (a global's store and reload each
 * iteration made a loop of arithmetic 2.6x slower on Node 26: bench/results/threads-jspi-2026-11-27).
 * And every inserted `if` is hinted unlikely (a `metadata.code.branch_hint` section, which replaces
 * the module's own, whose hints it carries, moved with their bodies' code: a thread-guarded
 * module's tail checks keep theirs: dropped, a tail call took 3x its time on Node 26 in a noisy
 * first A/B): with the hint V8 keeps the call on a deferred path, without it the call in the
 * loop made V8 spill the loop's values every iteration (2.6x again, with the local). Loops are not enough on their own: a cycle of tail calls (functions that
 * `return_call` each other: a state machine, an interpreter's dispatch, a spin-wait written as
 * functions) runs forever with no loop and no growing stack. So every tail call (`return_call`,
 * `return_call_indirect`, `return_call_ref`) counts too, right before it, in a per-instance global
 * (a local does not survive the call), with the same hinted `if`:
 *
 *   global.get $budget  i32.eqz  if  call $expired  end                  (before each tail call;
 *   global.get $budget  i32.const 1  i32.sub  global.set $budget          also a loop's, below)
 *   return_call f                                                         (the original call)
 *
 * Together that is enough: a thread that runs forever without overflowing its stack either has a
 * frame that is never left (by a return or a tail call), and that frame, past finitely many calls
 * that return, runs one of its own loops forever; or it leaves frames forever, and with a bounded
 * stack infinitely many of them by a tail call (a cycle of plain calls grows the stack and ends
 * in a trap). Counted at the tail call, not at a function's entry: a function entered often that
 * tail-calls rarely pays nothing. A body whose locals would pass V8's limit counts its loops in
 * `$budget` too. Both counts share `$budget`, which $expired resets.
 *
 * `$yields` is an appended table of one funcref, exported as YIELD_EXPORT, that the host worker
 * fills with a suspending function (jspi.ts; through a trampoline, as wait-hook.ts does);
 * `$armed` an appended i32 global exported as ARMED_EXPORT, 0 until the host worker sets it right
 * before it calls `wasi_thread_start` through JSPI's `promising`: a loop that runs out of
 * budget while the instance is still being created (a start function) must not suspend (there is
 * no promising frame to suspend to: SuspendError). Globals are per instance, and each hosted
 * thread has its own instance, so the budget is per thread.
 *
 * A thread-guarded module with tail calls already counts them (thread-guards.ts, 4: a countdown
 * in its own global, a call of its `$tick` every TAIL_INTERVAL): there this rewrite inserts no
 * check before a tail call, and `$tick` also spends TAIL_INTERVAL of `$budget` (calling
 * `$expired` when that would spend it all): one count per tail call for both purposes, a yield
 * about every BUDGET tail calls as before.
 *
 * Invariants: nothing is renumbered (the type, function, globals, table and exports are
 * appended); every body with a loop or a tail call is re-encoded, so code offsets move (the
 * module's branch hints move with their `if`s; ours mark each check's `if`); no body gains more than one local (loops' counter),
 * and only while it stays within V8's limit; a module without tail calls is rewritten byte for
 * byte as before tail calls were counted; a body the walker cannot follow leaves the module
 * unchanged (`unchanged` says why): the host worker then ends the program with that reason rather
 * than run threads that cannot be preempted.
 * Cost: a local's add, a mask, a compare and a branch hinted not taken per loop iteration; a
 * global's load, compare, hinted branch, load, subtract and store per tail call
 * (bench/runtime/experiments/preempt-cost.mjs; bench/results/threads-jspi-2026-11-27).
 */
import { appendEntries, budgetCode, withSections, type Budgeted } from './budget-code.js';
import { tailCounting, readLayout, type Layout } from './thread-guards.js';
import { CodeError } from './wasm-code.js';
import { exportEntry, sleb, uleb } from './wasm-module-bytes.js';

/** The exports of the preemption hook: the table of the yield function, and the global that arms it. */
export const YIELD_EXPORT = 'spindle.preempt-yield';
export const ARMED_EXPORT = 'spindle.preempt-armed';
/** Loop iterations between two yields of a running hosted thread. */
export const BUDGET = 1 << 20;

export interface PreemptResult {
  /** The rewritten module, or the original bytes when `unchanged`. */
  bytes: Uint8Array;
  /** Loop headers that count down the budget. */
  loops: number;
  /** Tail calls (return_call, return_call_indirect, return_call_ref) that count down the budget (0 when thread-guards.ts counts them). */
  tailCalls: number;
  /** Why the module was left as it was. */
  unchanged?: string;
}

const I32 = 0x7f;

/** Adds the loop budget to `bytes` (see the file comment). Never throws. */
export function preemptible(bytes: Uint8Array): PreemptResult {
  const unchanged = (why: string): PreemptResult => ({ bytes, loops: 0, tailCalls: 0, unchanged: why });
  let layout: Layout;
  try { layout = readLayout(bytes); } catch (e) { return unchanged(`unreadable module: ${(e as Error).message}`); }
  if (!layout.code) return unchanged('no code');
  const budget = layout.importedGlobals + layout.definedGlobals, armed = budget + 1;
  const expired = layout.importedFuncs + layout.definedFuncs;
  const table = layout.importedTables + layout.definedTables;
  const voidType = layout.types;
  const globalCheck = [0x23, ...uleb(budget), 0x45, 0x04, 0x40, 0x10, ...uleb(expired), 0x0b,
    0x23, ...uleb(budget), 0x41, 0x01, 0x6b, 0x24, ...uleb(budget)];
  const localCheck = (n: number): number[] => [0x20, ...uleb(n), 0x41, 0x01, 0x6a, 0x22, ...uleb(n),
    0x41, ...sleb(BigInt(BUDGET - 1)), 0x71, 0x45, 0x04, 0x40, 0x10, ...uleb(expired), 0x0b];
  // Tail calls the thread-guarded module already counts (its tick every `interval` of them):
  // the tick counts them here too, `interval` at a time, rather than a second count per call.
  const counting = tailCounting(bytes, layout);
  const replaced = new Map<number, number[]>();
  if (counting) {
    const { tick, interval, body } = counting;
    const n = sleb(BigInt(interval));
    // tick: its own instructions; then if ($budget <= interval) call $expired else $budget -= interval
    replaced.set(tick - layout.importedFuncs, [...body.slice(0, -1), 0x23, ...uleb(budget), 0x41, ...n, 0x4d /* i32.le_u */, 0x04, 0x40,
      0x10, ...uleb(expired), 0x05, 0x23, ...uleb(budget), 0x41, ...n, 0x6b, 0x24, ...uleb(budget), 0x0b, 0x0b]);
  }
  const expiredBody = [0x00, 0x41, ...sleb(BigInt(BUDGET)), 0x24, ...uleb(budget),
    0x23, ...uleb(armed), 0x04, 0x40, 0x41, 0x00, 0x11, ...uleb(voidType), ...uleb(table), 0x0b, 0x0b];
  let code: Budgeted;
  try {
    code = budgetCode(bytes, layout, { loops: { local: localCheck, global: globalCheck }, tails: counting ? null : globalCheck }, replaced, [expiredBody]);
  } catch (e) {
    if (e instanceof CodeError || e instanceof RangeError) return unchanged(`a function body could not be walked: ${e.message}`);
    throw e;
  }
  const find = (id: number) => layout.sections.find((s) => s.id === id);
  const sections = new Map<number, Uint8Array>([
    [1, appendEntries(bytes, find(1), [[0x60, 0, 0]])],
    [3, appendEntries(bytes, find(3), [uleb(voidType)])],
    [4, appendEntries(bytes, find(4), [[0x70, 0x00, 1]])],
    [6, appendEntries(bytes, find(6), [[I32, 0x01, 0x41, ...sleb(BigInt(BUDGET)), 0x0b], [I32, 0x01, 0x41, 0x00, 0x0b]])],
    [7, appendEntries(bytes, find(7), [exportEntry(YIELD_EXPORT, 1, table), exportEntry(ARMED_EXPORT, 3, armed)])],
    [10, code.code],
  ]);
  return { bytes: withSections(bytes, layout.sections, sections, code.hints), loops: code.loops, tailCalls: code.tailCalls };
}
