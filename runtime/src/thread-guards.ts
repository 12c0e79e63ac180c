/**
 * Load-time rewrites that make threaded programs safe on V8, applied to a module whose memory 0
 * is shared (load.ts: threaded programs; fs/memfs.ts: the memory FS module).
 *
 * 1. The growth guard. V8 refreshes a thread's view of a shared memory's size lazily. A thread
 *    that runs `memory.fill`/`memory.copy`/`memory.init` (memset/memcpy in wasi-libc) over memory
 *    another thread has just grown traps with "memory access out of bounds"
 *    (tests/guests/c/grow_consumer.c: every run, in both tiers, Node 20-26 and Chromium). A
 *    `memory.grow(0)` executed by that thread refreshes its view (a `memory.size` does not). One
 *    costs 250-640 ns, so it runs only when an operation reaches past the highest end this thread
 *    has seen. Every memory.fill/copy/init on memory 0 becomes a `call` of an inserted guard with
 *    the same operands and no result:
 *
 *      guard(d, v|s, n):  if (d + n > known  [copy: or s + n > known])  known = memory.grow(0) * 64 KiB
 *                         memory.fill / memory.copy / memory.init SEG   (the original operation)
 *
 *    `known` is an inserted mutable i64 global, initialised to the memory's declared initial
 *    size. Globals are per instance and each thread is its own instance, so `known` is per
 *    thread. Memory only grows, so a size once seen stays true. d + n is computed in i64: no wrap.
 *
 *    The same holds for atomic accesses (V8 bounds-checks them against the thread's view too): a
 *    thread woken from a futex wait that touched another thread's wait node, in pages grown after
 *    its view was last refreshed, trapped in musl's pthread_cond_wait (`memory.atomic.notify`;
 *    512 blocked threads, 1 run in 3 on a loaded 2-core machine). So every atomic access on
 *    memory 0 (notify, load, store, read-modify-write, compare-exchange) gets the same check,
 *    written inline before the instruction (atomic-guards.ts: a call per access cost the caller
 *    its registers, 1.27x the time of spindle-alloc's malloc/free ring), except where the address
 *    is provably within the memory's initial size (static variables, masked indexes into static
 *    tables):
 *
 *      if (a + offset + size > known)  call refresh        ;; known = memory.grow(0) * 64 KiB
 *      the original atomic instruction
 *
 *    A wait gets the check inside its wrapper (below). A body whose locals would pass V8's limit
 *    keeps a call of a guard function per atomic access instead (one per instruction and memarg).
 *
 * 2. The wait wrapper. V8 11.3's baseline compiler (Liftoff, Node 20) loses the locals it keeps
 *    in registers across `memory.atomic.wait32/64` (checked: a local set before the wait reads 0
 *    after it; V8 12.4 is right). Rust's `thread::park` then compare-exchanges a wrong address
 *    forever: std's channels hang on Node 20 in the baseline tier, on the emnapi stack too. A
 *    call is a point where Liftoff saves its registers, so every wait becomes a `call` of an
 *    inserted function that does the same wait (one per distinct memarg) and returns its result.
 *    It costs one call per wait, on a path that blocks anyway.
 *
 * 3. The wait hook. A thread that runs on the embedder's own thread (Node's calling-thread mode:
 *    `spindle run --main-thread`, `runOnCallingThread`) cannot be stopped from outside: when
 *    another thread ends the program (exit(), a trap) while it blocks in a wait (pthread_join),
 *    nothing would ever wake it. So the wrapper reads an inserted mutable i32 global, exported
 *    as HOOKED_EXPORT (0 in every instance but that one): when set, the wait is a `call_indirect`
 *    through an inserted table of 2 entries, exported as HOOKS_EXPORT (0: wait32, 1: wait64),
 *    that wait-hook.ts fills with a wait that returns to JS between slices and ends the thread
 *    once the program has ended. Other threads pay a global.get and a branch per wait.
 *
 * 4. The tail-call count. On Node 24 and 26 (V8 13.6, 14.6) `worker.terminate()` never ends a
 *    thread that spins through a cycle of tail calls (functions that only `return_call` each
 *    other: no loop back edge, no entry check V8 stops at), and `process.exit()` then waits for
 *    that worker forever: a program whose thread spins like that hung at its end
 *    (docs/known-issues/v8-tail-call-terminate.md; tests/guests/c/forever_tail.c). So in a module
 *    with a tail call (`return_call`, `return_call_indirect`, `return_call_ref`), each one
 *    counts down an inserted per-instance i32 global first, with preempt.ts's check (budget-code.ts:
 *    the `if` hinted unlikely), and every TAIL_INTERVAL of them makes a real call, through a table:
 *
 *      global.get $tail  i32.eqz  if  call_indirect $ticks[0] ()  end                  (before each
 *      global.get $tail  i32.const 1  i32.sub  global.set $tail                          tail call)
 *      return_call f                                                        (the original call)
 *
 *      $tick:  $tail = TAIL_INTERVAL                  $ticks: [$tick], an appended table
 *
 *    Where V8 stops the thread: a direct `call` was not enough in the default tiers, even of a
 *    function with a call in it (inlined, callee and all: checked on Node 24 and 26); a call
 *    through a table is (the worker ended in 2-3 ms, both tiers), and keeps $tick out of the
 *    caller. TAIL_INTERVAL (2^14): ~16 µs between two ticks at ~1 ns per tail call; the tick's
 *    cost is nothing next to the countdown's (bench/results/tail-terminate-2026-11-27).
 *    A custom section `spindle.tail-count` names $tick: the preemptible compile of hosted threads
 *    (preempt.ts) then counts those tail calls in $tick, TAIL_INTERVAL at a time, instead of a
 *    second count per call. Only modules with a tail call pay; one without is rewritten byte for
 *    byte as before (the guests and large modules were compared: only the marker's version differs).
 *    Finding that a module has none walks every body, unless its `target_features` section (the
 *    toolchain's list of the features it used) leaves tail calls out (`declaresNoTailCalls`).
 *
 * Invariants of the rewrite: nothing is renumbered (the new types, functions, globals and the
 * hook's table and exports are appended after the existing ones; scratch locals after a body's own;
 * the tail count's type, $tick, its global, table and element segment after those). A `call` that fits in
 * the bytes of the instruction it replaces is written in place, padded with `nop`, so a body
 * with only bulk operations and waits keeps its size and byte offsets. A body with an inline
 * check, or a call that cannot fit (memory.fill is 3 bytes: a module with 16,384 functions or
 * more), is re-encoded: its code offsets move (DWARF and trap offsets then refer to the
 * rewritten module), and branch-hint sections, whose offsets would be stale, are dropped. A body the walker cannot follow
 * (wasm-code.ts) leaves the whole module unchanged. The tail count is a second pass over the
 * guarded module (budget-code.ts): it re-encodes the bodies with a tail call (their code offsets
 * move; the module's branch hints move with their `if`s, and ours are added) and copies every other body as it is. A
 * rewritten module carries a custom section `spindle.thread-guards`; such a module is not
 * rewritten twice.
 */
