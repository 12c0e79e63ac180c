/**
 * Reads a module's function imports together with the names the `name` custom section gives
 * them (the linker's symbol names: `__imported_wasi_snapshot_preview1_fd_write` for wasi-libc's,
 * `spindle_wasi_fs::host::fd_write` for spindle's forwarders). Only the import section (id 2)
 * and the custom section `name` (subsection 1, function names) are parsed; the rest is skipped.
 * Works on bytes alone (no compilation), so it also serves the `spindle check` command.
 */
import { isWasm, Reader } from './wasm-imports.js';

export interface NamedImport {
  module: string;
  name: string;
  /** Function index (imports come first in the function index space). */
  index: number;
  /** The function's name from the name section, if the module has one that names it. */
  symbol: string | undefined;
}

export interface FunctionImports {
  imports: NamedImport[];
  /** Whether the module has a name section with function names at all. */
  hasNames: boolean;
}

/** Lists the function imports of `bytes` with their name-section names. Throws RangeError on a
 * malformed or non-wasm binary. */
export function readFunctionImports(bytes: Uint8Array): FunctionImports {
  if (!isWasm(bytes)) {
    throw new RangeError('not a WebAssembly module (bad magic number)');
  }
  const r = new Reader(bytes);
  r.pos = 8;
  const imports: NamedImport[] = [];
  const names = new Map<number, string>();
  let hasNames = false;
  while (r.pos < r.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (end > r.length) throw new RangeError('truncated module');
    if (id === 2) readImports(r, imports);
    else if (id === 0) {
      const section = r.name();
      if (section === 'name') hasNames = readFunctionNames(r, end, names) || hasNames;
    }
    r.pos = end;
  }
  for (const imp of imports) imp.symbol = names.get(imp.index);
  return { imports, hasNames };
}

function readImports(r: Reader, out: NamedImport[]): void {
  const count = r.u32();
  let index = 0;
  for (let i = 0; i < count; i++) {
    const module = r.name();
    const name = r.name();
    const kind = r.byte();
    switch (kind) {
      case 0: r.u32(); out.push({ module, name, index: index++, symbol: undefined }); break;
      case 1: r.byte(); skipLimits(r); break;
      case 2: skipLimits(r); break;
      case 3: r.byte(); r.byte(); break;
      case 4: r.byte(); r.u32(); break;
      default: throw new RangeError(`unknown import kind ${kind}`);
    }
  }
}

function skipLimits(r: Reader): void {
  const flags = r.byte();
  r.u32();
  if (flags & 0x01) r.u32();
}

/** Subsection 1 of the name section: a vector of (function index, name). */
function readFunctionNames(r: Reader, end: number, names: Map<number, string>): boolean {
  let found = false;
  while (r.pos < end) {
    const sub = r.byte();
    const size = r.u32();
    const subEnd = r.pos + size;
    if (sub === 1) {
      found = true;
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        const idx = r.u32();
        names.set(idx, r.name());
      }
    }
    r.pos = subEnd;
  }
  return found;
}
