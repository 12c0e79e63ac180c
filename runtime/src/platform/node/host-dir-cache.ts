/**
 * The directory cache of the confined walk (host-path.ts), one per thread: directories the walk
 * entered by plain names from a host directory fd (the ROOT: one `DirCache` per `HostDirectory`
 * object, which is per thread and per fd entry), kept open so that the next lookup below them
 * starts there instead of opening and closing every directory on the way again.
 *
 * Validation, on every use: an entry is used only if the kernel says, at that moment, that the
 * directory its fd is open on is ROOT/prefix: `readlink("/proc/<pid>/fd/<fd>")` (the kernel's
 * d_path of the directory: its names up the dentry tree, never through a symlink) must equal the
 * root's own d_path + "/" + prefix, byte for byte. So a directory renamed, moved, deleted or
 * swapped for a symlink since it was cached (by this program or by anyone) fails validation and
 * the lookup walks from the root again, component by component with nothing followed: a symlink
 * put in place of a cached directory is never followed through the cache, and a lookup never
 * acts on a directory that is not, when validated, at ROOT/prefix. Then the call acts on
 * `(cached fd, name)`, as an uncached walk acts on its last directory fd: a rename in between
 * can make it act on that directory where it went, never on a path re-resolved by the OS.
 * The root's d_path is read again when a validation fails; if the root was moved, the entries
 * built on its old path fail and are replaced. (A directory put at the root's old host path by a
 * host-side rename of the root itself, holding a cached directory moved into it, would pass: the
 * lookup then acts inside the directory at the host path the user gave.)
 *
 * What costs: one readlink of a /proc fd link (~3.5 us) replaces an open and a close per
 * directory on the way (two /proc lookups, ~5 us each pair), so a lookup N directories deep
 * costs two host calls instead of 2N + 1.
 *
 * Bounds and thread rules: at most MAX_CACHED_DIRS directory fds per thread, all roots
 * together, evicted oldest-used first; an entry in use by a walk (`uses` > 0; nested walks:
 * link, rename) is never closed under it: evicted then, it is closed by its last user. Entries
 * of a root that is gone (its fd closed) age out. Only where names are reached through
 * `/proc/self/fd` (PROC_FD); never shared between threads.
 *
 * The bound is the process's fd limit / 16, between 64 and 1024 (`cacheBound`): a bundler's
 * lookups in a real project reach hundreds of directories (rolldown bundling a 266-file project
 * with @mui/material, date-fns, lodash-es and rxjs: 724 per bundle, all on one thread), and a
 * bound below that reopens most of them on every bundle (64: 1,700 opens, evictions and walks
 * per bundle, +35-55 ms of the thread's CPU; bench/results/napi-2026-11-28-bigproject). Sixteen
 * threads with full caches then hold at most the whole limit; where the limit is small (1,024)
 * the bound stays 64. A host call of this thread that meets the limit gives back this thread's
 * idle entries and tries once more (`shedIdle`); other threads' entries stay theirs.
 */
import { closeSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Where this process's fds are in /proc (where names are reached through them: host-path.ts's
 * PROC_FD): `/proc/<pid>/fd/`, the very magic links of `/proc/self/fd/` (every thread of the
 * process shares one fd table), with one step less for the kernel on every host call (`self` is
 * itself a link, resolved to the pid on each lookup through it: ~0.3 us of the 3.5-4 us a lookup
 * through /proc costs). `/proc/self/fd/` when this /proc belongs to another pid namespace (its
 * `self` is not our pid).
 */
export const FD_DIR = procFdDir();

function procFdDir(): string {
  try {
    if (readlinkSync('/proc/self') === String(process.pid)) return `/proc/${process.pid}/fd/`;
  } catch { /* /proc/self unreadable: keep the link */ }
  return '/proc/self/fd/';
}

/**
 * Most directory fds one thread keeps open for the cache, all roots together, for a process
 * whose fd limit (RLIMIT_NOFILE's soft limit; Node raises it to the hard limit at start) is
 * `limit`: limit / 16, between 64 and 1024; 64 when the limit is unknown.
 */
export function cacheBound(limit: number | undefined): number {
  if (limit === undefined || !(limit > 0)) return 64;
  return Math.min(1024, Math.max(64, Math.floor(limit / 16)));
}

/** This process's soft limit of open files, from /proc/self/limits (Linux: where the cache exists); undefined if unknown. */
export function fdLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'latin1'));
    return line === null || line[1] === 'unlimited' ? undefined : Number(line[1]);
  } catch {
    return undefined;
  }
}

/** Most directory fds one thread keeps open for the cache, all roots together (cacheBound). */
export const MAX_CACHED_DIRS = cacheBound(fdLimit());

/** Entries an eviction closes at once when the cache is full: the oldest 1/16, so a full cache is scanned once per 1/16 of its size of new entries, not once per entry. */
const EVICT_BATCH = Math.max(1, MAX_CACHED_DIRS >> 4);

/** A cached directory: its own OS fd, opened by the walk on ROOT/prefix. */
export interface CachedDir {
  readonly fd: number;
  /** The fd as the walk's directory handle (host-path.ts's DirRef), made once. */
  readonly dir: { readonly fd: number; readonly path: string };
  /** `/proc/<pid>/fd/<fd>` (host-path.ts's FD_DIR), the magic link read to validate it (made once, not per lookup). */
  readonly link: string;
  readonly prefix: string;
  readonly cache: DirCache;
  /** Walks using the fd now; it is closed only at 0. */
  uses: number;
  /** Evicted while in use: closed by its last user. */
  dead: boolean;
  /** The d_path the fd must have: the root's path at `expectedFor` + "/" + prefix (latin1, see dPath). */
  expected: string | undefined;
  expectedFor: string | undefined;
  /** `clock` at its last take or add: eviction takes the idle entry with the lowest. */
  lastUse: number;
}

