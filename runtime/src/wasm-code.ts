/**
 * Walks WebAssembly function bodies instruction by instruction: the immediates of every opcode
 * of the core spec and of the proposals V8 ships (sign extension, saturating truncation, bulk
 * memory, reference types, SIMD and relaxed SIMD, threads, tail calls, typed function
 * references, GC, exception handling in both encodings, multi-memory and memory64 memargs, wide
 * arithmetic). It never interprets operands; it only needs to know where each instruction ends.
 *
 * Invariant checked on every body: the walk ends exactly at the body's end, on the `end` that
 * closes the function (block depth 0). A body that breaks it (an opcode this file does not know,
 * or a malformed module) throws `CodeError`; callers then leave the module unchanged.
 *
 * Hot path: `sitesOf` runs over every function of a large module at load time. It skips a body
 * without decoding it when the body contains no 0xFC byte followed by a bulk-memory sub-opcode
 * (8, 10, 11) and no 0xFE byte followed by a wait (1, 2): such a body has no site to rewrite.
 */

/** A body this walker cannot follow. */
export class CodeError extends Error {}

/**
 * An instruction the load-time rewrite (thread-guards.ts) replaces: a bulk memory operation or
 * an atomic wait. `at` is its prefix byte, `end` the byte after it.
 */
export interface Site {
  kind: SiteKind;
  at: number;
  end: number;
  /** memory.init: the data segment index. */
  segment: number;
  /** The memory indices it touches (copy: destination, source). */
  memories: number[];
  /** Waits and other atomic accesses: where the memarg's bytes are, [memarg, end). */
  memarg: number;
  /** Atomic accesses: the 0xFE sub-opcode. */
  op?: number;
  /**
   * Atomic accesses and waits: where the instructions just before it start, nearest first (up to
   * PRODUCERS of them, in the same body; fewer at the body's start). thread-guards.ts reads the
   * operands' producers there (atomic-guards.ts).
   */
  before?: number[];
}

/** How many preceding instruction starts an atomic site records (`Site.before`). */
export const PRODUCERS = 6;

export const enum SiteKind { Init = 8, Copy = 10, Fill = 11, Wait32 = 0x101, Wait64 = 0x102, Atomic = 0x200 }

/** 0xFC sub-opcodes of the bulk memory operations. */
const BULK_INIT = 8, BULK_COPY = 10, BULK_FILL = 11;
/** 0xFE sub-opcodes of memory.atomic.wait32 and wait64. */
const WAIT32 = 1, WAIT64 = 2;

/** Immediate shapes of one-byte opcodes (index: opcode). */
const enum Imm {
  None, U32, U32x2, Delegate, BlockType, BrTable, SelectT, TryTable, MemArg, I32, I64, F32, F64, HeapType,
  Prefix, Unknown,
}

const ONE_BYTE: Imm[] = (() => {
  const t = new Array<Imm>(256).fill(Imm.Unknown);
  const set = (imm: Imm, ...ops: number[]): void => { for (const o of ops) t[o] = imm; };
  const range = (imm: Imm, from: number, to: number): void => { for (let o = from; o <= to; o++) t[o] = imm; };
  set(Imm.None, 0x00, 0x01, 0x05, 0x0a, 0x0b, 0x0f, 0x19, 0x1a, 0x1b, 0xd1, 0xd3, 0xd4);
  set(Imm.BlockType, 0x02, 0x03, 0x04, 0x06); // block loop if try(legacy)
  set(Imm.U32, 0x07, 0x08, 0x09, 0x0c, 0x0d, 0x10, 0x12, 0x14, 0x15, 0xd2, 0xd5, 0xd6);
  set(Imm.Delegate, 0x18); // legacy `delegate`: closes its `try` like `end`
  set(Imm.U32x2, 0x11, 0x13); // call_indirect, return_call_indirect: type, table
  set(Imm.BrTable, 0x0e);
  set(Imm.SelectT, 0x1c);
  set(Imm.TryTable, 0x1f);
  range(Imm.U32, 0x20, 0x26); // local.get .. table.set
  range(Imm.MemArg, 0x28, 0x3e);
  set(Imm.U32, 0x3f, 0x40); // memory.size, memory.grow: memory index
  set(Imm.I32, 0x41);
  set(Imm.I64, 0x42);
  set(Imm.F32, 0x43);
  set(Imm.F64, 0x44);
  range(Imm.None, 0x45, 0xc4); // numeric, sign extension
  set(Imm.HeapType, 0xd0); // ref.null
  set(Imm.Prefix, 0xfb, 0xfc, 0xfd, 0xfe);
  return t;
})();

