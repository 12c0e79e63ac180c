/**
 * The `wasi_snapshot_preview1` import object: all 46 functions of WASI preview1 under their spec
 * names, so any wasm32-wasip1(-threads) module links. This file only assembles; each function lives
 * in the module named for what it owns (args-env, clock, random, fd, fd-io, path, poll, sock, proc).
 *
 * The errno guard (the one rule about exceptions): every import except proc_exit is wrapped so that
 *   - a `WasiErrno` thrown inside (errno.ts: bounds checks, descriptors) returns its errno;
 *   - any other exception (a bug here, a host method throwing against its contract) returns EIO,
 *     after being reported to `onUnexpectedError`;
 *   - nothing ever throws into wasm.
 * proc_exit is NOT wrapped: `host.exit` throws on purpose to unwind the wasm stack and the runtime
 * core must receive that exception as thrown. `host.raise` is never called (proc_raise is ENOTSUP,
 * as in wasmtime), so no other import can unwind.
 *
 * Building the object reads nothing from `host` (not even `memory.buffer`): the core may build it
 * before the instance that exports the memory exists, or with a placeholder host just to list
 * names (WASI_PREVIEW1_FUNCTIONS is the cheaper way to do that).
 *
 * Thread rules: build one import object per wasm instance (= per thread), on that thread. With the
 * default fd table, fd_close/fd_renumber of stdio affect only the calling thread (fd-table.ts).
 */
import { argsEnvFunctions } from './args-env.js';
import { clockFunctions } from './clock.js';
import { ERRNO_IO } from './constants.js';
import { WasiErrno } from './errno.js';
import { fdIoFunctions } from './fd-io.js';
import type { FdTable } from './fd-table.js';
import { LocalFdTable } from './fd-table.js';
import { fdFunctions } from './fd.js';
import { GuestMemory } from './guest-memory.js';
import type { WasiHost } from './host.js';
import { pathFunctions } from './path.js';
import { pollFunctions } from './poll.js';
import { procExit, procFunctions } from './proc.js';
import { randomFunctions } from './random.js';
import { sockFunctions } from './sock.js';
import { stdioDescriptors, type StdioTty } from './stdio.js';

export type { Descriptor, Directory, Fdstat, Filestat, FdTable } from './fd-table.js';
export { DescriptorBase, LocalFdTable } from './fd-table.js';
export { OutputDescriptor, StdinDescriptor, stdioDescriptors, type StdioTty } from './stdio.js';

/** Every function of wasi_snapshot_preview1, in the spec's order. */
export const WASI_PREVIEW1_FUNCTIONS = [
  'args_get', 'args_sizes_get', 'environ_get', 'environ_sizes_get',
  'clock_res_get', 'clock_time_get',
  'fd_advise', 'fd_allocate', 'fd_close', 'fd_datasync', 'fd_fdstat_get', 'fd_fdstat_set_flags',
  'fd_fdstat_set_rights', 'fd_filestat_get', 'fd_filestat_set_size', 'fd_filestat_set_times',
  'fd_pread', 'fd_prestat_get', 'fd_prestat_dir_name', 'fd_pwrite', 'fd_read', 'fd_readdir',
  'fd_renumber', 'fd_seek', 'fd_sync', 'fd_tell', 'fd_write',
  'path_create_directory', 'path_filestat_get', 'path_filestat_set_times', 'path_link',
  'path_open', 'path_readlink', 'path_remove_directory', 'path_rename', 'path_symlink',
  'path_unlink_file',
  'poll_oneoff', 'proc_exit', 'proc_raise', 'sched_yield', 'random_get',
  'sock_accept', 'sock_recv', 'sock_send', 'sock_shutdown',
] as const;

export type WasiPreview1FunctionName = (typeof WASI_PREVIEW1_FUNCTIONS)[number];

export interface WasiPreview1Options {
  /**
   * The fd table. Default: a per-instance table holding stdio as fds 0, 1, 2. The filesystem
   * passes its own (shared by all threads) here.
   */
  readonly fds?: FdTable;
  /**
   * Whether fds 0-2 report as a terminal (CHARACTER_DEVICE, so isatty() is true): one answer for
   * all three, one per fd, or a function asked at an fd's first fdstat/filestat. Default true.
   */
  readonly stdioIsTty?: StdioTty;
  /**
   * poll_oneoff and sched_yield return a Promise of their errno where they would block (a hosted
   * thread's instance, host-worker.ts, which imports them as suspending imports, jspi.ts). Default false.
   */
  readonly suspending?: boolean;
  /** Told about exceptions the guard turned into EIO (bugs). Default: console.error. */
  readonly onUnexpectedError?: (fn: string, error: unknown) => void;
}

