/**
 * Counting down a budget in function bodies, the technique both rewrites that must stop a
 * running wasm thread share: preempt.ts (hosted threads: loops and tail calls, to yield) and
 * thread-guards.ts (every thread of a program with tail calls: to give V8 a point where
 * worker.terminate() takes effect, docs/known-issues/v8-tail-call-terminate.md). A caller gives
 * the check bytes; this file inserts them and writes the module around them:
 *
 * - `budgetCode`: the code section with a check after every loop header (counting in an
 *   appended local, or the caller's global form where that local would pass V8's limit) and/or
 *   before every tail call (a global: a local does not survive the call); some bodies replaced
 *   whole; bodies appended; and the branch hints that mark each check's `if` unlikely (with the
 *   hint V8 keeps the rare call on a deferred path; without it a loop's values were spilled every
 *   iteration: bench/results/threads-jspi-2026-11-27).
 * - `withSections`: the module with some sections replaced or added (in the binary format's
 *   order), the branch hints before the code, the module's own `metadata.code.*` sections dropped
 *   (their offsets would be stale: its branch hints are in ours, moved), and custom sections appended.
 *
 * Invariants: nothing is renumbered (callers append types, functions, globals, tables); a body
 * with no point to count and not replaced is copied byte for byte, undecoded when it has no
 * opcode byte of one (wasm-code.ts `budgetPoints`); a body the walker cannot follow throws
 * CodeError (callers then leave the module unchanged). No state.
 */
import { budgetPoints, skipLocals } from './wasm-code.js';
import { concat, nameBytes, section, uleb } from './wasm-module-bytes.js';

/** V8's limit on a function's locals (parameters included). */
export const MAX_LOCALS = 50_000;
/** The branch hinting proposal's section: per function, (offset of an `if` in its body, 1, 0 = unlikely). */
export const BRANCH_HINTS = 'metadata.code.branch_hint';
const I32 = 0x7f;

/** A section of a module: its id byte at `head`, its content [start, end). */
export interface SectionAt { id: number; head: number; start: number; end: number }

/** What budgetCode needs of a module's layout (thread-guards.ts `readLayout`). */
export interface CodeLayout {
  sections: SectionAt[];
  code: SectionAt | undefined;
  /** Parameters of each type (-1: not a function type). */
  typeParams: number[];
  /** The type index of each defined function. */
  funcTypes: number[];
  importedFuncs: number;
}

export interface Checks {
  /** Loops: after each header, `local(n)` counting in appended local n, or `global` where n would pass MAX_LOCALS. Null: not counted. */
  loops: { local: (n: number) => number[]; global: readonly number[] } | null;
  /** Before each tail call. Null: not counted. */
  tails: readonly number[] | null;
}

export interface Budgeted { code: Uint8Array; loops: number; tailCalls: number; hints: number[][] }