import { addressLocal, atomicShape, inlineGuard, memargOffset, provedWithin, REFRESH_TYPE, refreshBody, type GuardRefs,
  type ScratchLocals } from './atomic-guards.js';
import { appendEntries, budgetCode, customName, rank, withSections } from './budget-code.js';
import { budgetPoints, CodeError, sitesOf, SiteKind, type Site } from './wasm-code.js';
import { concat, exportEntry, KIND, nameBytes, section, sleb, uleb } from './wasm-module-bytes.js';

export { appendEntries, customName, rank };

export interface GuardResult {
  /** The rewritten module, or the original bytes when nothing was rewritten. */
  bytes: Uint8Array;
  /** Bulk memory instructions now guarded. */
  bulk: number;
  /** Atomic waits now wrapped (and guarded). */
  waits: number;
  /** Other atomic accesses now guarded (a check written inline, atomic-guards.ts). */
  atomics: number;
  /** Atomic accesses left as they were: provably within the memory's initial size. */
  elided: number;
  /** Function bodies that contained them. */
  functions: number;
  /** Tail calls (return_call, return_call_indirect, return_call_ref) now counted (file comment, 4). */
  tailCalls: number;
  /** Why the module was left unchanged, when it was. */
  unchanged?: string;
  /**
   * The key the result is kept under across runs (platform/node/guard-cache.ts: a hash of the
   * module's bytes and of the runtime), when it went through that cache.
   */
  key?: string;
  /**
   * With `unchanged`: true when every body was walked and none holds a wait (no site at all,
   * or every atomic access provably in bounds) or the module was rewritten before, so the module
   * has no wait outside the wrapper. Absent when a wait may be left as the raw instruction
   * (a body the walker cannot follow, an unreadable module): such a program's threads must not
   * be hosted, where a raw wait would block every thread of its host worker (host-worker.ts).
   */
  walked?: boolean;
}

/** The custom section that marks a module as rewritten. */
const MARKER = 'spindle.thread-guards';
/** The exports of the wait hook (file comment, 3): the table of hooks and the global that turns them on. */
export const HOOKS_EXPORT = 'spindle.wait-hooks';
export const HOOKED_EXPORT = 'spindle.wait-hooked';
/** The rewrite's version, written in the marker; a change of what the rewrite produces bumps it
 * (platform/node/guard-cache.ts keys its entries by it). */
export const GUARD_VERSION = 6; // 3: atomic accesses guarded too; 4: their check inline, none where provably in bounds; 5: the wait hook; 6: tail calls counted
/** The custom section that locates the tail-call count (file comment, 4): the tick's function index and TAIL_INTERVAL. */
const TAIL_COUNT = 'spindle.tail-count';
/** The toolchain's custom section of the features a module uses (`declaresNoTailCalls`); '-' marks one it must not use. */
const TARGET_FEATURES = 'target_features', DISALLOWED = 0x2d;
/** Tail calls between two calls of the tick (file comment, 4). */
export const TAIL_INTERVAL = 1 << 14;

const PAGE_SHIFT = 16n;

export interface Section { id: number; /** content */ start: number; end: number; /** section id byte */ head: number }

export interface Layout {
  sections: Section[];
  types: number;
  /** Parameters of each type (-1: not a function type). */
  typeParams: number[];
  /** The type index of each defined function. */
  funcTypes: number[];
  importedFuncs: number;
  importedGlobals: number;
  importedTables: number;
  definedTables: number;
  /** Memory 0: imported or defined. */
  memory: { shared: boolean; is64: boolean; initial: bigint } | undefined;
  definedFuncs: number;
  definedGlobals: number;
  code: Section | undefined;
  /** The module carries the MARKER custom section. */
  marked: boolean;
  /** The TAIL_COUNT custom section, when the module has one. */
  tailCount: Section | undefined;
  /** The `target_features` custom section (the features the toolchain used), when the module has one. */
  features: Section | undefined;
}

