/** Which imports a spindle host provides: all of WASI preview1, and wasi-threads' thread-spawn. */
import { wasiPreview1 } from './wasi/preview1.js';
import type { WasiHost } from './wasi/host.js';

let preview1Names: Set<string> | undefined;

export function isWasiImport(module: string, name: string): boolean {
  if (module === 'wasi') return name === 'thread-spawn';
  if (module !== 'wasi_snapshot_preview1') return false;
  preview1Names ??= new Set(Object.keys(wasiPreview1({} as WasiHost)));
  return preview1Names.has(name);
}