/** A LEB128 u32 at p: [value, the position after it]. */
function u32At(b: Uint8Array, p: number): [number, number] {
  let r = 0, shift = 0, byte;
  do {
    if (p >= b.length) throw new RangeError('truncated module');
    byte = b[p++]!;
    if (shift < 35) r += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [r, p];
}

/** The check's `if`: its only 0x04 0x40 preceded by i32.eqz (0x45). */
const ifOf = (check: readonly number[]): number => check.findIndex((x, k) => x === 0x04 && check[k - 1] === 0x45 && check[k + 1] === 0x40);

/**
 * The code section's content with `checks` inserted (file comment), the defined functions in
 * `replaced` (index among defined functions -> body: locals and instructions) replaced, and
 * `added` bodies appended; the counts of points; the branch hint entries (one per function with
 * a check, in function order) that mark each check's `if` unlikely (a loop's check before a tail
 * call's at the same place). Throws CodeError or RangeError on a body it cannot follow.
 */
export function budgetCode(b: Uint8Array, layout: CodeLayout, checks: Checks, replaced: ReadonlyMap<number, readonly number[]> = new Map(),
  added: readonly (readonly number[])[] = []): Budgeted {
  const code = layout.code!;
  let [count, pos] = u32At(b, code.start);
  const parts: (Uint8Array | readonly number[])[] = [uleb(count + added.length)];
  let loops = 0, tailCalls = 0;
  const hints: number[][] = [];
  const tailIf = checks.tails ? ifOf(checks.tails) : -1;
  // The module's own hints (a thread-guarded module's tail checks, a compiler's): kept, moved with their `if`.
  const kept = moduleHints(b, layout.sections);
  const hintsOf = (index: number, offsets: readonly [offset: number, hint: number][]): void => {
    if (offsets.length === 0) return;
    const sorted = [...offsets].sort((x, y) => x[0] - y[0]);
    hints.push([...uleb(index), ...uleb(sorted.length), ...sorted.flatMap(([o, h]) => [...uleb(o), 1, h])]);
  };
  for (let i = 0; i < count; i++) {
    const head = pos;
    const [size, start] = u32At(b, pos);
    const end = start + size;
    if (end > code.end) throw new RangeError('truncated function body');
    pos = end;
    const body = replaced.get(i);
    if (body) { parts.push(uleb(body.length), body); continue; }
    const own = kept.get(layout.importedFuncs + i) ?? [];
    // A body without a loop or tail call opcode byte anywhere is copied as it is, undecoded.
    const all = budgetPoints(b, start, end, checks.loops !== null);
    const points = { loops: checks.loops ? all.loops : [], tailCalls: checks.tails ? all.tailCalls : [] };
    if (points.loops.length === 0 && points.tailCalls.length === 0) { parts.push(b.subarray(head, end)); hintsOf(layout.importedFuncs + i, own); continue; }
    loops += points.loops.length;
    tailCalls += points.tailCalls.length;
    const out: (Uint8Array | readonly number[])[] = [];
    let loopCheck: readonly number[] = checks.loops?.global ?? [], loopIf = ifOf(loopCheck);
    let from = start;
    if (points.loops.length > 0) {
      // The locals: the declared groups, and one group more, of one i32 (the loops' counter).
      const [groups, firstGroup] = u32At(b, start);
      let declared = 0, p = firstGroup;
      for (let g = 0; g < groups; g++) { const [n, next] = u32At(b, p); declared += n; p = valTypeEnd(b, next); }
      const counter = (layout.typeParams[layout.funcTypes[i] ?? -1] ?? MAX_LOCALS) + declared;
      if (counter + 1 <= MAX_LOCALS) {
        loopCheck = checks.loops!.local(counter);
        loopIf = ifOf(loopCheck);
        const instructions = skipLocals(b, start, end);
        out.push(uleb(groups + 1), b.subarray(firstGroup, instructions), [1, I32]);
        from = instructions;
      }
    }
    // Both kinds of points in body order (a loop whose body starts with a tail call: the loop's first).
    const inserts: [at: number, check: readonly number[], ifAt: number][] = [];
    for (let m = 0, t = 0; m < points.loops.length || t < points.tailCalls.length;) {
      if (t === points.tailCalls.length || (m < points.loops.length && points.loops[m]! <= points.tailCalls[t]!)) inserts.push([points.loops[m++]!, loopCheck, loopIf]);
      else inserts.push([points.tailCalls[t++]!, checks.tails!, tailIf]);
    }
    const offsets: [number, number][] = [];
    let length = out.reduce((n, part) => n + part.length, 0);
    // An own hint's `if` at body offset o moves by what is inserted before it: the locals' change, the checks at or before it.
    const localsDelta = length - (from - start);
    const moved = own.map(([o, h]): [number, number, number] => [o, h, o >= from - start ? localsDelta : 0]);
    for (const [at, check, ifAt] of inserts) {
      out.push(b.subarray(from, at), check);
      length += at - from;
      offsets.push([length + ifAt, 0]);
      length += check.length;
      for (const m of moved) if (m[0] >= at - start) m[2] += check.length;
      from = at;
    }
    out.push(b.subarray(from, end));
    hintsOf(layout.importedFuncs + i, [...offsets, ...moved.map(([o, h, d]): [number, number] => [o + d, h])]);
    const content = concat(out as (Uint8Array | number[])[]);
    parts.push(uleb(content.length), content);
  }
  for (const body of added) parts.push(uleb(body.length), body);
  return { code: concat(parts as (Uint8Array | number[])[]), loops, tailCalls, hints };
}

/**
 * The module's branch hints (its BRANCH_HINTS section), per function index: [offset in the body,
 * hint]. None when it has no such section or it cannot be read (then it is dropped, as before).
 */
function moduleHints(b: Uint8Array, sections: readonly SectionAt[]): Map<number, [number, number][]> {
  const out = new Map<number, [number, number][]>();
  const s = sections.find((x) => x.id === 0 && customName(b, x) === BRANCH_HINTS);
  if (!s) return out;
  try {
    let [n, p] = u32At(b, s.start);
    p += n; // the name
    let functions;
    [functions, p] = u32At(b, p);
    for (let f = 0; f < functions; f++) {
      let index, hints;
      [index, p] = u32At(b, p);
      [hints, p] = u32At(b, p);
      const list: [number, number][] = [];
      for (let h = 0; h < hints; h++) {
        let offset, size;
        [offset, p] = u32At(b, p);
        [size, p] = u32At(b, p);
        if (size !== 1) throw new RangeError('hint size');
        list.push([offset, b[p++]!]);
      }
      out.set(index, list);
    }
    if (p !== s.end) throw new RangeError('hint section size');
  } catch {
    return new Map();
  }
  return out;
}

/** The end of a value type at p (one byte, or 0x63/0x64 and a heap type). */
function valTypeEnd(b: Uint8Array, p: number): number {
  const t = b[p++]!;
  if (t === 0x63 || t === 0x64) { while (b[p++]! & 0x80) { /* skip */ } }
  return p;
}

/** Section order of the binary format (custom sections may sit anywhere). */
const ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];
export const rank = (id: number): number => ORDER.indexOf(id);