/** Adds the growth guard, the wait wrapper (and hook) and the tail-call count to `bytes` (see the file comment). Never throws. */
export function guardThreads(bytes: Uint8Array): GuardResult {
  const r = guardSites(bytes);
  // Left as it is: unreadable, not threaded, a body the walker cannot follow, or rewritten before.
  if ((r.unchanged !== undefined && !r.walked) || r.unchanged === ALREADY) return r;
  const guarded = r.unchanged === undefined ? r.bytes : bytes;
  let counted: { bytes: Uint8Array; tailCalls: number } | undefined;
  try { counted = countTailCalls(guarded, r.unchanged !== undefined); } catch (e) {
    if (e instanceof CodeError || e instanceof RangeError) return unchangedResult(bytes, `a function body could not be walked: ${e.message}`);
    throw e;
  }
  if (!counted) return r;
  const { unchanged: _u, walked: _w, ...counts } = r;
  return { ...counts, bytes: counted.bytes, tailCalls: counted.tailCalls };
}

const ALREADY = 'already rewritten';
const unchangedResult = (bytes: Uint8Array, why: string): GuardResult => ({ bytes, bulk: 0, waits: 0, atomics: 0, elided: 0, functions: 0, tailCalls: 0, unchanged: why });

/** The growth guard, the wait wrapper and hook (file comment, 1-3). */
function guardSites(bytes: Uint8Array): GuardResult {
  const unchanged = (why: string): GuardResult => unchangedResult(bytes, why);
  let layout: Layout;
  try { layout = readLayout(bytes); } catch (e) { return unchanged(`unreadable module: ${(e as Error).message}`); }
  const mem = layout.memory;
  if (!mem || !mem.shared) return unchanged('memory 0 is not shared');
  if (mem.is64) return unchanged('memory 0 is a 64-bit memory');
  if (layout.marked) return { ...unchanged(ALREADY), walked: true };
  if (!layout.code) return unchanged('no code');
  let bodies: Body[];
  try { bodies = guardedBodies(bytes, layout.code); } catch (e) {
    if (e instanceof CodeError || e instanceof RangeError) return unchanged(`a function body could not be walked: ${e.message}`);
    throw e;
  }
  if (bodies.length === 0) return { ...unchanged('no bulk memory instruction or atomic access on memory 0'), walked: true };
  bodies.forEach((body) => planBody(bytes, layout, body));
  const count = (is: (s: Site, how: How) => boolean): number => bodies.reduce((n, b) => n + b.sites.filter((s, k) => is(s, b.how[k]!)).length, 0);
  const elided = count((_s, how) => how === How.Kept);
  const changed = bodies.filter((body) => body.how.some((how) => how !== How.Kept));
  if (changed.length === 0) return { ...unchanged('every atomic access on memory 0 is provably within its initial size'), elided, walked: true };
  return {
    bytes: emit(bytes, layout, changed),
    bulk: count((s) => !isWait(s) && !isAtomic(s)), waits: count(isWait), atomics: count((s, how) => isAtomic(s) && how !== How.Kept),
    elided, functions: changed.length, tailCalls: 0,
  };
}

// ---- reading ----------------------------------------------------------------------------------

