/**
 * spindle/napi/fs: `memfs()` as @napi-rs/wasm-runtime/fs exports it (the generated browser
 * loaders call it and give its `fs` to `WASI`), made of spindle's memory filesystem: the page
 * reads and writes files through the returned `fs`/`vol` (napi/memory-fs.ts), and every thread of
 * the addon reaches the same files directly, without the proxy to the page's thread that
 * @napi-rs/wasm-runtime's memfs needs.
 *
 * `memfs()` is synchronous, so the memory-FS module is compiled when this module loads (a
 * top-level await, as the generated browser loaders have too).
 */
import { MemFs } from '../fs/memfs.js';
import { MemoryFs, registerMemoryFs, type TreeJson } from './memory-fs.js';

// Written out so that bundlers emit the module file beside the bundle.
const moduleUrl = new URL('../spindle-fs.wasm', import.meta.url);

async function moduleBytes(): Promise<Uint8Array> {
  if (typeof process !== 'undefined' && process.versions?.node) {
    const { readFile } = await import('node:fs/promises');
    return readFile(moduleUrl);
  }
  const res = await fetch(moduleUrl);
  if (!res.ok) throw new Error(`spindle: cannot fetch the memory-FS module ${moduleUrl.href}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

const compiled = await MemFs.compile(await moduleBytes());

/** A new memory filesystem (`json`: files to put in, paths relative to `cwd`); `fs` and `vol` are the same object. */
export function memfs(json: TreeJson = {}, cwd = '/'): { fs: MemoryFs; vol: MemoryFs } {
  const m = MemoryFs.create(compiled);
  registerMemoryFs(m, m);
  m.fromJSON(json, cwd);
  return { fs: m, vol: m };
}

/** @napi-rs/wasm-runtime/fs's memfs package export, which generated worker scripts hand to createFsProxy (never used under spindle). */
export const memfsExported = { memfs };

export { MemoryFs };
export type { Stats, TreeJson } from './memory-fs.js';