/** A custom section's name. */
export function customName(b: Uint8Array, s: SectionAt): string {
  const [n, p] = u32At(b, s.start);
  return new TextDecoder().decode(b.subarray(p, Math.min(p + n, s.end)));
}

/** A vector section's content with `extra` entries appended (the count is rewritten). */
export function appendEntries(b: Uint8Array, s: SectionAt | undefined, extra: readonly (readonly number[])[]): Uint8Array {
  if (!s) return concat([uleb(extra.length), ...extra as number[][]]);
  const [count, p] = u32At(b, s.start);
  return concat([uleb(count + extra.length), b.subarray(p, s.end), ...extra as number[][]]);
}

/**
 * `b` with the sections in `replaced` (id -> content) replaced, or added where the module has
 * none (in the binary format's order); a branch hint section of `hints` right before the code;
 * the module's own `metadata.code.*` sections dropped; `custom` sections appended at the end.
 */
export function withSections(b: Uint8Array, sections: readonly SectionAt[], replaced: ReadonlyMap<number, Uint8Array>, hints: readonly number[][],
  custom: readonly Uint8Array[] = []): Uint8Array {
  const has = (id: number): boolean => sections.some((s) => s.id === id);
  const out: (Uint8Array | number[])[] = [b.subarray(0, 8)];
  const pending = new Set([...replaced.keys()].sort((x, y) => rank(x) - rank(y)));
  for (const s of sections) {
    if (s.id !== 0) {
      for (const id of [...pending]) if (!has(id) && rank(id) < rank(s.id)) { out.push(section(id, replaced.get(id)!)); pending.delete(id); }
    }
    if (s.id === 10) out.push(section(0, concat([nameBytes(BRANCH_HINTS), uleb(hints.length), ...hints])));
    if (replaced.has(s.id)) { out.push(section(s.id, replaced.get(s.id)!)); pending.delete(s.id); }
    else if (s.id === 0 && customName(b, s).startsWith('metadata.code.')) { /* the module's hints: offsets are stale */ }
    else out.push(b.subarray(s.head, s.end));
  }
  for (const id of pending) out.push(section(id, replaced.get(id)!));
  return concat([...out, ...custom]);
}
