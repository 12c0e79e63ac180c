/**
 * Writing wasm bytes (the binary format: https://webassembly.github.io/spec/core/binary/): the
 * encodings the load-time rewrites append with (thread-guards.ts, preempt.ts), and the small
 * modules the runtime writes whole. Those are written only here, and their shapes are:
 *
 * - `funcrefModule(fns)`: for each `[name, sig]`, function i is the import `h.<name>` of type i
 *   (`sig`) and is exported as `<name>`; no code. The one way to make a JS function (or a
 *   suspending import: jspi.ts) a wasm function, which a funcref table can hold. wait-hook.ts:
 *   `w32` (i32, i32, i64) -> i32 and `w64` (i32, i64, i64) -> i32, its hook's table entries;
 *   host-worker.ts: `y` () -> (), the preemption hook's yield.
 * - `suspenderScopeModule()` (the earlier JSPI's scope, jspi.ts): global 0 (mut externref,
 *   exported `s`), table 0 of one funcref (`t`), and function 0, `enter` (externref, i32, i32)
 *   -> (), which stores its suspender in `s` and calls t[0](a, b). Its name section names the
 *   module `spindle` and function 0 `hosted_thread_entry`: a hosted thread's wasm backtrace ends
 *   with that frame (thread.ts describeTrap).
 * - `suspenderWrapperModule(sig)` (the earlier JSPI's suspending imports, jspi.ts): imports
 *   `h.s` (global, mut externref: a scope's `s`), `h.id` (global, i32) and `h.f` (function
 *   (externref, i32, ...params) -> results), and exports `w`, of type `sig`, which calls
 *   `h.f(global.get s, global.get id, ...its parameters)`.
 *
 * Invariants: every writer is a pure function of its arguments (the same arguments give the same
 * bytes: each module above is byte-identical to the literal it replaced, test/wasm-module-bytes
 * .test.mjs); sections come in the binary format's order; the names above are the only contract
 * with the instantiating files. Compile these modules once per thread (`compiledOnce`), not per
 * use: they are instantiated per thread factory or per import.
 *
 * Thread rules: no state here; `compiledOnce`'s module belongs to the thread (isolate) that
 * compiled it.
 */

/** A numeric value type: what a `Signature` is made of. */
export type NumType = 'i32' | 'i64' | 'f32' | 'f64';
export type ValueType = NumType | 'externref';

/** A wasm function type of the numeric types: parameters and results, e.g. `[['i32'], ['i32']]`. */
export type Signature = readonly [params: readonly NumType[], results: readonly NumType[]];

/** What an import or export entry names (the binary format's external kinds). */
export const KIND = { func: 0, table: 1, memory: 2, global: 3 } as const;

const TYPE_CODE: Record<ValueType, number> = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, externref: 0x6f };
const FUNCREF = 0x70;
/** The magic and version 1 that open every module. */
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

// ---- encodings ---------------------------------------------------------------------------------

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}

/** Signed LEB128. */
export function sleb(n: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(n & 0x7fn);
    n >>= 7n;
    if ((n === 0n && !(byte & 0x40)) || (n === -1n && byte & 0x40)) { out.push(byte); return out; }
    out.push(byte | 0x80);
  }
}

/** A name as the binary format writes it: its UTF-8 length, then its bytes. */
export function nameBytes(name: string): number[] {
  const n = new TextEncoder().encode(name);
  return [...uleb(n.length), ...n];
}

/** An export section entry: `name`, its kind (KIND) and index. */
export function exportEntry(name: string, kind: number, index: number): number[] {
  return [...nameBytes(name), kind, ...uleb(index)];
}