// The walk below is written for speed (it runs over every function body of a large module that
// may contain a bulk op): positions are plain numbers, LEB128s are skipped inline, and the value
// of the last `u32` read is left in `value`. A read past the body's end yields `undefined` bytes
// (which end any LEB128 loop); the checks on the position turn that into a CodeError.

/** The value of the last `u32` call. */
let value = 0;

/** Reads a u32 LEB128 at p into `value`; returns the position after it. */
function u32(b: Uint8Array, p: number): number {
  let byte = b[p++]!;
  value = byte & 0x7f;
  if (byte < 0x80) return p;
  let shift = 7;
  do {
    byte = b[p++]!;
    if (shift < 32) value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (shift > 70) throw new CodeError('LEB128 too long');
  } while (byte & 0x80);
  return p;
}

/** Skips any LEB128 (signed or unsigned, up to 64 bits). */
function leb(b: Uint8Array, p: number): number {
  let n = 0;
  while (b[p++]! & 0x80) if (++n > 10) throw new CodeError('LEB128 too long');
  return p;
}

/** A value type: one byte, or 0x63/0x64 (nullable / non-null reference) and a heap type. */
function valType(b: Uint8Array, p: number): number {
  const t = b[p++]!;
  if (t === 0x63 || t === 0x64) return leb(b, p);
  if (!(t >= 0x40)) throw new CodeError(`bad value type ${t}`);
  return p;
}

/** A block type: 0x40 (empty), a value type, or a type index (s33 >= 0). */
export function blockType(b: Uint8Array, p: number): number {
  const t = b[p]!;
  if (t & 0x80 || t < 0x40) return leb(b, p); // a type index
  return t === 0x40 ? p + 1 : valType(b, p);
}

/** A memarg; leaves its memory index in `value`. */
function memArg(b: Uint8Array, p: number): number {
  p = u32(b, p);
  let memory = 0;
  if (value & 0x40) { p = u32(b, p); memory = value; } // multi-memory: explicit memory index
  p = leb(b, p); // offset (u32, or u64 for memory64)
  value = memory;
  return p;
}

/** Skips the immediates of a 0xFB (GC) instruction. */
function gcImmediates(b: Uint8Array, p: number, sub: number): number {
  if (sub <= 1 || sub === 6 || sub === 7 || (sub >= 11 && sub <= 14) || sub === 16) return leb(b, p); // a type
  if ((sub >= 2 && sub <= 5) || (sub >= 8 && sub <= 10) || (sub >= 17 && sub <= 19)) return leb(b, leb(b, p)); // two indices
  if (sub === 15 || (sub >= 26 && sub <= 30)) return p; // array.len, conversions, i31
  if (sub >= 20 && sub <= 23) return leb(b, p); // ref.test / ref.cast (null): a heap type
  if (sub === 24 || sub === 25) return leb(b, leb(b, leb(b, p + 1))); // br_on_cast(_fail): flags, label, 2 heap types
  throw new CodeError(`unknown GC instruction 0xfb ${sub}`);
}

/** Skips the immediates of a 0xFD (SIMD) instruction. */
function simdImmediates(b: Uint8Array, p: number, sub: number): number {
  if (sub <= 11 || sub === 92 || sub === 93) return memArg(b, p); // loads, stores, load_zero
  if (sub === 12 || sub === 13) return p + 16; // v128.const, i8x16.shuffle
  if (sub >= 21 && sub <= 34) return p + 1; // extract/replace lane
  if (sub >= 84 && sub <= 91) return memArg(b, p) + 1; // load/store lane
  if (sub <= 0x113) return p; // every other SIMD and relaxed SIMD instruction has none
  throw new CodeError(`unknown SIMD instruction 0xfd ${sub}`);
}

/**
 * Skips the immediates of a 0xFE (atomics) instruction; reports a wait, and every other atomic
 * memory access (notify, loads, stores, read-modify-writes, compare-exchanges), to `onSite`.
 */
