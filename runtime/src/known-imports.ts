/** Which imports a spindle host provides: all of WASI preview1, and wasi-threads' thread-spawn. */
import { WASI_PREVIEW1_FUNCTIONS } from './wasi/preview1.js';

const preview1 = new Set<string>(WASI_PREVIEW1_FUNCTIONS);

export function isWasiImport(module: string, name: string): boolean {
  if (module === 'wasi') return name === 'thread-spawn';
  return module === 'wasi_snapshot_preview1' && preview1.has(name);
}