export function concat(parts: readonly (Uint8Array | number[])[]): Uint8Array<ArrayBuffer> {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

export function section(id: number, content: Uint8Array | number[]): Uint8Array<ArrayBuffer> {
  return concat([[id, ...uleb(content.length)], content]);
}

/** A vector: its length, then its entries. */
function vec(entries: readonly number[][]): number[] {
  return [...uleb(entries.length), ...entries.flat()];
}

/** `body` preceded by its size in bytes (a function body, a name subsection). */
function withSize(body: number[]): number[] {
  return [...uleb(body.length), ...body];
}

/** A type section entry: the function type (params) -> (results). */
function funcType(params: readonly ValueType[], results: readonly ValueType[]): number[] {
  return [0x60, ...vec(params.map((t) => [TYPE_CODE[t]])), ...vec(results.map((t) => [TYPE_CODE[t]]))];
}

/** An import section entry of module `h`: `name`, then its description (kind first). */
function importEntry(name: string, desc: number[]): number[] {
  return [...nameBytes('h'), ...nameBytes(name), ...desc];
}

// ---- the small modules (file comment) ----------------------------------------------------------

/** Functions `h.<name>` exported as `<name>`: JS functions as wasm functions (file comment). */
export function funcrefModule(fns: readonly (readonly [name: string, sig: Signature])[]): Uint8Array<ArrayBuffer> {
  return concat([
    HEADER,
    section(1, vec(fns.map(([, [params, results]]) => funcType(params, results)))),
    section(2, vec(fns.map(([name], i) => importEntry(name, [KIND.func, ...uleb(i)])))),
    section(7, vec(fns.map(([name], i) => exportEntry(name, KIND.func, i)))),
  ]);
}

/** The earlier JSPI's scope: `enter`, `s`, `t` (file comment). */
export function suspenderScopeModule(): Uint8Array<ArrayBuffer> {
  const enter = [
    0, // no locals
    0x20, 0, 0x24, 0, // global.set s (local 0: the suspender)
    0x20, 1, 0x20, 2, 0x41, 0, 0x11, 1, 0, // call_indirect t[0] of type 1 (a, b)
    0x0b,
  ];
  return concat([
    HEADER,
    section(1, vec([funcType(['externref', 'i32', 'i32'], []), funcType(['i32', 'i32'], [])])),
    section(3, vec([[0]])),
    section(4, vec([[FUNCREF, 0x00, 1]])), // min 1, no max
    section(6, vec([[TYPE_CODE.externref, 0x01, 0xd0, TYPE_CODE.externref, 0x0b]])), // mut, ref.null extern
    section(7, vec([exportEntry('enter', KIND.func, 0), exportEntry('s', KIND.global, 0), exportEntry('t', KIND.table, 0)])),
    section(10, vec([withSize(enter)])),
    // The name section: module name (subsection 0), function names (subsection 1).
    section(0, [...nameBytes('name'), 0, ...withSize(nameBytes('spindle')), 1, ...withSize(vec([[0, ...nameBytes('hosted_thread_entry')]]))]),
  ]);
}

/** A wrapper of type `sig` that passes a scope's suspender and an id first: `w` (file comment). */
export function suspenderWrapperModule(sig: Signature): Uint8Array<ArrayBuffer> {
  const [params, results] = sig;
  const w = [
    0, // no locals
    0x23, 0, 0x23, 1, // global.get s, global.get id
    ...params.flatMap((_, i) => [0x20, ...uleb(i)]),
    0x10, 0, // call h.f
    0x0b,
  ];
  return concat([
    HEADER,
    section(1, vec([funcType(params, results), funcType(['externref', 'i32', ...params], results)])),
    section(2, vec([
      importEntry('s', [KIND.global, TYPE_CODE.externref, 0x01]),
      importEntry('id', [KIND.global, TYPE_CODE.i32, 0x00]),
      importEntry('f', [KIND.func, 1]),
    ])),
    section(3, vec([[0]])),
    section(7, vec([exportEntry('w', KIND.func, 1)])),
    section(10, vec([withSize(w)])),
  ]);
}

/**
 * `build()`'s module, compiled at the first call and then kept: once per thread for a module-level
 * constant (each thread has its own module scope).
 */
export function compiledOnce(build: () => Uint8Array<ArrayBuffer>): () => WebAssembly.Module {
  let module: WebAssembly.Module | undefined;
  return () => (module ??= new WebAssembly.Module(build()));
}
