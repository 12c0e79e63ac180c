/**
 * Reads the memory import of a wasm module (module/field names, limits, shared flag) from its
 * bytes, so the peer hosts can create the shared memory the program declares instead of a guessed
 * size. (WebAssembly.Module.imports() does not give limits.) Only the import section is parsed.
 */

/** @returns {{ module: string, name: string, initial: number, maximum?: number, shared: boolean } | undefined} */
export function memoryImport(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let p = 8; // magic + version
  const u32 = () => {
    let result = 0, shift = 0, byte;
    do { byte = b[p++]; result |= (byte & 0x7f) << shift; shift += 7; } while (byte & 0x80);
    return result >>> 0;
  };
  const str = () => { const n = u32(); const s = new TextDecoder().decode(b.subarray(p, p + n)); p += n; return s; };
  const skipLimits = () => { const f = b[p++]; u32(); if (f & 1) u32(); };
  while (p < b.length) {
    const id = b[p++];
    const size = u32();
    const end = p + size;
    if (id !== 2) { p = end; continue; }
    for (let count = u32(); count > 0; count--) {
      const module = str(), name = str(), kind = b[p++];
      if (kind === 0) u32(); // function: type index
      else if (kind === 1) { p++; skipLimits(); } // table: reftype + limits
      else if (kind === 3) { p += 2; } // global: valtype + mut
      else if (kind === 2) {
        const flags = b[p++];
        const initial = u32();
        const maximum = flags & 1 ? u32() : undefined;
        return { module, name, initial, maximum, shared: (flags & 2) !== 0 };
      } else throw new Error(`unknown import kind ${kind}`);
    }
    return undefined;
  }
  return undefined;
}

/** A memory for the module's memory import, or undefined when the module defines its own. */
export function createImportedMemory(bytes) {
  const m = memoryImport(bytes);
  if (!m) return { memory: undefined, imp: undefined };
  return { memory: new WebAssembly.Memory({ initial: m.initial, maximum: m.maximum, shared: m.shared }), imp: m };
}
