/**
 * `spindle check`: does a program that links spindle's in-program filesystem still call the
 * host for any WASI filesystem function?
 *
 * A program linked with libspindle-fs.a / libspindle.a / the spindle-wasi-fs crate legitimately
 * imports host fs functions: its forwarders for host fds (stdio, host preopens). They are told
 * apart by the function name the linker writes into the `name` section:
 * - a forwarder's symbol contains `spindle_wasi_fs` (rustc mangles a foreign function that has
 *   a wasm import module into `spindle_wasi_fs::host::<call>`);
 * - anything else bypassed spindle: wasi-libc's undefined `__imported_wasi_snapshot_preview1_<call>`
 *   (the library was not linked, or did not define that call), a direct import from the `wasi`
 *   crate or from hand-written code.
 * Without a name section (a stripped module) nothing can be told apart, so every fs import is
 * reported as bypassing and `hasNames` is false: link without `--strip-all`/`-s` to check.
 */
import { readFunctionImports } from './wasm-names.js';

/** Every WASI preview1 call spindle's in-program filesystem defines. */
export const FS_CALLS: readonly string[] = [
  'fd_advise', 'fd_allocate', 'fd_close', 'fd_datasync', 'fd_fdstat_get', 'fd_fdstat_set_flags',
  'fd_fdstat_set_rights', 'fd_filestat_get', 'fd_filestat_set_size', 'fd_filestat_set_times',
  'fd_pread', 'fd_prestat_dir_name', 'fd_prestat_get', 'fd_pwrite', 'fd_read', 'fd_readdir',
  'fd_renumber', 'fd_seek', 'fd_sync', 'fd_tell', 'fd_write',
  'path_create_directory', 'path_filestat_get', 'path_filestat_set_times', 'path_link', 'path_open',
  'path_readlink', 'path_remove_directory', 'path_rename', 'path_symlink', 'path_unlink_file',
  'poll_oneoff',
];

const FS = new Set(FS_CALLS);
const WASI_MODULE = 'wasi_snapshot_preview1';

export interface FsImportCheck {
  /** fs calls imported from the host by something other than spindle's forwarders. */
  bypassing: string[];
  /** fs calls imported by spindle's forwarders (for host fds). */
  forwarded: string[];
  /** False when the module has no function names (then everything counts as bypassing). */
  hasNames: boolean;
}

/** True if `symbol` is one of spindle-wasi-fs's forwarders (mangled or demangled). */
export function isSpindleForwarder(symbol: string | undefined): boolean {
  return symbol !== undefined && symbol.includes('spindle_wasi_fs');
}

/** Classifies the WASI filesystem imports of a module. Throws RangeError on a malformed module. */
export function checkFsImports(bytes: Uint8Array): FsImportCheck {
  const { imports, hasNames } = readFunctionImports(bytes);
  const bypassing: string[] = [], forwarded: string[] = [];
  for (const imp of imports) {
    if (imp.module !== WASI_MODULE || !FS.has(imp.name)) continue;
    (hasNames && isSpindleForwarder(imp.symbol) ? forwarded : bypassing).push(imp.name);
  }
  return { bypassing: [...new Set(bypassing)].sort(), forwarded: [...new Set(forwarded)].sort(), hasNames };
}

/**
 * The command: `spindle check PROGRAM.wasm...`. Prints one line per program; returns the exit
 * status (0 all clean, 1 some program bypasses spindle, 2 usage or unreadable file).
 */
export async function checkCommand(args: string[], out: (s: string) => void): Promise<number> {
  if (args.length === 0 || args.includes('-h') || args.includes('--help')) {
    out('Usage: spindle check PROGRAM.wasm...\n' +
      'Lists WASI filesystem imports that bypass spindle\'s in-program filesystem; exits 1 if any remains.\n');
    return args.length === 0 ? 2 : 0;
  }
  const { readFile } = await import('node:fs/promises');
  let status = 0;
  for (const file of args) {
    let result: FsImportCheck;
    try {
      result = checkFsImports(new Uint8Array(await readFile(file)));
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
      out(`${file}: cannot check: ${why}\n`);
      status = 2;
      continue;
    }
    if (result.bypassing.length === 0) {
      out(`${file}: ok (${result.forwarded.length} fs imports are spindle's forwarders for host fds)\n`);
      continue;
    }
    status = Math.max(status, 1);
    const hint = result.hasNames ? '' :
      ' (the module has no name section, so spindle\'s forwarders cannot be recognised: check the unstripped build)';
    out(`${file}: ${result.bypassing.length} WASI filesystem imports bypass spindle: ${result.bypassing.join(', ')}${hint}\n`);
  }
  return status;
}