function atomicImmediates(b: Uint8Array, p: number, sub: number, at: number, onSite: ((site: Site) => void) | null,
  recent: number[], count: number): number {
  if (sub === 3) return p + 1; // atomic.fence
  if (sub === 0 || sub === WAIT32 || sub === WAIT64 || (sub >= 0x10 && sub <= 0x4e)) {
    const memarg = p;
    p = memArg(b, p);
    const kind = sub === WAIT32 ? SiteKind.Wait32 : sub === WAIT64 ? SiteKind.Wait64 : SiteKind.Atomic;
    if (onSite) {
      const before: number[] = [];
      for (let i = 1; i <= Math.min(count, PRODUCERS); i++) before.push(recent[(count - i) % PRODUCERS]!);
      onSite({ kind, at, end: p, segment: -1, memories: [value], memarg, op: sub, before });
    }
    return p;
  }
  throw new CodeError(`unknown atomic instruction 0xfe ${sub}`);
}

/**
 * Skips the immediates of a 0xFC instruction at p (after the sub-opcode); reports a bulk memory
 * operation (`at`: its 0xFC byte) to `onSite`.
 */
function miscImmediates(b: Uint8Array, p: number, sub: number, at: number, onSite: ((site: Site) => void) | null): number {
  if (sub <= 7 || (sub >= 19 && sub <= 22)) return p; // trunc_sat; wide arithmetic
  switch (sub) {
    case BULK_INIT: {
      p = u32(b, p);
      const segment = value;
      p = u32(b, p);
      onSite?.({ kind: SiteKind.Init, at, end: p, segment, memories: [value], memarg: -1 });
      return p;
    }
    case BULK_COPY: {
      p = u32(b, p);
      const dst = value;
      p = u32(b, p);
      onSite?.({ kind: SiteKind.Copy, at, end: p, segment: -1, memories: [dst, value], memarg: -1 });
      return p;
    }
    case BULK_FILL: {
      p = u32(b, p);
      onSite?.({ kind: SiteKind.Fill, at, end: p, segment: -1, memories: [value], memarg: -1 });
      return p;
    }
    case 9: case 13: case 15: case 16: case 17: return leb(b, p); // data.drop elem.drop table.grow/size/fill
    case 12: case 14: return leb(b, leb(b, p)); // table.init, table.copy
    default: throw new CodeError(`unknown instruction 0xfc ${sub}`);
  }
}

/** Skips a body's local declarations; returns where its instructions start. */
export function skipLocals(b: Uint8Array, start: number, end: number): number {
  let p = u32(b, start);
  for (let groups = value; groups > 0; groups--) p = valType(b, leb(b, p));
  if (p > end) throw new CodeError('truncated local declarations');
  return p;
}

/**
 * Walks the instructions of the body [start, end) (local declarations included) and calls
 * `onSite` for every memory.init/copy/fill and every atomic memory access (waits included). Throws CodeError unless the walk ends exactly at
 * `end` on the function's closing `end`. `onInstruction(at)`, when given, sees every
 * instruction's first byte (for tests and tools; it slows the walk); `tails`, when given, gets
 * where each tail call starts (its opcode).
 */
export function walkBody(b: Uint8Array, start: number, end: number, onSite: ((site: Site) => void) | null,
  onInstruction?: (at: number) => void, tails?: number[]): void {
  let p = skipLocals(b, start, end);
  let depth = 1; // the function's own block
  // The starts of the last PRODUCERS instructions (a ring; `count` instructions walked so far).
  const recent = new Array<number>(PRODUCERS).fill(0);
  let count = 0;
  while (depth > 0) {
    if (p >= end) throw new CodeError('the function has no closing end');
    onInstruction?.(p);
    const at = p;
    const op = b[p++]!;
    switch (ONE_BYTE[op]!) {
      case Imm.None: if (op === 0x0b) depth--; break;
      case Imm.U32: if (tails && (op === RETURN_CALL || op === RETURN_CALL_REF)) tails.push(at); p = leb(b, p); break;
      case Imm.U32x2: if (tails && op === RETURN_CALL_INDIRECT) tails.push(at); p = leb(b, leb(b, p)); break;
      case Imm.Delegate: p = leb(b, p); depth--; break;
      case Imm.BlockType: p = blockType(b, p); depth++; break;
      case Imm.BrTable: p = u32(b, p); for (let n = value; n >= 0; n--) p = leb(b, p); break;
      case Imm.SelectT: p = u32(b, p); for (let n = value; n > 0; n--) p = valType(b, p); break;
      case Imm.TryTable: {
        p = u32(b, blockType(b, p));
        for (let n = value; n > 0; n--) {
          const kind = b[p++]!;
          if (!(kind <= 3)) throw new CodeError(`unknown catch clause ${kind}`);
          if (kind < 2) p = leb(b, p); // catch / catch_ref: the tag
          p = leb(b, p); // the label
        }
        depth++;
        break;
      }
      case Imm.MemArg: p = memArg(b, p); break;
      case Imm.I32: case Imm.I64: case Imm.HeapType: p = leb(b, p); break;
      case Imm.F32: p += 4; break;
      case Imm.F64: p += 8; break;
      case Imm.Prefix: {
        p = u32(b, p);
        const sub = value;
        if (op === 0xfc) p = miscImmediates(b, p, sub, at, onSite);
        else if (op === 0xfd) p = simdImmediates(b, p, sub);
        else if (op === 0xfe) p = atomicImmediates(b, p, sub, at, onSite, recent, count);
        else p = gcImmediates(b, p, sub);
        break;
      }
      default: throw new CodeError(`unknown opcode 0x${op.toString(16)}`);
    }
    recent[count % PRODUCERS] = at;
    count++;
  }
  if (p !== end) throw new CodeError(`the function ends at ${p}, its body at ${end}`);
}