export class Cursor {
  constructor(readonly b: Uint8Array, public pos: number) {}
  byte(): number {
    if (this.pos >= this.b.length) throw new RangeError('truncated module');
    return this.b[this.pos++]!;
  }
  u32(): number {
    let r = 0, shift = 0, byte;
    do { byte = this.byte(); if (shift < 35) r += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
    return r;
  }
  u64(): bigint {
    let r = 0n, shift = 0n, byte;
    do { byte = this.byte(); r |= BigInt(byte & 0x7f) << shift; shift += 7n; } while (byte & 0x80);
    return r;
  }
  leb(): void { while (this.byte() & 0x80) { /* skip */ } }
  skipName(): void { const n = this.u32(); this.pos += n; }
  valType(): void { const t = this.byte(); if (t === 0x63 || t === 0x64) this.leb(); }
  /** Limits: returns [flags, initial]. */
  limits(): [number, bigint] {
    const flags = this.byte();
    const initial = this.u64();
    if (flags & 0x01) this.u64();
    return [flags, initial];
  }
}

export function readLayout(b: Uint8Array): Layout {
  const c = new Cursor(b, 8);
  const layout: Layout = {
    sections: [], types: 0, typeParams: [], funcTypes: [], importedFuncs: 0, importedGlobals: 0, importedTables: 0, definedTables: 0,
    memory: undefined, definedFuncs: 0, definedGlobals: 0,
    code: undefined, marked: false, tailCount: undefined, features: undefined,
  };
  while (c.pos < b.length) {
    const head = c.pos;
    const id = c.byte();
    const size = c.u32();
    const s: Section = { id, start: c.pos, end: c.pos + size, head };
    if (s.end > b.length) throw new RangeError('truncated section');
    layout.sections.push(s);
    const body = new Cursor(b, s.start);
    if (id === 1) layout.types = countTypes(body, layout.typeParams);
    else if (id === 2) readImports(body, layout);
    else if (id === 3) layout.funcTypes = funcTypes(body);
    else if (id === 4) layout.definedTables = body.u32();
    else if (id === 5 && !layout.memory && body.u32() > 0) layout.memory = memoryOf(body.limits());
    else if (id === 6) layout.definedGlobals = body.u32();
    else if (id === 10) layout.code = s;
    else if (id === 0) {
      const name = customName(b, s);
      if (name === MARKER) layout.marked = true;
      else if (name === TAIL_COUNT) layout.tailCount = s;
      else if (name === TARGET_FEATURES) layout.features = s;
    }
    c.pos = s.end;
  }
  layout.definedFuncs = layout.funcTypes.length;
  return layout;
}

function funcTypes(c: Cursor): number[] {
  const out = new Array<number>(c.u32());
  for (let i = 0; i < out.length; i++) out[i] = c.u32();
  return out;
}

function memoryOf([flags, initial]: [number, bigint]): Layout['memory'] {
  return { shared: (flags & 0x02) !== 0, is64: (flags & 0x04) !== 0, initial };
}

/** Types defined by the type section (a GC `rec` group defines several); their parameter counts go to `params`. */
function countTypes(c: Cursor, params: number[]): number {
  const entries = c.u32();
  let types = 0;
  for (let i = 0; i < entries; i++) {
    if (c.b[c.pos] === 0x4e) { // rec
      c.pos++;
      const n = c.u32();
      for (let k = 0; k < n; k++) params.push(subType(c));
      types += n;
    } else {
      params.push(subType(c));
      types++;
    }
  }
  return types;
}

/** Reads one (sub)type; returns its parameter count, -1 for a struct or array. */
function subType(c: Cursor): number {
  const b = c.b[c.pos];
  if (b === 0x50 || b === 0x4f) { // sub / sub final: supertypes, then the composite type
    c.pos++;
    const n = c.u32();
    for (let i = 0; i < n; i++) c.u32();
  }
  const kind = c.byte();
  if (kind === 0x60) { // func
    const params = c.u32();
    for (let i = params; i > 0; i--) c.valType();
    for (let i = c.u32(); i > 0; i--) c.valType();
    return params;
  } else if (kind === 0x5f) { // struct
    for (let i = c.u32(); i > 0; i--) { c.valType(); c.byte(); }
  } else if (kind === 0x5e) { // array
    c.valType(); c.byte();
  } else {
    throw new RangeError(`unknown type form 0x${kind.toString(16)}`);
  }
  return -1;
}

function readImports(c: Cursor, layout: Layout): void {
  for (let i = c.u32(); i > 0; i--) {
    c.skipName();
    c.skipName();
    const kind = c.byte();
    switch (kind) {
      case 0: c.u32(); layout.importedFuncs++; break;
      case 1: c.valType(); c.limits(); layout.importedTables++; break;
      case 2: { const limits = c.limits(); layout.memory ??= memoryOf(limits); break; }
      case 3: c.valType(); c.byte(); layout.importedGlobals++; break;
      case 4: c.byte(); c.u32(); break;
      default: throw new RangeError(`unknown import kind ${kind}`);
    }
  }
}

/**
 * A function body with sites: `head` is where its size LEB starts, `start` its content. `how`
 * (one per site) and `locals` are planBody's.
 */
interface Body {
  index: number; head: number; start: number; end: number; sites: Site[]; how: How[];
  /** Inline checks of the second form: the appended locals, and the new local declarations. */
  locals?: { scratch: ScratchLocals; declarations: number[]; instructions: number };
}

/** What becomes of a site: a call of an inserted function, a check written inline, or nothing. */
const enum How { Call, Inline, Kept }

/** V8's limit on a function's locals (parameters included). */
const MAX_LOCALS = 50_000;

/**
 * Chooses how each site of `body` is rewritten: an atomic access gets nothing when provably
 * within the initial memory, else a check inline (atomic-guards.ts); a wait and a bulk operation
 * a call. A body whose locals would pass V8's limit keeps calls for its atomic accesses.
 */
function planBody(b: Uint8Array, layout: Layout, body: Body): void {
  const initialBytes = Number(layout.memory!.initial << PAGE_SHIFT);
  body.how = body.sites.map((s) => (!isAtomic(s) ? How.Call : provedWithin(b, s, initialBytes) ? How.Kept : How.Inline));
  const scratchSites = body.sites.filter((s, k) => body.how[k] === How.Inline && addressLocal(b, s) < 0);
  if (scratchSites.length === 0) return;
  const most = (type: number): number => Math.max(0, ...scratchSites.map((s) => atomicShape(s.op!)).filter((sh) => sh.valueType === type).map((sh) => sh.values));
  const n32 = 1 + most(I32), n64 = most(I64);
  const c = new Cursor(b, body.start);
  const groups = c.u32();
  const firstGroup = c.pos;
  let declared = 0;
  for (let g = 0; g < groups; g++) { declared += c.u32(); c.valType(); }
  const params = layout.typeParams[layout.funcTypes[body.index] ?? -1] ?? -1;
  const base = params + declared;
  if (params < 0 || base + n32 + n64 > MAX_LOCALS) {
    body.how = body.how.map((how) => (how === How.Inline ? How.Call : how));
    return;
  }
  const run = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);
  const declarations = [...uleb(groups + (n64 ? 2 : 1)), ...b.subarray(firstGroup, c.pos), ...uleb(n32), I32, ...(n64 ? [...uleb(n64), I64] : [])];
  body.locals = { scratch: { address: base, i32: run(base + 1, n32 - 1), i64: run(base + n32, n64) }, declarations, instructions: c.pos };
}

const isWait = (s: Site): boolean => s.kind === SiteKind.Wait32 || s.kind === SiteKind.Wait64;
const isAtomic = (s: Site): boolean => s.kind === SiteKind.Atomic;

