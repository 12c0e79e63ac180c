/**
 * The runtime's filesystem for one program, thread side: what a worker gets in its WorkerInit
 * (`FsInit`: the shared fd table, the mounts in preopen order, the memory FS module's init) and
 * how a thread turns it into the `FdTable` its WASI imports use.
 *
 * A program without any filesystem option has no FsInit and keeps the per-thread stdio table
 * (fd-table.ts's LocalFdTable): no shared table, no cost.
 *
 * Layering: this file is platform-free (browsers too). Host directories need node:fs; they come
 * in through the platform's `hostFs` (platform/node/index.ts), so a platform without one simply cannot
 * mount host directories (program setup refuses them before any thread starts).
 *
 * Thread rules: `threadFdTable` is called once per thread (per ThreadFactory), on that thread.
 */
import type { WasiHost } from '../wasi/host.js';
import type { Descriptor, FdTable } from '../wasi/fd-table.js';
import { stdioDescriptors, type StdioTty } from '../wasi/stdio.js';
import { memFsThread, type MemFsInit, type MemFsThread } from './memfs.js';
import { FILETYPE_DIRECTORY } from '../wasi/constants.js';
import type { HostFsDriver, MountSpec } from './drivers.js';
import { HANDLE, HOST_DIR, HOST_FILE, MEMFS, SharedFdTable, STDERR, STDIN, STDOUT, type EntryInit, type EntryKinds } from './shared-fd-table.js';

/** Everything a thread needs for the filesystem. Structured-cloneable. */
export interface FsInit {
  readonly table: SharedArrayBuffer;
  readonly mounts: readonly MountSpec[];
  /** The memory FS module's init, or null without memory mounts. */
  readonly memfs: MemFsInit | null;
}

/** What wasmtime 46 reports for a directory fd: its rights, and what files opened under it may get. */
export const DIR_BASE = 0x7b7fe00n;
export const DIR_INHERITING = 0xff7ffffn;

/**
 * The table entry of a host directory: `osFd` an OS fd of it (the table's reference), `path` its
 * host path where the platform needs one (else ''), under mount `mount`.
 */
export function hostDirEntryFor(osFd: number, path: string, mount: number, preopen = 0): EntryInit {
  return { kind: HOST_DIR, handle: osFd, path, mount, preopen, filetype: FILETYPE_DIRECTORY, rightsBase: DIR_BASE, rightsInheriting: DIR_INHERITING };
}

/**
 * This thread's view of the program's shared fd table. With OPFS mounts, `onExit` receives the
 * exit flush the thread must run before it publishes the program's exit (thread.ts).
 */
export function threadFdTable(
  init: FsInit, host: WasiHost, stdioTty: StdioTty, hostFs: HostFsDriver | undefined,
  onExit?: (flush: () => void) => void,
): FdTable {
  const table = new SharedFdTable(init.table);
  let stdio: Descriptor[] | undefined;
  // Instantiated now, while the worker prepares (before it takes a thread): a thread's first file
  // operation must not pay for an instantiation inside the program's time.
  const mem: MemFsThread | undefined = init.memfs ? memFsThread(init.memfs) : undefined;
  if (mem && init.memfs?.opfs) onExit?.(() => mem.flushOpfs());
  const memThread = (): MemFsThread => mem ?? (() => { throw new Error('spindle: a memory-FS fd without the memory FS module'); })();
  const needHost = (): HostFsDriver => hostFs ?? (() => { throw new Error('spindle: a host fd on a platform without host directories'); })();
  const kinds: EntryKinds = {
    materialize(t, fd, kind, gen) {
      switch (kind) {
        case STDIN: case STDOUT: case STDERR:
          stdio ??= stdioDescriptors(host, stdioTty);
          return stdio[kind - STDIN]!;
        case HOST_FILE: return needHost().file(t, fd, gen, t.field(fd, HANDLE));
        case HOST_DIR: return needHost().dir(t, fd, gen, init.mounts);
        case MEMFS: return memThread().descriptor(t.field(fd, HANDLE));
        default: throw new Error(`spindle: fd ${fd} has an unknown kind ${kind}`);
      }
    },
    release(_t, kind, handle, _aux, d) {
      if (kind === MEMFS) (d ?? memThread().descriptor(handle)).close();
    },
    closeOs: (os) => needHost().closeOsFd(os),
  };
  return table.bind(kinds);
}
