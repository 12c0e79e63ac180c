/**
 * The growth guard of atomic accesses, written inline (thread-guards.ts decides where, and emits
 * the module). V8 bounds-checks an atomic access against the calling thread's view of the shared
 * memory's size, which it refreshes lazily after another thread grows the memory; so before each
 * atomic access on memory 0 the rewrite checks, in the body itself:
 *
 *      if (i64(a) + offset + size > known)  call $refresh      ;; known = memory.grow(0) * 64 KiB
 *      the original atomic instruction, with its operands as they were
 *
 * `known` is the per-thread (per-instance) i64 global of thread-guards.ts. The check is a few
 * instructions where a call of a guard function cost the caller its registers (V8 keeps no
 * register across a wasm call): spindle-alloc's malloc/free pair paid ~25 ns for it.
 *
 * Two forms. When the address is pushed by `local.get L` and only simple pushes (local.get,
 * global.get, constants: they write no local) follow it up to the instruction, the check reads L
 * again and the operands stay on the stack (no new local). Otherwise the operands go to locals
 * the rewrite appends to the body (an i32 for the address, up to two of the value type), are
 * checked and pushed back.
 *
 * A check is left out where the address is provably below the memory's declared initial size
 * minus offset and size: every thread's view covers the initial size from its instantiation. The
 * proof reads only the instructions just before the access (wasm-code.ts `Site.before`): the
 * address is `i32.const C`, or `x & M` with `i32.const M` (x & M <= M), possibly through a
 * `local.tee`, followed by simple pushes. Static variables and masked indexes into static tables
 * (spindle-alloc's chunk and thread maps, locks in wasi-libc) are of that shape.
 */
import { type Site } from './wasm-code.js';

const I32 = 0x7f;
const I64 = 0x7e;

/** An atomic instruction's function type (as an inserted guard would have it), the bytes it accesses, and its value operands. */
export interface AtomicShape {
  type: number[];
  size: number;
  /** Operands after the address (notify: the count; stores and RMW: 1; cmpxchg: 2). */
  values: number;
  /** Their value type (I32 or I64). */
  valueType: number;
}

const SHAPES = new Map<number, AtomicShape>();

/**
 * The shape of 0xFE sub-opcode `op` (not a wait, not the fence). Loads 0x10-0x16, stores
 * 0x17-0x1d and each read-modify-write family from 0x1e (add, sub, and, or, xor, xchg, cmpxchg:
 * 7 each) list the same 7 variants: i32, i64, i32 8u, i32 16u, i64 8u, i64 16u, i64 32u.
 * Shapes with equal types share one type array, so that equal types are one type entry.
 */
export function atomicShape(op: number): AtomicShape {
  let shape = SHAPES.get(op);
  if (shape) return shape;
  const variant = (n: number): number => (op - n) % 7;
  const sizes = [4, 8, 1, 2, 1, 2, 4];
  const make = (params: number[], results: number[], size: number): AtomicShape => {
    const type = [0x60, params.length, ...params, results.length, ...results];
    const same = [...SHAPES.values()].find((s) => s.type.join() === type.join());
    return { type: same?.type ?? type, size, values: params.length - 1, valueType: params[1] ?? I32 };
  };
  const t = (n: number): number => [I32, I64, I32, I32, I64, I64, I64][variant(n)]!;
  if (op === 0) shape = make([I32, I32], [I32], 4); // memory.atomic.notify
  else if (op <= 0x16) shape = make([I32], [t(0x10)], sizes[variant(0x10)]!);
  else if (op <= 0x1d) shape = make([I32, t(0x17)], [], sizes[variant(0x17)]!);
  else if (op <= 0x47) shape = make([I32, t(0x1e)], [t(0x1e)], sizes[variant(0x1e)]!);
  else shape = make([I32, t(0x48), t(0x48)], [t(0x48)], sizes[variant(0x48)]!);
  SHAPES.set(op, shape);
  return shape;
}

/** The value of the last u32At (no tuple: this runs for every atomic access of a large module). */
let value = 0;