type WasiFunction = (...args: any[]) => number;

function reportToConsole(fn: string, error: unknown): void {
  console.error(`spindle: internal error in WASI ${fn} (returned EIO to the program):`, error);
}

/** Wraps `f` so that it returns an errno instead of throwing (see the module note). */
function guard(name: string, f: WasiFunction, onUnexpected: (fn: string, e: unknown) => void) {
  const caught = (e: unknown): number => {
    if (e instanceof WasiErrno) return e.errno;
    onUnexpected(name, e);
    return ERRNO_IO;
  };
  // One wrapper per parameter count (`f.length`: the WASI functions declare every parameter, none
  // with a default): wasm calls a JS function whose arity matches its signature on V8's direct
  // path, and no array is built per call. At most 9 parameters (path_open).
  switch (f.length) {
    case 0: return (): number => { try { return f(); } catch (e) { return caught(e); } };
    case 1: return (a: any): number => { try { return f(a); } catch (e) { return caught(e); } };
    case 2: return (a: any, b: any): number => { try { return f(a, b); } catch (e) { return caught(e); } };
    case 3: return (a: any, b: any, c: any): number => { try { return f(a, b, c); } catch (e) { return caught(e); } };
    case 4: return (a: any, b: any, c: any, d: any): number => { try { return f(a, b, c, d); } catch (e) { return caught(e); } };
    case 5: return (a: any, b: any, c: any, d: any, e5: any): number => { try { return f(a, b, c, d, e5); } catch (e) { return caught(e); } };
    case 6: return (a: any, b: any, c: any, d: any, e5: any, g: any): number => { try { return f(a, b, c, d, e5, g); } catch (e) { return caught(e); } };
    case 7: return (a: any, b: any, c: any, d: any, e5: any, g: any, h: any): number => { try { return f(a, b, c, d, e5, g, h); } catch (e) { return caught(e); } };
    default:
      return (p0?: any, p1?: any, p2?: any, p3?: any, p4?: any, p5?: any, p6?: any, p7?: any, p8?: any): number => {
        try { return f(p0, p1, p2, p3, p4, p5, p6, p7, p8); } catch (e) { return caught(e); }
      };
  }
}

/**
 * The functions that may return a Promise with the `suspending` option (a hosted thread's
 * instance imports each as a suspending import (jspi.ts): thread.ts `suspendingPreview1`).
 */
export const SUSPENDING: ReadonlySet<string> = new Set(['poll_oneoff', 'sched_yield']);

/** `guard` for a function that may return a Promise of its errno: a rejection becomes an errno too. */
function guardSuspending(name: string, f: (...args: any[]) => number | Promise<number>, onUnexpected: (fn: string, e: unknown) => void) {
  const caught = (e: unknown): number => {
    if (e instanceof WasiErrno) return e.errno;
    onUnexpected(name, e);
    return ERRNO_IO;
  };
  return (...args: any[]): number | Promise<number> => {
    try {
      const r = f(...args);
      return typeof r === 'number' ? r : r.then(undefined, caught);
    } catch (e) {
      return caught(e);
    }
  };
}

/** The complete `wasi_snapshot_preview1` import object for one instance. */
export function wasiPreview1(
  host: WasiHost,
  options: WasiPreview1Options = {},
): Record<string, (...args: any[]) => number> {
  const mem = new GuestMemory(host.memory);
  const fds = options.fds ?? new LocalFdTable(stdioDescriptors(host, options.stdioIsTty ?? true));
  const onUnexpected = options.onUnexpectedError ?? reportToConsole;
  const guarded: Record<string, (...args: any[]) => number | Promise<number>> = {
    ...argsEnvFunctions(mem, host),
    ...clockFunctions(mem),
    ...fdFunctions(mem, fds),
    ...fdIoFunctions(mem, fds),
    ...pathFunctions(mem, fds),
    ...pollFunctions(mem, fds, options.suspending),
    ...procFunctions(options.suspending),
    ...randomFunctions(mem),
    ...sockFunctions(fds),
  };
  const imports: Record<string, WasiFunction> = {}; // with `suspending`, two may return a Promise (SUSPENDING)
  for (const name of WASI_PREVIEW1_FUNCTIONS) {
    if (name !== 'proc_exit' && !guarded[name]) throw new Error(`spindle: WASI ${name} missing`);
    imports[name] = name === 'proc_exit' ? procExit(host)
      : options.suspending && SUSPENDING.has(name) ? guardSuspending(name, guarded[name]!, onUnexpected) as WasiFunction
        : guard(name, guarded[name] as WasiFunction, onUnexpected);
  }
  return imports;
}
