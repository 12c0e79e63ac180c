/**
 * Memory mounts (--mount GUEST=memory) on the memory-FS module (memfs.ts, spindle-fs built as its
 * own wasm module with its own shared memory): created on the thread that sets the program up,
 * instantiated in every thread from its init. The only file that knows memfs.ts.
 */
import { SpindleError } from '../errors.js';
import type { EntryInit } from './shared-fd-table.js';

export interface MemoryMounts {
  readonly init: unknown;
  preopenEntry(guest: string, mount: number, preopen: number): EntryInit;
  importTar(guestDir: string, tar: Uint8Array, what: string): void;
  exportTar(guestDir: string): Uint8Array;
}

export async function openMemoryMounts(_guests: readonly string[]): Promise<MemoryMounts> {
  throw new SpindleError('BAD_OPTION', 'memory mounts (--mount GUEST=memory, --preload, --save) are not available yet: the memory-FS module (runtime/src/fs/memfs.ts) is not in this build');
}