/** The bodies of the code section that contain bulk operations on memory 0. */
function guardedBodies(b: Uint8Array, code: Section): Body[] {
  const c = new Cursor(b, code.start);
  const out: Body[] = [];
  const count = c.u32();
  for (let i = 0; i < count; i++) {
    const head = c.pos;
    const size = c.u32();
    const start = c.pos, end = c.pos + size;
    if (end > code.end) throw new RangeError('truncated function body');
    const sites = sitesOf(b, start, end).filter((site) => site.memories.every((m) => m === 0));
    if (sites.length) out.push({ index: i, head, start, end, sites, how: [] });
    c.pos = end;
  }
  return out;
}

// ---- writing ----------------------------------------------------------------------------------

const I32 = 0x7f;
const I64 = 0x7e;

/** An inserted function: a guarded bulk operation or a wrapped wait (one per distinct memarg). */
interface Guard { key: string; site: Site; index: number }

/** Guards that share a key share a function. */
function keyOf(b: Uint8Array, site: Site): string {
  if (site.kind === SiteKind.Init) return `init${site.segment}`;
  if (isWait(site) || isAtomic(site)) return `atomic${site.op}:${b.subarray(site.memarg, site.end).join(',')}`;
  return String(site.kind);
}

/** Assigns an inserted function to every distinct key used; returns them in index order. */
function guardsFor(b: Uint8Array, bodies: Body[], firstIndex: number): Map<string, Guard> {
  const guards = new Map<string, Guard>();
  for (const body of bodies) {
    for (const [k, site] of body.sites.entries()) {
      if (body.how[k] !== How.Call) continue;
      const key = keyOf(b, site);
      if (!guards.has(key)) guards.set(key, { key, site, index: firstIndex + guards.size });
    }
  }
  return guards;
}

/** The function types the inserted functions use, appended to the type section. */
const BULK_TYPE = [0x60, 3, I32, I32, I32, 0];
const WAIT32_TYPE = [0x60, 3, I32, I32, I64, 1, I32];
const WAIT64_TYPE = [0x60, 3, I32, I64, I64, 1, I32];
const typeOf = (site: Site): number[] => (site.kind === SiteKind.Wait32 ? WAIT32_TYPE : site.kind === SiteKind.Wait64 ? WAIT64_TYPE
  : isAtomic(site) ? atomicShape(site.op!).type : BULK_TYPE);

/** What a wait wrapper needs of the wait hook (file comment, 3): the global, the table, and the wrapper's own type index. */
interface HookRefs { hooked: number; table: number; typeOf: (site: Site) => number }

/** The body of an inserted function. */
function guardBody(b: Uint8Array, g: Guard, known: number, hook: HookRefs): number[] {
  const get = (i: number): number[] => [0x20, i];
  const args = [...get(0), ...get(1), ...get(2)];
  const site = g.site;
  const extend = 0xad; // i64.extend_i32_u
  const refresh = [0x41, 0x00, 0x40, 0x00 /* memory.grow 0 (by 0 pages) */, extend, 0x42, ...sleb(PAGE_SHIFT), 0x86 /* i64.shl */, 0x24, ...uleb(known)];
  if (isWait(site) || isAtomic(site)) {
    // a + offset + size, in i64 (no wrap); the operands again, then the original instruction.
    const size = isWait(site) ? (site.kind === SiteKind.Wait32 ? 4 : 8) : atomicShape(site.op!).size;
    const params = (isWait(site) ? WAIT32_TYPE : atomicShape(site.op!).type)[1]!;
    const test = [...get(0), extend, 0x42, ...sleb(BigInt(memargOffset(b, site.memarg)) + BigInt(size)), 0x7c, 0x23, ...uleb(known), 0x56];
    const operands = Array.from({ length: params }, (_, i) => get(i)).flat();
    const instruction = [...operands, 0xfe, ...uleb(site.op!), ...b.subarray(site.memarg, site.end)];
    if (!isWait(site)) return [0x00 /* no locals */, ...test, 0x04, 0x40, ...refresh, 0x0b, ...instruction, 0x0b];
    // if (hooked) call_indirect hooks[0 | 1](operands) else the wait
    const slot = site.kind === SiteKind.Wait32 ? 0 : 1;
    const hooked = [...operands, 0x41, slot, 0x11, ...uleb(hook.typeOf(site)), ...uleb(hook.table)];
    return [0x00, ...test, 0x04, 0x40, ...refresh, 0x0b, 0x23, ...uleb(hook.hooked), 0x04, I32, ...hooked, 0x05, ...instruction, 0x0b, 0x0b];
  }
  const reach = (ptr: number[]): number[] => [...ptr, extend, ...get(2), extend, 0x7c /* i64.add */, 0x23, ...uleb(known), 0x56 /* i64.gt_u */];
  // copy reaches max(d, s) + n
  const maxDs = [...get(0), ...get(1), ...get(0), ...get(1), 0x4b /* i32.gt_u */, 0x1b /* select */];
  const test = site.kind === SiteKind.Copy ? reach(maxDs) : reach(get(0));
  const operation = site.kind === SiteKind.Fill ? [0xfc, SiteKind.Fill, 0x00]
    : site.kind === SiteKind.Copy ? [0xfc, SiteKind.Copy, 0x00, 0x00]
      : [0xfc, SiteKind.Init, ...uleb(site.segment), 0x00];
  return [0x00 /* no locals */, ...test, 0x04, 0x40, ...refresh, 0x0b, ...args, ...operation, 0x0b];
}

