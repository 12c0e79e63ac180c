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
 * the module's own: its offsets would be stale): with the hint V8 keeps the call on a deferred path,
 * without it the call in the loop made V8 spill the loop's values every iteration (2.6x again,
 * with the local). Loops are not enough on their own: a cycle of tail calls (functions that
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
 * Invariants: nothing is renumbered (the type, function, globals, table and exports are
 * appended); every body with a loop or a tail call is re-encoded, so code offsets move (the
 * module's branch hints are dropped; ours mark each check's `if`, in body order, a loop's check
 * before a tail call's at the same place); no body gains more than one local (loops' counter),
 * and only while it stays within V8's limit; a module without tail calls is rewritten byte for
 * byte as before tail calls were counted; a body the walker cannot follow leaves the module
 * unchanged (`unchanged` says why): the host worker then ends the program with that reason rather
 * than run threads that cannot be preempted.
 * Cost: a local's add, a mask, a compare and a branch hinted not taken per loop iteration; a
 * global's load, compare, hinted branch, load, subtract and store per tail call
 * (bench/runtime/experiments/preempt-cost.mjs; bench/results/threads-jspi-2026-11-27).
 */
import { budgetPoints, CodeError, skipLocals } from './wasm-code.js';
import { appendEntries, Cursor, customName, rank, readLayout, type Layout, type Section } from './thread-guards.js';
import { concat, exportEntry, nameBytes, section, sleb, uleb } from './wasm-module-bytes.js';

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
  /** Tail calls (return_call, return_call_indirect, return_call_ref) that count down the budget. */
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
  let code: Uint8Array, loops: number, tailCalls: number, hints: number[][];
  try { [code, loops, tailCalls, hints] = codeWithBudget(bytes, layout, localCheck, globalCheck); } catch (e) {
    if (e instanceof CodeError || e instanceof RangeError) return unchanged(`a function body could not be walked: ${e.message}`);
    throw e;
  }
  const expiredBody = [0x00, 0x41, ...sleb(BigInt(BUDGET)), 0x24, ...uleb(budget),
    0x23, ...uleb(armed), 0x04, 0x40, 0x41, 0x00, 0x11, ...uleb(voidType), ...uleb(table), 0x0b, 0x0b];
  const find = (id: number): Section | undefined => layout.sections.find((s) => s.id === id);
  const replaced = new Map<number, Uint8Array>([
    [1, appendEntries(bytes, find(1), [[0x60, 0, 0]])],
    [3, appendEntries(bytes, find(3), [uleb(voidType)])],
    [4, appendEntries(bytes, find(4), [[0x70, 0x00, 1]])],
    [6, appendEntries(bytes, find(6), [[I32, 0x01, 0x41, ...sleb(BigInt(BUDGET)), 0x0b], [I32, 0x01, 0x41, 0x00, 0x0b]])],
    [7, appendEntries(bytes, find(7), [exportEntry(YIELD_EXPORT, 1, table), exportEntry(ARMED_EXPORT, 3, armed)])],
    [10, appendCode(code, [expiredBody])],
  ]);
  const out: (Uint8Array | number[])[] = [bytes.subarray(0, 8)];
  const pending = new Set([...replaced.keys()]);
  for (const s of layout.sections) {
    if (s.id !== 0) {
      for (const id of [...pending]) if (!find(id) && rank(id) < rank(s.id)) { out.push(section(id, replaced.get(id)!)); pending.delete(id); }
    }
    if (s.id === 10) out.push(section(0, concat([nameBytes(BRANCH_HINTS), uleb(hints.length), ...hints])));
    if (replaced.has(s.id)) { out.push(section(s.id, replaced.get(s.id)!)); pending.delete(s.id); }
    else if (s.id === 0 && customName(bytes, s).startsWith('metadata.code.')) { /* the module's hints: offsets are stale */ }
    else out.push(bytes.subarray(s.head, s.end));
  }
  for (const id of pending) out.push(section(id, replaced.get(id)!));
  return { bytes: concat(out), loops, tailCalls };
}

/** V8's limit on a function's locals (parameters included). */
const MAX_LOCALS = 50_000;
/** The branch hinting proposal's section: per function, (offset of an `if` in its body, 1, 0 = unlikely). */
const BRANCH_HINTS = 'metadata.code.branch_hint';