/**
 * Whether [start, end) may contain a site: 0xFC followed by a byte that may start a bulk-memory
 * sub-opcode (8, 10, 11), or 0xFE followed by anything but atomic.fence (3: every other atomic
 * instruction accesses memory); also as the first byte of an overlong LEB128.
 */
export function mayHaveSites(b: Uint8Array, start: number, end: number): boolean {
  // Searched in a view of the body: `b.indexOf(byte, start)` runs on past the body's end to the
  // next such byte anywhere in the module. Node 20 and 26 search fast enough that it did not
  // matter (4 ms for rolldown's 34,567 bodies either way); Chromium's page took ~70 ms longer
  // for the rewrite of rolldown's binding (140-165 vs 216-234 ms; bench/results/napi-2026-11-27-load).
  const body = b.subarray(start, end);
  const last = body.length - 1;
  for (let i = body.indexOf(0xfc); i >= 0 && i < last; i = body.indexOf(0xfc, i + 1)) {
    const sub = body[i + 1]! & 0x7f;
    if (sub === BULK_INIT || sub === BULK_COPY || sub === BULK_FILL) return true;
  }
  for (let i = body.indexOf(0xfe); i >= 0 && i < last; i = body.indexOf(0xfe, i + 1)) {
    if (body[i + 1] !== 3) return true;
  }
  return false;
}

/** The sites of body [start, end), in order (the body is decoded only if the byte filter matches). */
export function sitesOf(b: Uint8Array, start: number, end: number): Site[] {
  if (!mayHaveSites(b, start, end)) return [];
  const sites: Site[] = [];
  walkBody(b, start, end, (site) => sites.push(site));
  return sites;
}

/** Opcodes of the tail calls: return_call, return_call_indirect, return_call_ref. */
const RETURN_CALL = 0x12, RETURN_CALL_INDIRECT = 0x13, RETURN_CALL_REF = 0x15;

/** Where preempt.ts and thread-guards.ts count down a budget in one body (`budgetPoints`, budget-code.ts). */
export interface BudgetPoints {
  /** Where each `loop` begins its body: the byte after the loop's block type. */
  loops: number[];
  /** Where each tail call (return_call, return_call_indirect, return_call_ref) starts: its opcode. */
  tailCalls: number[];
}

const NO_POINTS: BudgetPoints = { loops: [], tailCalls: [] };

/**
 * The loop headers (unless `loops` is false: none) and tail calls of body [start, end), in order.
 * A body with none of their opcode bytes after its locals is not decoded; any other is, whole
 * (throws CodeError as walkBody).
 */
export function budgetPoints(b: Uint8Array, start: number, end: number, loops = true): BudgetPoints {
  const code = b.subarray(skipLocals(b, start, end), end);
  if (!(loops && code.includes(0x03)) && !code.includes(RETURN_CALL) && !code.includes(RETURN_CALL_INDIRECT) && !code.includes(RETURN_CALL_REF)) return NO_POINTS;
  const loopsAt: number[] = [], tailCalls: number[] = [];
  if (!loops) { // tail calls only: no callback per instruction
    walkBody(b, start, end, null, undefined, tailCalls);
    return tailCalls.length ? { loops: loopsAt, tailCalls } : NO_POINTS;
  }
  walkBody(b, start, end, null, (at) => {
    const op = b[at];
    if (op === 0x03) { if (loops) loopsAt.push(blockType(b, at + 1)); }
    else if (op === RETURN_CALL || op === RETURN_CALL_INDIRECT || op === RETURN_CALL_REF) tailCalls.push(at);
  });
  return { loops: loopsAt, tailCalls };
}