/** Reads a u32 LEB128 at p into `value`; returns the position after it. */
function u32At(b: Uint8Array, p: number): number {
  let r = 0, shift = 0, byte;
  do { byte = b[p++]!; if (shift < 35) r += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
  value = r;
  return p;
}

/** An i32.const's immediate at p, as an unsigned 32-bit number. */
function i32At(b: Uint8Array, p: number): number {
  let r = 0, shift = 0, byte;
  do { byte = b[p++]!; if (shift < 32) r |= (byte & 0x7f) << shift; shift += 7; } while (byte & 0x80);
  if (shift < 32 && byte & 0x40) r |= -1 << shift;
  return r >>> 0;
}

/** The offset of the memarg at `p` (alignment, an optional memory index, then the offset). */
export function memargOffset(b: Uint8Array, p: number): number {
  let q = u32At(b, p);
  if (value & 0x40) q = u32At(b, q);
  u32At(b, q);
  return value;
}

/** Opcodes that push one value and read or write no local, memory or stack value. */
const isSimplePush = (op: number): boolean => op === 0x20 || op === 0x23 || op === 0x41 || op === 0x42;

/** Where the instruction that pushes the address starts, when only simple pushes follow it; else -1. */
function addressProducer(b: Uint8Array, site: Site): number {
  const before = site.before ?? [];
  const values = atomicShape(site.op!).values;
  if (before.length <= values) return -1;
  for (let i = 0; i < values; i++) if (!isSimplePush(b[before[i]!]!)) return -1;
  return values;
}

/** An upper bound of the address (unsigned), proved from the instructions that push it; or -1. */
function addressBound(b: Uint8Array, before: number[], i: number): number {
  if (i >= before.length) return -1;
  const at = before[i]!;
  const op = b[at]!;
  if (op === 0x41) return i32At(b, at + 1); // i32.const C
  if (op === 0x71 && i + 1 < before.length && b[before[i + 1]!] === 0x41) return i32At(b, before[i + 1]! + 1); // x & M <= M
  if (op === 0x22) return addressBound(b, before, i + 1); // local.tee passes the value through
  return -1;
}

/** Whether the access of `site` provably ends within the first `initialBytes` of the memory. */
export function provedWithin(b: Uint8Array, site: Site, initialBytes: number): boolean {
  const i = addressProducer(b, site);
  if (i < 0) return false;
  const bound = addressBound(b, site.before!, i);
  if (bound < 0) return false;
  return bound + memargOffset(b, site.memarg) + atomicShape(site.op!).size <= initialBytes; // < 2^34: exact in a double
}

/** The local that pushes the address, when the check can read it again (the first form); else -1. */
export function addressLocal(b: Uint8Array, site: Site): number {
  const i = addressProducer(b, site);
  if (i < 0) return -1;
  const at = site.before![i]!;
  if (b[at] !== 0x20) return -1;
  u32At(b, at + 1);
  return value;
}

/** Locals a body needs for the second form: the address, and i32 / i64 values. */
export interface ScratchLocals { address: number; i32: number[]; i64: number[] }

/** Appends n (>= 0) as an unsigned LEB128. */
function pushUleb(out: number[], n: number): void {
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
}

/** Appends n (0 <= n < 2^53) as a signed LEB128. */
function pushSleb(out: number[], n: number): void {
  for (;;) {
    const byte = n % 128;
    n = Math.floor(n / 128);
    if (n === 0 && !(byte & 0x40)) { out.push(byte); return; }
    out.push(byte | 0x80);
  }
}

const uleb = (n: number): number[] => { const out: number[] = []; pushUleb(out, n); return out; };

/** Where the check's inputs are: the global `known`, the function `refresh`. */
export interface GuardRefs { known: number; refresh: number }

/**
 * The bytes that replace the atomic instruction of `site` (its bytes included): the check, then
 * the instruction. The first form reads the address from `local` (addressLocal); the second
 * (local -1) saves the operands to `scratch` first.
 */
export function inlineGuard(b: Uint8Array, site: Site, refs: GuardRefs, local: number, scratch?: ScratchLocals): number[] {
  const shape = atomicShape(site.op!);
  const out: number[] = [];
  const values = local >= 0 ? [] : (shape.valueType === I64 ? scratch!.i64 : scratch!.i32).slice(0, shape.values);
  for (let i = values.length - 1; i >= 0; i--) { out.push(0x21); pushUleb(out, values[i]!); } // local.set, last operand first
  out.push(local >= 0 ? 0x20 : 0x22); // local.get L, or local.tee the address
  pushUleb(out, local >= 0 ? local : scratch!.address);
  // i64(a) + offset + size > known ? call refresh
  out.push(0xad /* i64.extend_i32_u */, 0x42);
  pushSleb(out, memargOffset(b, site.memarg) + shape.size);
  out.push(0x7c /* i64.add */, 0x23);
  pushUleb(out, refs.known);
  out.push(0x56 /* i64.gt_u */, 0x04, 0x40, 0x10);
  pushUleb(out, refs.refresh);
  out.push(0x0b);
  if (local < 0) {
    out.push(0x20);
    pushUleb(out, scratch!.address);
    for (const l of values) { out.push(0x20); pushUleb(out, l); }
  }
  for (let p = site.at; p < site.end; p++) out.push(b[p]!);
  return out;
}

/** The body of the inserted `refresh` function: known = memory.grow(0) * 64 KiB. */
export function refreshBody(known: number): number[] {
  return [0x00 /* no locals */, 0x41, 0x00, 0x40, 0x00 /* memory.grow 0 (by 0 pages) */, 0xad, 0x42, 16, 0x86 /* i64.shl */,
    0x24, ...uleb(known), 0x0b];
}

/** The type of `refresh`: [] -> []. */
export const REFRESH_TYPE = [0x60, 0, 0];

export { I32, I64 };