/**
 * What replaces each site, in order, for every body: a `call` (nop-padded to the instruction's
 * length when it fits), the inline check and the instruction, or null (the site stays).
 */
function replacementsFor(b: Uint8Array, bodies: Body[], guards: Map<string, Guard>, refs: GuardRefs): (number[] | null)[][] {
  const encoded = new Map<string, number[]>();
  for (const [key, g] of guards) encoded.set(key, [0x10, ...uleb(g.index)]);
  return bodies.map((body) => body.sites.map((site, k) => {
    const how = body.how[k]!;
    if (how === How.Kept) return null;
    if (how === How.Inline) { const local = addressLocal(b, site); return inlineGuard(b, site, refs, local, local < 0 ? body.locals!.scratch : undefined); }
    const call = encoded.get(keyOf(b, site))!;
    const room = site.end - site.at;
    if (call.length >= room) return call;
    const padded = call.slice();
    while (padded.length < room) padded.push(0x01 /* nop */);
    return padded;
  }));
}

/** Writes `call` over the instruction [at, end) and pads the rest with `nop`. */
function patchCall(out: Uint8Array, at: number, end: number, call: readonly number[]): void {
  for (let i = 0; i < call.length; i++) out[at + i] = call[i]!;
  out.fill(0x01 /* nop */, at + call.length, end);
}


function emit(b: Uint8Array, layout: Layout, bodies: Body[]): Uint8Array {
  const guardMap = guardsFor(b, bodies, layout.importedFuncs + layout.definedFuncs);
  const guards = [...guardMap.values()];
  const known = layout.importedGlobals + layout.definedGlobals;
  // The inline checks' refresh function comes after the guards, when a check is inline.
  const inline = bodies.some((body) => body.how.includes(How.Inline));
  const refs: GuardRefs = { known, refresh: layout.importedFuncs + layout.definedFuncs + guards.length };
  const addedTypes = [...guards.map((g) => typeOf(g.site)), ...(inline ? [REFRESH_TYPE] : [])];
  const newTypes = [...new Set(addedTypes)];
  const find = (id: number): Section | undefined => layout.sections.find((s) => s.id === id);

  const initial = layout.memory!.initial << PAGE_SHIFT;
  const globalEntry = [I64, 0x01, 0x42, ...sleb(initial), 0x0b];
  // The wait hook (file comment, 3), when there is a wait: a global after `known`, a table after the module's.
  const waits = guards.some((g) => isWait(g.site));
  const typeIndex = (type: number[]): number => layout.types + newTypes.indexOf(type);
  const hook: HookRefs = { hooked: known + 1, table: layout.importedTables + layout.definedTables, typeOf: (site) => typeIndex(typeOf(site)) };
  const hookGlobal = [I32, 0x01, 0x41, 0x00, 0x0b];
  const hookTable = [0x70 /* funcref */, 0x00, 2];
  const hookExports = [exportEntry(HOOKS_EXPORT, KIND.table, hook.table), exportEntry(HOOKED_EXPORT, KIND.global, hook.hooked)];
  const added = [...guards.map((g) => guardBody(b, g, known, hook)), ...(inline ? [refreshBody(known)] : [])];
  const code = codeSection(b, layout.code!, bodies, replacementsFor(b, bodies, guardMap, refs), added);
  const whole = (content: Uint8Array): Parts => ({ parts: [content], length: content.length, resized: false });
  const replaced = new Map<number, Parts>([
    [1, whole(appendEntries(b, find(1), newTypes))],
    [3, whole(appendEntries(b, find(3), addedTypes.map((t) => uleb(typeIndex(t)))))],
    [6, whole(appendEntries(b, find(6), waits ? [globalEntry, hookGlobal] : [globalEntry]))],
    [10, code],
  ]);
  if (waits) {
    replaced.set(4, whole(appendEntries(b, find(4), [hookTable])));
    replaced.set(7, whole(appendEntries(b, find(7), hookExports)));
  }
  const out: (Uint8Array | number[])[] = [b.subarray(0, 8)];
  let offset = 8;
  const patches: [Parts, number][] = [];
  const push = (part: Uint8Array | number[]): void => { out.push(part); offset += part.length; };
  const pushSection = (id: number, content: Parts): void => {
    push([id, ...uleb(content.length)]);
    if (content.patch) patches.push([content, offset]);
    for (const part of content.parts) push(part);
  };
  // In section order: two sections may be added (globals and the hook's table).
  const pending = new Set([...replaced.keys()].sort((x, y) => rank(x) - rank(y)));
  for (const s of layout.sections) {
    // A section we add goes before the first standard section that must follow it.
    if (s.id !== 0) {
      for (const id of [...pending]) {
        if (!find(id) && rank(id) < rank(s.id)) { pushSection(id, replaced.get(id)!); pending.delete(id); }
      }
    }
    if (replaced.has(s.id)) {
      pushSection(s.id, replaced.get(s.id)!);
      pending.delete(s.id);
    } else if (s.id === 0) {
      const custom = customSection(b, s, code.resized, guards, inline ? refs.refresh : undefined);
      if (custom) push(custom);
    } else {
      push(b.subarray(s.head, s.end));
    }
  }
  for (const id of pending) pushSection(id, replaced.get(id)!);
  push(section(0, [...nameBytes(MARKER), GUARD_VERSION]));
  const module = concat(out);
  for (const [content, at] of patches) content.patch!(module, at);
  return module;
}

