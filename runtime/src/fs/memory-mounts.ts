/**
 * Memory mounts (--mount GUEST=memory, and OPFS mounts GUEST=opfs:DIR in browsers) on the memory-FS module (memfs.ts: spindle-fs built as its
 * own wasm module with its own shared memory), setup side: created on the thread that sets the
 * program up, before any program thread exists; each thread joins through `memFsThread(init)`
 * (runtime-fs.ts). Also the tar import (--preload) and export (--save) of a mount's subtree.
 */
import { SpindleError } from '../errors.js';
import { MemFs, type OpfsMounts } from './memfs.js';
import { MEMFS, type EntryInit } from './shared-fd-table.js';

export interface MemoryMounts {
  readonly init: unknown;
  /** The guest paths of the mounts. */
  readonly guests: readonly string[];
  /** The table entry of the mount at `guest`, preopen number `preopen` (1-based). */
  preopenEntry(guest: string, mount: number, preopen: number): EntryInit;
  /** Imports a tar stream into `guestDir`; a corrupt tar is a SpindleError (BAD_TAR), nothing changes. */
  importTar(guestDir: string, tar: Uint8Array, what: string): void;
  exportTar(guestDir: string): Uint8Array;
}

/** `guests`: memory mounts; `opfs`: OPFS mounts (browser), also memory mounts for the module. */
export async function openMemoryMounts(
  guests: readonly string[], readFile: (url: URL) => Promise<Uint8Array>, opfs?: OpfsMounts,
): Promise<MemoryMounts> {
  return memoryMountsOf(await MemFs.create({ mounts: guests, readFile, opfs }));
}

/** The mounts of a memory FS that exists already (an embedder's, made before the program: napi/). */
export function memoryMountsOf(fs: MemFs): MemoryMounts {
  return {
    init: fs.init,
    guests: fs.init.mounts.map((m) => m.path),
    preopenEntry: (guest, mount, preopen) => ({ kind: MEMFS, handle: fs.thread().preopen(guest).memFd, mount, preopen }),
    importTar(guestDir, tar, what) {
      try {
        fs.importTar(guestDir, tar);
      } catch (e) {
        if (e instanceof SpindleError) throw new SpindleError('BAD_TAR', `${what}: ${e.message}`);
        throw e;
      }
    },
    exportTar: (guestDir) => fs.exportTar(guestDir),
  };
}
