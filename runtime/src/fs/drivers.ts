/**
 * The drivers a platform may offer the runtime's filesystem, as interfaces: host directories
 * (`HostFsDriver`, Node: platform/node/host-fs.ts) and OPFS directories (`OpfsDriver`, browsers:
 * platform/browser/opfs-owner.ts). The platform-free fs/ code depends on these interfaces only; a
 * platform without a driver simply cannot mount that kind (program setup refuses it before any
 * thread starts).
 */
import type { Descriptor } from '../wasi/fd-table.js';
import type { MemFsInit } from './memfs.js';
import type { SharedFdTable } from './shared-fd-table.js';

/** One preopened directory: a host directory (`host` set) or a memory mount (`host` null). */
export interface MountSpec {
  readonly guest: string;
  readonly host: string | null;
  readonly readOnly: boolean;
}

/** A host directory opened to be mounted: its OS fd, and the path the platform keeps for it ('' if none). */
export interface OpenedRoot {
  readonly fd: number;
  readonly path: string;
}

/** What a platform supplies for host directories (Node: platform/node/host-fs.ts). */
export interface HostFsDriver {
  /** The descriptor of entry `fd` (generation `gen`, OS fd `osFd`) on the calling thread. */
  file(table: SharedFdTable, fd: number, gen: number, osFd: number): Descriptor;
  dir(table: SharedFdTable, fd: number, gen: number, mounts: readonly MountSpec[]): Descriptor;
  closeOsFd(osFd: number): void;
  /** Opens a host directory to mount (program setup), or says what is wrong with it. */
  root(host: string): OpenedRoot | { error: string };
  /** A .tar file's bytes, or a host directory packed as a tar stream (--preload). */
  readTree(path: string): Uint8Array;
  /** Writes `bytes` to `path` through a temporary file and a rename (--save). */
  writeFileAtomic(path: string, bytes: Uint8Array): void;
}

/** An OPFS directory as loaded for a mount of the runtime's shared FS. */
export interface LoadedOpfsDir {
  /** The program's channel (for the memory FS's `spindle_opfs` imports). */
  channel: SharedArrayBuffer;
  /** The I/O worker's id for the mount. */
  mount: number;
  /** The directory's contents as a tar stream (empty: nothing in it). */
  tar: Uint8Array;
}

/** What program setup needs for OPFS mounts of the runtime's shared FS (a platform's `opfs`). */
export interface OpfsDriver {
  /**
   * Opens (creates) OPFS directory `dir` ('' = the root, 'a/b' = a subdirectory) for the program
   * with control block `control` and reads it; starts the I/O worker if needed. Rejects with
   * the WASI errno (`errno`) when OPFS refuses.
   */
  load(control: SharedArrayBuffer, dir: string): Promise<LoadedOpfsDir>;
  /** The program ended (or its setup failed): its I/O worker, if any, drains and closes. */
  end(control: SharedArrayBuffer): void;
  /** The memory FS with the loaded mounts exists: start the idle write-back (once). */
  startIdle(control: SharedArrayBuffer, memfs: MemFsInit): void;
}