/** A section's new content as parts (not yet copied), and the writes to make once they are. */
interface Parts {
  parts: (Uint8Array | number[])[];
  length: number;
  /** Writes over the copied content, given the output offset where the content starts. */
  patch?: (out: Uint8Array, at: number) => void;
  /** A function body changed size. */
  resized: boolean;
}

/**
 * The new code section. When every call fits in place (the usual case), it is the old content,
 * copied once with the rest of the module, then patched: the calls written over the operations,
 * the guard bodies appended. Otherwise each changed body is re-encoded.
 */
function codeSection(b: Uint8Array, code: Section, bodies: Body[], replacements: (number[] | null)[][], added: number[][]): Parts {
  const c = new Cursor(b, code.start);
  const count = c.u32();
  const countBytes = uleb(count + added.length);
  const tail: number[][] = added.flatMap((body) => [uleb(body.length), body]);
  const sameSize = (body: Body, i: number): boolean => !body.locals
    && body.sites.every((op, k) => { const r = replacements[i]![k]; return !r || r.length === op.end - op.at; });
  if (bodies.every(sameSize)) {
    const parts = [countBytes, b.subarray(c.pos, code.end), ...tail];
    const shift = countBytes.length - c.pos; // an old position -> its offset in the new content
    const patchAll = (out: Uint8Array, at: number): void => {
      bodies.forEach((body, i) => body.sites.forEach((op, k) => {
        const r = replacements[i]![k];
        if (r) patchCall(out, at + shift + op.at, at + shift + op.end, r);
      }));
    };
    return { parts, length: lengthOf(parts), patch: patchAll, resized: false };
  }
  // Sizes first, then one copy into the new content (no list of pieces: a large module has tens
  // of thousands of sites).
  const sizes = bodies.map((body, i) => {
    let n = body.end - body.start;
    if (body.locals) n += body.locals.declarations.length - (body.locals.instructions - body.start);
    body.sites.forEach((op, k) => { const r = replacements[i]![k]; if (r) n += r.length - (op.end - op.at); });
    return n;
  });
  let length = countBytes.length + (code.end - c.pos) + lengthOf(tail);
  bodies.forEach((body, i) => { length += uleb(sizes[i]!).length + sizes[i]! - (body.end - body.head); });
  const out = new Uint8Array(length);
  let at = 0;
  const put = (part: Uint8Array | readonly number[]): void => { out.set(part, at); at += part.length; };
  const copy = (from: number, to: number): void => put(b.subarray(from, to));
  put(countBytes);
  let copyFrom = c.pos;
  bodies.forEach((body, i) => {
    copy(copyFrom, body.head);
    put(uleb(sizes[i]!));
    let from = body.start;
    if (body.locals) { put(body.locals.declarations); from = body.locals.instructions; }
    body.sites.forEach((op, k) => {
      const r = replacements[i]![k];
      if (r) { copy(from, op.at); put(r); from = op.end; }
    });
    copy(from, body.end);
    copyFrom = body.end;
  });
  copy(copyFrom, code.end);
  tail.forEach(put);
  return { parts: [out], length, resized: true };
}

function lengthOf(parts: readonly (Uint8Array | number[])[]): number {
  let n = 0;
  for (const p of parts) n += p.length;
  return n;
}

/**
 * A custom section as it goes into the rewritten module: the `name` section also names the guard
 * functions; branch hints are dropped when a body changed size (their offsets would be stale).
 */
function customSection(b: Uint8Array, s: Section, resized: boolean, guards: Guard[], refresh: number | undefined): Uint8Array | null {
  const c = new Cursor(b, s.start);
  const nameLen = c.u32();
  const name = customName(b, s);
  if (resized && name.startsWith('metadata.code.')) return null;
  if (name !== 'name') return b.subarray(s.head, s.end);
  try {
    return section(0, concat([b.subarray(s.start, c.pos + nameLen), namesWithGuards(b, c.pos + nameLen, s.end, guards, refresh)]));
  } catch {
    return b.subarray(s.head, s.end); // an unreadable name section stays as it was
  }
}


/** The name section's subsections, with the guard functions added to the function names (id 1). */
function namesWithGuards(b: Uint8Array, from: number, end: number, guards: Guard[], refresh: number | undefined): Uint8Array {
  const label = (site: Site): string => ({
    [SiteKind.Fill]: 'growth_guard.fill', [SiteKind.Copy]: 'growth_guard.copy', [SiteKind.Init]: `growth_guard.init${site.segment}`,
    [SiteKind.Wait32]: 'wait32', [SiteKind.Wait64]: 'wait64', [SiteKind.Atomic]: `growth_guard.atomic${site.op}`,
  })[site.kind];
  const entry = (index: number, name: string): number[] => [...uleb(index), ...nameBytes(`spindle.${name}`)];
  const entries = guards.map((g) => entry(g.index, label(g.site)));
  if (refresh !== undefined) entries.push(entry(refresh, 'growth_guard.refresh'));
  const parts: (Uint8Array | number[])[] = [];
  const c = new Cursor(b, from);
  let added = false;
  while (c.pos < end) {
    const head = c.pos;
    const id = c.byte();
    const size = c.u32();
    const subEnd = c.pos + size;
    if (subEnd > end) throw new RangeError('truncated name subsection');
    if (id === 1) {
      const content = appendEntries(b, { id, start: c.pos, end: subEnd, head }, entries);
      parts.push([1, ...uleb(content.length)], content);
      added = true;
    } else {
      if (id > 1 && !added) { const content = appendEntries(b, undefined, entries); parts.push([1, ...uleb(content.length)], content); added = true; }
      parts.push(b.subarray(head, subEnd));
    }
    c.pos = subEnd;
  }
  if (!added) { const content = appendEntries(b, undefined, entries); parts.push([1, ...uleb(content.length)], content); }
  return concat(parts);
}

