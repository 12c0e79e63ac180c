/**
 * Reads what the runtime needs to know about a module before instantiating it: its imports,
 * including the limits of an imported memory, which `WebAssembly.Module.imports()` does not
 * report. Parses only the binary import section (section id 2); of the others it notes only the
 * code section's size (id 10: the function bodies, what the compile policy weighs).
 */

export interface MemoryImport {
  module: string;
  name: string;
  /** In 64 KiB pages. */
  initial: number;
  maximum: number | undefined;
  shared: boolean;
}

export interface ImportSummary {
  memory: MemoryImport | undefined;
  /** Every import as "module.name". */
  all: { module: string; name: string; kind: string }[];
  /** Bytes of the code section (every function body), 0 without one. */
  codeBytes: number;
}

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

export function isWasm(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && WASM_MAGIC.every((b, i) => bytes[i] === b);
}

/** A cursor over a module's bytes: LEB128 u32s and length-prefixed UTF-8 names. Throws
 * RangeError when a read runs past the end. */
export class Reader {
  pos = 0;
  constructor(private readonly b: Uint8Array) {}
  get length(): number { return this.b.length; }
  get done(): boolean { return this.pos >= this.b.length; }
  byte(): number {
    if (this.pos >= this.b.length) throw new RangeError('truncated module');
    return this.b[this.pos++]!;
  }
  u32(): number {
    let result = 0, shift = 0, byte: number;
    do {
      byte = this.byte();
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return result;
  }
  name(): string {
    const len = this.u32();
    if (this.pos + len > this.b.length) throw new RangeError('truncated module');
    const s = new TextDecoder().decode(this.b.subarray(this.pos, this.pos + len));
    this.pos += len;
    return s;
  }
  skip(n: number): void { this.pos += n; }
}

const KIND = ['function', 'table', 'memory', 'global', 'tag'];

/** Summarises the imports of a module's bytes. Throws RangeError on a malformed binary. */
export function readImports(bytes: Uint8Array): ImportSummary {
  const r = new Reader(bytes);
  r.skip(8);
  const summary: ImportSummary = { memory: undefined, all: [], codeBytes: 0 };
  while (!r.done) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 2) readImportSection(r, summary);
    else if (id === 10) summary.codeBytes = size;
    r.pos = end;
  }
  return summary;
}

function readImportSection(r: Reader, summary: ImportSummary): void {
  const count = r.u32();
  for (let i = 0; i < count; i++) {
    const module = r.name();
    const name = r.name();
    const kind = r.byte();
    summary.all.push({ module, name, kind: KIND[kind] ?? 'unknown' });
    switch (kind) {
      case 0: r.u32(); break;                       // type index
      case 1: r.byte(); readLimits(r); break;       // reftype + limits
      case 2: summary.memory = { module, name, ...readLimits(r) }; break;
      case 3: r.byte(); r.byte(); break;            // valtype + mutability
      case 4: r.byte(); r.u32(); break;             // tag: attribute + type index
      default: throw new RangeError(`unknown import kind ${kind}`);
    }
  }
}

function readLimits(r: Reader): { initial: number; maximum: number | undefined; shared: boolean } {
  const flags = r.byte();
  const initial = r.u32();
  const maximum = flags & 0x01 ? r.u32() : undefined;
  return { initial, maximum, shared: (flags & 0x02) !== 0 };
}
