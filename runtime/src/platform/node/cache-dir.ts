/**
 * spindle's cache directory in Node, shared by what it keeps across runs: the thread-guard
 * rewrites of large modules (guard-cache.ts, `thread-guards/`), V8's code cache of the CLI
 * (bundle-cache.ts, `cli/`), of spindle/napi (bundle-cache.ts, `napi/`) and of the pool workers'
 * bundles (worker-code.ts, `worker-code/`), and Node's compile cache of a napi loader's own
 * emnapi pair (worker-code.ts, `node-compile/`, in Node's layout: a folder per Node version, an
 * entry per source file; Node prunes nothing: worker-code.ts boundCompileCacheAtExit does).
 *
 * Directory: $SPINDLE_CACHE_DIR, else $XDG_CACHE_HOME/spindle, else ~/.cache/spindle (as
 * wasmtime keeps its compile cache); SPINDLE_CACHE_DIR=none turns every cache off.
 *
 * Invariants: an entry is written under a temporary name and renamed, so a reader never sees a
 * partial one. A cache only saves time: any I/O error means "do without" and is never reported.
 * A folder pruned with `keepNewest` holds at most that many files, and with a byte bound at most
 * that many bytes besides its newest file (the least recently written or `touch`ed go first):
 * `cli/`, `napi/`, `worker-code/`, `thread-guards/`, `pool-demand/`, and each folder of
 * `node-compile/`. Loaded by the CLI's and spindle/napi's first files: imports nothing but Node built-ins
 * they load anyway.
 */
import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The cache directory the environment names, or undefined when it is turned off. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.SPINDLE_CACHE_DIR;
  if (given === 'none') return undefined;
  if (given) return given;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'spindle');
}

/** Writes `file` whole or not at all (its directory made first); false if that failed. */
export function writeEntryAtomic(file: string, data: Uint8Array | readonly Uint8Array[]): boolean {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, data instanceof Uint8Array ? data : Buffer.concat(data));
    renameSync(tmp, file);
    return true;
  } catch {
    try { unlinkSync(tmp); } catch { /* never written */ }
    return false;
  }
}

/**
 * Removes all but the `keep` most recently written (or touched, `touch`) files of `folder`
 * (entries of builds, paths or Node versions no longer run, and temporaries a crash left), and
 * past the newest one, any file that would bring the kept ones above `maxBytes` together, so
 * that it never grows without end.
 */
export function keepNewest(folder: string, keep: number, maxBytes = Infinity): void {
  let kept = 0, bytes = 0;
  for (const f of newestFirst(folder)) {
    if (kept === 0 || (kept < keep && bytes + f.size <= maxBytes)) {
      kept++;
      bytes += f.size;
      continue;
    }
    try { unlinkSync(f.path); } catch { /* gone already, or not ours to remove */ }
  }
}

/** An entry of a cache folder, as `newestFirst` lists it. */
export interface CacheEntry {
  readonly path: string;
  readonly mtime: number;
  readonly size: number;
  readonly isDirectory: boolean;
}

/**
 * The entries of `folder`, the most recently written (or `touch`ed) first; none when there is no
 * such folder. One that cannot be stat'ed (gone meanwhile) comes last, as a file of size 0.
 */
export function newestFirst(folder: string): CacheEntry[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return []; // no folder: nothing to list
  }
  return names.map((name) => {
    const path = join(folder, name);
    try {
      const st = statSync(path);
      return { path, mtime: st.mtimeMs, size: st.size, isDirectory: st.isDirectory() };
    } catch {
      return { path, mtime: 0, size: 0, isDirectory: false };
    }
  }).sort((a, b) => b.mtime - a.mtime);
}

/** Marks `file` as just used, so `keepNewest` keeps it before entries written since; never fails. */
export function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch { /* a cache only saves time */ }
}

/**
 * This process's V8 options as part of an entry's key (execArgv, NODE_OPTIONS): V8 refuses a
 * code cache written under other flags, and two runs with different flags must not keep
 * replacing each other's entry.
 */
export function v8Options(): string {
  return `${process.execArgv.join('\0')}\0${process.env.NODE_OPTIONS ?? ''}`;
}

/** 32-bit FNV-1a of a string's UTF-16 units, 8 hex digits: names an entry (not a security check). */
export function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}