/**
 * The code section's content with a check after every loop header (`localCheck(n)`: counting in
 * an appended local n; `globalCheck` where that local would pass MAX_LOCALS) and before every tail
 * call (`globalCheck`: a count that survives the call); the counts of both; the branch hint
 * entries (one per function with either, in function order) that mark each check's `if` unlikely.
 */
function codeWithBudget(b: Uint8Array, layout: Layout, localCheck: (n: number) => number[], globalCheck: readonly number[]): [Uint8Array, number, number, number[][]] {
  const code = layout.code!;
  const c = new Cursor(b, code.start);
  const count = c.u32();
  const parts: (Uint8Array | number[])[] = [uleb(count)];
  let loops = 0, tailCalls = 0;
  const hints: number[][] = [];
  // The check's `if`: its only 0x04 0x40 preceded by i32.eqz (0x45).
  const ifOf = (check: readonly number[]): number => check.findIndex((x, k) => x === 0x04 && check[k - 1] === 0x45 && check[k + 1] === 0x40);
  const globalIf = ifOf(globalCheck);
  for (let i = 0; i < count; i++) {
    const head = c.pos;
    const size = c.u32();
    const start = c.pos, end = start + size;
    if (end > code.end) throw new RangeError('truncated function body');
    // A body without a loop or tail call opcode byte anywhere is copied as it is, undecoded.
    const points = budgetPoints(b, start, end);
    if (points.loops.length === 0 && points.tailCalls.length === 0) {
      parts.push(b.subarray(head, end));
    } else {
      loops += points.loops.length;
      tailCalls += points.tailCalls.length;
      const body: (Uint8Array | readonly number[])[] = [];
      let loopCheck: readonly number[] = globalCheck, loopIf = globalIf;
      let from = start;
      if (points.loops.length > 0) {
        // The locals: the declared groups, and one group more, of one i32 (the loops' counter).
        const l = new Cursor(b, start);
        const groups = l.u32(), firstGroup = l.pos;
        let declared = 0;
        for (let g = 0; g < groups; g++) { declared += l.u32(); l.valType(); }
        const counter = (layout.typeParams[layout.funcTypes[i] ?? -1] ?? MAX_LOCALS) + declared;
        if (counter + 1 <= MAX_LOCALS) {
          loopCheck = localCheck(counter);
          loopIf = ifOf(loopCheck);
          const instructions = skipLocals(b, start, end);
          body.push(uleb(groups + 1), b.subarray(firstGroup, instructions), [1, I32]);
          from = instructions;
        }
      }
      // Both kinds of points in body order (a loop whose body starts with a tail call: the loop's first).
      const inserts: [at: number, check: readonly number[], ifAt: number][] = [];
      for (let m = 0, t = 0; m < points.loops.length || t < points.tailCalls.length;) {
        if (t === points.tailCalls.length || (m < points.loops.length && points.loops[m]! <= points.tailCalls[t]!)) inserts.push([points.loops[m++]!, loopCheck, loopIf]);
        else inserts.push([points.tailCalls[t++]!, globalCheck, globalIf]);
      }
      const offsets: number[] = [];
      let length = body.reduce((n, part) => n + part.length, 0);
      for (const [at, check, ifAt] of inserts) {
        body.push(b.subarray(from, at), check);
        length += at - from;
        offsets.push(length + ifAt);
        length += check.length;
        from = at;
      }
      body.push(b.subarray(from, end));
      hints.push([...uleb(layout.importedFuncs + i), ...uleb(offsets.length), ...offsets.flatMap((o) => [...uleb(o), 1, 0])]);
      const content = concat(body as (Uint8Array | number[])[]);
      parts.push(uleb(content.length), content);
    }
    c.pos = end;
  }
  return [concat(parts), loops, tailCalls, hints];
}

/** A code section's content with `bodies` appended (the count rewritten). */
function appendCode(content: Uint8Array, bodies: readonly number[][]): Uint8Array {
  const c = new Cursor(content, 0);
  const count = c.u32();
  return concat([uleb(count + bodies.length), content.subarray(c.pos), ...bodies.map((body) => [...uleb(body.length), ...body])]);
}