// ---- the tail-call count (file comment, 4) ------------------------------------------------------

/**
 * `m` with a countdown before each of its tail calls and the tick it calls every TAIL_INTERVAL
 * of them (file comment, 4); the marker added when `mark`. Undefined when `m` has no tail call.
 * Throws CodeError or RangeError on a body the walker cannot follow.
 */
function countTailCalls(m: Uint8Array, mark: boolean): { bytes: Uint8Array; tailCalls: number } | undefined {
  const layout = readLayout(m);
  if (!layout.code || declaresNoTailCalls(m, layout.features) || !hasTailCall(m, layout.code)) return undefined;
  const tail = layout.importedGlobals + layout.definedGlobals;
  const tick = layout.importedFuncs + layout.definedFuncs;
  const table = layout.importedTables + layout.definedTables;
  const voidType = layout.types;
  const interval = sleb(BigInt(TAIL_INTERVAL));
  // global.get $tail  i32.eqz  if  call_indirect $ticks[0] ()  end  global.get $tail  i32.const 1  i32.sub  global.set $tail
  const check = [0x23, ...uleb(tail), 0x45, 0x04, 0x40, 0x41, 0x00, 0x11, ...uleb(voidType), ...uleb(table), 0x0b,
    0x23, ...uleb(tail), 0x41, 0x01, 0x6b, 0x24, ...uleb(tail)];
  // $tick: $tail = TAIL_INTERVAL
  const tickBody = [0x00, 0x41, ...interval, 0x24, ...uleb(tail), 0x0b];
  const code = budgetCode(m, layout, { loops: null, tails: check }, new Map(), [tickBody]);
  if (code.tailCalls === 0) return undefined;
  const find = (id: number): Section | undefined => layout.sections.find((s) => s.id === id);
  const sections = new Map<number, Uint8Array>([
    [1, appendEntries(m, find(1), [[0x60, 0, 0]])],
    [3, appendEntries(m, find(3), [uleb(voidType)])],
    [4, appendEntries(m, find(4), [[0x70, 0x01, 1, 1]])],
    [6, appendEntries(m, find(6), [[I32, 0x01, 0x41, ...interval, 0x0b]])],
    // An active segment for table `table` at offset 0: [$tick].
    [9, appendEntries(m, find(9), [[0x02, ...uleb(table), 0x41, 0x00, 0x0b, 0x00, 1, ...uleb(tick)]])],
    [10, code.code],
  ]);
  const custom = [section(0, [...nameBytes(TAIL_COUNT), ...uleb(tick), ...uleb(TAIL_INTERVAL)])];
  if (mark) custom.push(section(0, [...nameBytes(MARKER), GUARD_VERSION]));
  return { bytes: withSections(m, layout.sections, sections, code.hints, custom), tailCalls: code.tailCalls };
}

/**
 * Whether the module's `target_features` section leaves tail calls out. wasm-ld writes it with
 * every feature an input object used ('+'; C and Rust built with tail calls list `tail-call`,
 * e.g. tests/guests/c/spin_tail.c), and Binaryen keeps it: a module that lists its features
 * without tail calls has none, and the walk of every body looking for one (`hasTailCall`:
 * ~3.5 ms per MB of code in Node, ~50 ms of rolldown's load in a Chromium page, where the rewrite
 * runs every load) is skipped. Without the section, or with one that does not parse, the bodies
 * are walked.
 */
function declaresNoTailCalls(b: Uint8Array, features: Section | undefined): boolean {
  if (!features) return false;
  try {
    const c = new Cursor(b, features.start);
    c.skipName();
    for (let n = c.u32(); n > 0; n--) {
      const prefix = c.byte();
      const length = c.u32();
      if (c.pos + length > features.end) return false;
      const name = new TextDecoder().decode(b.subarray(c.pos, c.pos + length));
      c.pos += length;
      if (name === 'tail-call' && prefix !== DISALLOWED) return false;
    }
    return c.pos === features.end;
  } catch {
    return false;
  }
}

/** Whether a body of `code` has a tail call (the walk stops at the first body with one). */
function hasTailCall(b: Uint8Array, code: Section): boolean {
  const c = new Cursor(b, code.start);
  for (let n = c.u32(); n > 0; n--) {
    const size = c.u32();
    if (c.pos + size > code.end) throw new RangeError('truncated function body');
    if (budgetPoints(b, c.pos, c.pos + size, false).tailCalls.length > 0) return true;
    c.pos += size;
  }
  return false;
}

/**
 * Where a thread-guarded module counts its tail calls (preempt.ts counts them there too): the
 * tick's function index, its interval, and its body (locals and instructions). Undefined when
 * the module does not count them.
 */
export function tailCounting(b: Uint8Array, layout: Layout): { tick: number; interval: number; body: Uint8Array } | undefined {
  if (!layout.tailCount || !layout.code) return undefined;
  const c = new Cursor(b, layout.tailCount.start);
  c.skipName();
  const tick = c.u32(), interval = c.u32();
  const code = new Cursor(b, layout.code.start);
  const count = code.u32();
  for (let i = 0; i < count; i++) {
    const size = code.u32();
    if (i === tick - layout.importedFuncs) return { tick, interval, body: b.subarray(code.pos, code.pos + size) };
    code.pos += size;
  }
  return undefined;
}