/**
 * Every live entry of this thread. Recency is a counter stamped on each use (`lastUse`), not an
 * order kept in this Set: a hit then costs a store instead of a delete and an add, and an
 * eviction (only with MAX_CACHED_DIRS entries live) scans them all for the oldest idle ones.
 */
const live = new Set<CachedDir>();
let clock = 0;

const DELETED = ' (deleted)';
/** readlinkSync's options, made once (a string is copied into a new options object per call). */
const LATIN1 = { encoding: 'latin1' } as const;

/**
 * The kernel's path of the directory OS fd `fd` (d_path), or undefined (too long, gone). Its
 * bytes as a latin1 string, one character per byte, so that two paths are equal strings exactly
 * when they are equal bytes (whatever the encoding of the names); a string costs less than a
 * Buffer to get and compare.
 */
function dPath(link: string): string | undefined {
  try {
    const p = readlinkSync(link, LATIN1);
    // An unlinked directory's path ends in " (deleted)": never valid.
    return p.endsWith(DELETED) ? undefined : p;
  } catch {
    return undefined;
  }
}

/** The cache of one root directory on one thread. */
export class DirCache {
  private readonly dirs = new Map<string, CachedDir>();
  /** The root's d_path as last read (latin1, see dPath). */
  private rootPath: string | undefined;

  /**
   * The cached directory for `prefix` (guest components joined by '/') if it validates now, taken
   * for use (`release` it); undefined if there is none or it failed (it is then dropped).
   * `rootFd`: the root's OS fd, pinned by the caller.
   */
  take(rootFd: number, prefix: string): CachedDir | undefined {
    const e = this.dirs.get(prefix);
    if (e === undefined) return undefined;
    const got = dPath(e.link);
    // The usual answer first: the entry's expected path, made for the root's path as last read.
    if (got !== undefined && ((got === e.expected && e.expectedFor === this.rootPath)
      || this.matches(e, got, rootFd, false) || this.matches(e, got, rootFd, true))) {
      e.uses++;
      e.lastUse = ++clock;
      return e;
    }
    evict(e);
    return undefined;
  }

  /**
   * Caches `fd`, just opened by a walk on ROOT/prefix, already in use by it (`release` it);
   * undefined (the caller keeps and closes its fd) when the cache is full of entries in use or
   * the name cannot be checked later.
   */
  add(fd: number, prefix: string): CachedDir | undefined {
    // A name ending in " (deleted)" would read like a deleted directory's path (see dPath).
    if (prefix.endsWith(' (deleted)') || this.dirs.has(prefix)) return undefined;
    if (live.size >= MAX_CACHED_DIRS && !evictOldestIdle()) return undefined;
    const e: CachedDir = {
      fd, dir: { fd, path: '' }, link: `${FD_DIR}${fd}`, prefix, cache: this, uses: 1, dead: false, expected: undefined, expectedFor: undefined, lastUse: ++clock,
    };
    this.dirs.set(prefix, e);
    live.add(e);
    return e;
  }

  /** Forgets `e` (evict). */
  drop(e: CachedDir): void {
    if (this.dirs.get(e.prefix) === e) this.dirs.delete(e.prefix);
  }

  /** `got` is the root's path + "/" + prefix; `refresh`: read the root's path again first. */
  private matches(e: CachedDir, got: string, rootFd: number, refresh: boolean): boolean {
    if (refresh || this.rootPath === undefined) {
      const before = this.rootPath;
      this.rootPath = dPath(`${FD_DIR}${rootFd}`);
      if (refresh && before !== undefined && this.rootPath === before) return false;
    }
    const root = this.rootPath;
    if (root === undefined) return false;
    if (e.expectedFor !== root) {
      // The prefix is the guest's names (a JS string): its UTF-8 bytes, as latin1 like `got`.
      e.expected = (root === '/' ? root : `${root}/`) + Buffer.from(e.prefix).toString('latin1');
      e.expectedFor = root;
    }
    return got === e.expected;
  }
}

/** Ends a walk's use of `e`; closes it if it was evicted meanwhile and this was the last use. */
export function release(e: CachedDir): void {
  if (--e.uses === 0 && e.dead) closeQuietly(e.fd);
}

/**
 * Evicts every entry of this thread not in use, all roots together (their fds closed now): what
 * a host call that met the fd limit (EMFILE, ENFILE) does before it tries once more (host-path.ts
 * `quiet`), so that the cache never makes a program's own open fail while it holds idle fds.
 * Returns how many were evicted.
 */
export function shedIdle(): number {
  let n = 0;
  for (const e of live) {
    if (e.uses === 0) {
      evict(e);
      n++;
    }
  }
  return n;
}

/** Removes `e` from the cache; its fd is closed now, or by its last user. */
function evict(e: CachedDir): void {
  live.delete(e);
  e.cache.drop(e);
  e.dead = true;
  if (e.uses === 0) closeQuietly(e.fd);
}

/** Evicts the EVICT_BATCH least recently used entries not in use (fewer if fewer are idle); false if every entry is in use. */
function evictOldestIdle(): boolean {
  const idle: CachedDir[] = [];
  for (const e of live) if (e.uses === 0) idle.push(e);
  if (idle.length === 0) return false;
  if (idle.length > EVICT_BATCH) idle.sort((a, b) => a.lastUse - b.lastUse).length = EVICT_BATCH;
  for (const e of idle) evict(e);
  return true;
}

function closeQuietly(fd: number): void {
  try { closeSync(fd); } catch { /* nothing more to release */ }
}
