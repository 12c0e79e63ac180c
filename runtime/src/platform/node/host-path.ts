/**
 * Confinement of guest paths to a host directory, by construction (cap-std's way, which wasmtime
 * 46 uses): a directory is a handle (an OS fd opened with O_DIRECTORY), never a path string, and a
 * guest path is resolved from such a handle one component at a time, each component looked up in
 * the directory handle before it, with nothing followed by the OS.
 *
 * How, in Node on Linux (Node has no openat): a name inside directory fd D is reached as
 * `/proc/self/fd/D/name` (spelled `/proc/<pid>/fd/D/name`, the same link with one kernel step
 * less: host-dir-cache.ts's FD_DIR). The kernel follows the magic link to the directory D
 * is open on (wherever it was renamed to since), then looks `name` up in it; the call itself
 * never follows `name` when it is a symlink (lstat, readlink, O_NOFOLLOW, unlink, mkdir, rename,
 * link all act on the last component). So every host call sees exactly one guest component, in a
 * directory spindle holds open: a rename or a symlink swapped in by another thread or process
 * can make a call fail or act on another entry of that same directory, never on anything
 * outside it.
 *
 * Rules (those of wasmtime 46 / cap-std, checked against it with tests/fs-guests/runtime/probe.c
 * and tests/escape):
 *   - an absolute guest path, a `..` above the directory fd's own directory (not just above the
 *     preopen: cap-std confines to the handle), and a symlink whose target is absolute or climbs
 *     above it are all EPERM ("a path led outside of the filesystem");
 *   - except where the directory fd is the host's root ('/': what napi-rs's generated loaders
 *     preopen, and `--dir /`; `DirRef.hostRoot`), since nothing a symlink there names is outside
 *     '/': an absolute target is looked up from that fd, and a target's `..` at '/' stays at '/',
 *     as the kernel looks them up. wasmtime 46 refuses both there too (EPERM; its issue 6227 calls
 *     that too strict); node:wasi follows them, and a project reached through such a link (a
 *     `/home` that is one) must bundle as it does there. The guest path's own `..` above '/' stays
 *     EPERM (wasmtime's rule for any preopen). In the walk still one component at a time, spliced
 *     by the walk, never followed by the OS; but a path of plain names only there is the kernel's
 *     to resolve in one call (`kernelPathInRoot`), with the same answers and no walk;
 *   - symlinks are read and followed here, never by the OS: a symlink's target is spliced into the
 *     remaining components, at most MAX_SYMLINKS (40, Linux's) per lookup, then ELOOP;
 *   - each intermediate component is lstat'ed in the directory before it (a missing name is
 *     ENOENT, a file ENOTDIR, a symlink is read and spliced), a directory then opened (O_DIRECTORY
 *     | O_NOFOLLOW: if it was swapped for a symlink or a file since, the open fails and the walk
 *     reads and splices the symlink, or answers ENOTDIR), and the walk continues from that fd;
 *     `..` closes it and goes back to the previous one;
 *   - with a directory cache (host-dir-cache.ts: per thread, PROC_FD only) the walk starts at the
 *     deepest cached directory among the path's leading plain names that validates now (the
 *     kernel's path of its fd is the root's + the prefix), and keeps the directories it enters
 *     by plain names for the next lookups; a ".." or a symlink that would climb above a cached
 *     start sends the walk back to the root. The usual lookup (a name, or a name under one more
 *     name, in a cached directory) takes `cachedDirOf`'s shortcut with the same answers;
 *   - the last component is followed only when asked (lookupflags SYMLINK_FOLLOW, or a trailing
 *     slash); callers then act on `(parent fd, name)` with calls that do not follow it;
 *   - a guest path of PATH_MAX (4096) bytes or more is ENAMETOOLONG, as Linux answers; the host's
 *     own prefix never counts (each host call gets one component).
 *
 * Where `/proc/self/fd` does not exist (macOS, Windows, a Linux without /proc mounted) the same
 * rules run on path strings (`PROC_FD` false: a directory is named by its host path): paths the
 * program gives cannot lead out, but a directory renamed or a component swapped for a symlink by a
 * concurrent thread or process between the check and the call can (README: host table).
 *
 * Every node:fs error goes through `sys` (the one mapping, platform/node/errno.ts), with no stack
 * captured (`quiet`). Thread rules: none; the fds opened on the way belong to the calling thread's
 * `walk` and are closed by it, or given to (and back to) this thread's cache.
 */
import { closeSync, existsSync, fstatSync, lstatSync, openSync, readlinkSync, statSync, constants, type BigIntStats, type Stats } from 'node:fs';
import { ERRNO_INVAL, ERRNO_LOOP, ERRNO_NAMETOOLONG, ERRNO_NOENT, ERRNO_NOTDIR, ERRNO_PERM } from '../../wasi/constants.js';
import { fail, WasiErrno } from '../../wasi/errno.js';
import { errnoOfNodeError } from './errno.js';
import { FD_DIR, release, shedIdle, type CachedDir, type DirCache } from './host-dir-cache.js';

export const MAX_SYMLINKS = 40;
/** Linux's PATH_MAX: a guest path this long or longer is ENAMETOOLONG. */
export const PATH_MAX = 4096;

/**
 * Names inside a directory are reached through its fd (Linux with /proc); else through its path.
 * SPINDLE_NO_PROC_FD=1 forces the path-string way (macOS's) on Linux, so tests can run it.
 */
export const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd') && process.env.SPINDLE_NO_PROC_FD !== '1';


/** O_DIRECTORY | O_NOFOLLOW, read-only: how every directory handle is opened. */
export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Whether `Error.stackTraceLimit` can be set around node:fs calls: their errors become errnos and
 * their stacks are never read, and capturing one walks the program's wasm frames (the costliest
 * part of a failed lookup in a deep program such as rolldown's binding).
 */
const QUIET = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')?.writable === true;

/**
 * Runs `f`, a node:fs call that may fail, with no stack captured for its error. A call that
 * meets the process's fd limit (EMFILE, ENFILE: an open) runs once more after this thread's
 * directory cache gave back its idle fds, if it held any (host-dir-cache.ts shedIdle): the cache
 * never costs the program an fd it would otherwise have had. (An open that fails so has no
 * effect, O_CREAT included: the kernel takes the fd before it looks the name up.)
 */
export function quiet<T>(f: () => T): T {
  const limit = Error.stackTraceLimit;
  if (QUIET) Error.stackTraceLimit = 0;
  try {
    return f();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    if ((code === 'EMFILE' || code === 'ENFILE') && shedIdle() > 0) return f();
    throw e;
  } finally {
    if (QUIET) Error.stackTraceLimit = limit;
  }
}

/** Runs a node:fs call; a Node error becomes the WASI errno of its code. */
export function sys<T>(f: () => T): T {
  try {
    return quiet(f);
  } catch (e) {
    if (e instanceof WasiErrno) throw e;
    return fail(errnoOfNodeError(e));
  }
}

/** A directory to resolve from: an OS fd of it (-1 without PROC_FD) and its host path ('' with PROC_FD). */
export interface DirRef {
  readonly fd: number;
  readonly path: string;
  /** The fd is the host's root directory: a symlink's absolute target is looked up from it (see the module note). */
  readonly hostRoot?: boolean;
}

let rootId: BigIntStats | undefined;

/** Whether directory `fd` is the host's root '/' (same device and inode); false when either stat fails. */
export function isHostRoot(fd: number): boolean {
  try {
    rootId ??= statSync('/', { bigint: true });
    const st = fstatSync(fd, { bigint: true });
    return st.dev === rootId.dev && st.ino === rootId.ino;
  } catch {
    return false;
  }
}

/**
 * The host path that names what `path` names in a directory that is the host's root (a
 * `DirRef.hostRoot` directory), for the kernel to resolve in one call: '/' + `path` when the
 * path is plain names only (no "", "." or "..": so no trailing slash and nothing above '/'), has
 * no NUL, and is short enough that PATH_MAX cannot be in question (the walk's to answer); else
 * undefined, and the walk resolves it. The kernel's answer is the walk's: it follows the same
 * symlinks (40 at most, then ELOOP) and, from '/', an absolute target from '/' and a target's
 * `..` at '/' to '/' (the walk's rules there); the last name is followed only when the caller's
 * call follows it. Nothing is cached and no fd is used: a directory renamed since is not found
 * under its old name, as a fresh walk finds it. It saves the walk's ~6-7 us per lookup (the
 * cached directory's validation and the lookup through /proc) for one call on an absolute path
 * (~2 us): what a bundler reading a project through the drop-in's `/` preopen does thousands of
 * times per bundle. Confinement is not in question: nothing the kernel reaches from '/' is outside
 * it. (The kernel needs only search permission on each directory on the way, where the walk
 * opens each to read: a directory searchable but not readable is walked through here, as
 * Linux and node:wasi do, and EACCES in the walk.)
 */
export function kernelPathInRoot(path: string): string | undefined {
  return path.length < PATH_MAX / 3 && plainNames(path) && !path.includes('\0') ? `/${path}` : undefined;
}

/** The host path of `name` inside `dir`; the kernel follows nothing in it but `dir` itself. */
export function inDir(dir: DirRef, name: string): string {
  return PROC_FD ? `${FD_DIR}${dir.fd}/${name}` : `${dir.path}/${name}`;
}

/** The host path of the directory itself (for the calls that take a path, e.g. opendir). */
export function dirItself(dir: DirRef): string {
  return PROC_FD ? `${FD_DIR}${dir.fd}` : dir.path;
}

export interface Resolved {
  /** The directory holding the entry (its fd is valid until the walk ends). */
  readonly parent: DirRef;
  /** The entry's name in `parent`; null when the path names the directory fd itself ("", ".", "a/.."). */
  readonly name: string | null;
  /** The guest path ended with a slash: the entry must be a directory. */
  readonly trailingSlash: boolean;
  /** lstat of the entry if it exists (after following, when followed). */
  readonly stat: BigIntStats | undefined;
  /**
   * Only for a walk asked not to look at the last name (`lastStat` false): true when the walk
   * did not, and `stat` says nothing. The caller acts on `(parent, name)` with a call that does
   * not follow a symlink (O_NOFOLLOW), and walks again with `lastStat` if it finds one.
   */
  readonly unchecked?: boolean;
}

/** `Resolved` for an entry that has a name (the path_* calls that never act on "." or ".."). */
export type Named = Resolved & { readonly name: string };

/** lstatSync's options, made once. */
const LSTAT = { bigint: true, throwIfNoEntry: false } as const;

/**
 * lstat of `path`, undefined if it does not exist. The hot call of every lookup, so no closure:
 * with throwIfNoEntry false it throws only for what is rare here (EACCES, ENAMETOOLONG, ELOOP),
 * and then its stack is captured, as `quiet` would have avoided.
 */
function lstat(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, LSTAT);
  } catch (e) {
    return fail(errnoOfNodeError(e));
  }
}

/** lstatSync's options for a look at the type only: Node's number Stats cost less than BigIntStats. */
const LSTAT_TYPE = { throwIfNoEntry: false } as const;

/**
 * What `cachedDirOf` answers when the general walk must decide: no cached directory for the path,
 * a path that is not plain names only, a middle name that is a directory or a symlink.
 */
export const WALK = -1;

/**
 * The lookup a bundler makes by the thousand, without the general walk's arrays, closures and
 * result objects: for a path of plain names only, two or more ("src/app/main.ts": no "", ".",
 * "..", no trailing slash), the cached directory holding its last name (host-dir-cache.ts),
 * taken (`release` it) and validated now, as the walk from the cache would start there. Or, when
 * only the directory above that one is cached ("src/app/main.ts/tsconfig.json": main.ts is a
 * file), the walk's answer for the name between: ENOENT when it is missing, ENOTDIR when it is
 * neither a directory nor a symlink (resolveFrom's answers for an intermediate component), WALK
 * for a directory or a symlink (the walk enters and caches it, or reads and splices the link).
 * WALK when there is no such cached directory. `rootFd`: the root's OS fd, pinned by the caller.
 */
export function cachedDirOf(rootFd: number, path: string, cache: DirCache): CachedDir | number {
  const slash = path.lastIndexOf('/');
  // The walk's own checks first (a NUL, PATH_MAX): it answers those.
  if (slash <= 0 || !plainNames(path) || path.includes('\0') || path.length >= PATH_MAX / 3) return WALK;
  const key = path.slice(0, slash);
  const hit = cache.take(rootFd, key);
  if (hit !== undefined) return hit;
  const up = key.lastIndexOf('/');
  if (up <= 0) return WALK;
  const above = cache.take(rootFd, key.slice(0, up));
  if (above === undefined) return WALK;
  try {
    const st = lstatType(inDir(above.dir, key.slice(up + 1)));
    return st === undefined ? ERRNO_NOENT : st.isDirectory() || st.isSymbolicLink() ? WALK : ERRNO_NOTDIR;
  } finally {
    release(above);
  }
}

/** lstat of `name` in the cached directory `dir` (BigIntStats: its times to the ns), undefined if it does not exist. */
export function lstatIn(dir: CachedDir, name: string): BigIntStats | undefined {
  return lstat(inDir(dir.dir, name));
}

/** lstat for the type only (number Stats), undefined if `path` does not exist. */
function lstatType(path: string): Stats | undefined {
  try {
    return lstatSync(path, LSTAT_TYPE);
  } catch (e) {
    return fail(errnoOfNodeError(e));
  }
}

/** lstat of `name` in `dir`, or of `dir` itself when `name` is null. */
export function statOf(dir: DirRef, name: string | null): BigIntStats | undefined {
  if (name !== null) return lstat(inDir(dir, name));
  return dir.fd >= 0 ? sys(() => fstatSync(dir.fd, { bigint: true })) : lstat(dir.path);
}

/**
 * Resolves `path` relative to the host directory `root` and runs `f` on the result (and `root`)
 * while the directories opened on the way are still open. `follow`: follow a symlink in the last component.
 * Fails with EPERM on an escape, ENOENT/ENOTDIR on a missing or non-directory intermediate
 * component, ELOOP past MAX_SYMLINKS, ENAMETOOLONG for a path of PATH_MAX bytes or more.
 * `cache` (with PROC_FD): this thread's directory cache of `root` (host-dir-cache.ts): the walk
 * starts at the deepest cached directory of the path that validates, and caches those it enters.
 * `lastStat` false: a path that ends in a plain name (no trailing slash) resolves to its parent
 * and name with no lstat of the name (`unchecked`), whatever `follow` says: the caller's own
 * call on it answers (path_open: an open with O_NOFOLLOW, one system call instead of two).
 */
export function walk<T>(root: DirRef, path: string, follow: boolean, f: (r: Resolved, root: DirRef) => T, cache?: DirCache, lastStat = true): T {
  if (path === '') fail(ERRNO_NOENT);
  if (path.includes('\0')) fail(ERRNO_INVAL);
  if (path.length >= PATH_MAX / 3 && Buffer.byteLength(path) >= PATH_MAX) fail(ERRNO_NAMETOOLONG);
  if (path.startsWith('/')) fail(ERRNO_PERM);
  const opened: Entered[] = [];
  const absolute = root.hostRoot === true;
  try {
    if (cache !== undefined && PROC_FD) {
      const r = resolveCached(root, path, follow, opened, cache, lastStat, absolute);
      if (r !== RESTART) return f(r, root);
      leave(opened);
    }
    const r = resolveFrom(root, path, follow, opened, cache === undefined || !PROC_FD ? undefined : { cache, key: '', fromCache: false }, lastStat, absolute);
    if (r === RESTART) throw new Error('spindle: internal error: a walk from the root asked for a restart');
    return f(r, root);
  } finally {
    leave(opened);
  }
}

/** A directory entered below the root: its handle, its name in the directory before it, its cache entry. */
interface Entered {
  readonly dir: DirRef;
  readonly name: string;
  readonly cached?: CachedDir;
}

/** Closes (or gives back to the cache) every directory of `opened`, and empties it. */
function leave(opened: Entered[]): void {
  for (const e of opened) exit(e);
  opened.length = 0;
}

function exit(e: Entered): void {
  if (e.cached !== undefined) release(e.cached);
  else if (e.dir.fd >= 0) closeSync(e.dir.fd);
}

/** What resolveFrom answers when a walk that started at a cached directory must start at the root. */
const RESTART = Symbol('restart');

/** How a walk uses the cache: where it started (`key`: that directory's prefix, '' for the root). */
interface CacheUse {
  readonly cache: DirCache;
  readonly key: string;
  /** Started at a cached directory: climbing above it or naming it needs the root (RESTART). */
  readonly fromCache: boolean;
}

/**
 * The walk from the deepest cached directory among the path's leading plain names (never the
 * last name, never with a ".." after it) that validates now; RESTART when there is none or the
 * rest of the path climbs above it.
 */
function resolveCached(root: DirRef, path: string, follow: boolean, opened: Entered[], cache: DirCache, lastStat: boolean, absolute: boolean): Resolved | typeof RESTART {
  // The common case first: plain names only ("src/app/main.ts"), the directory of the last one cached.
  const slash = path.lastIndexOf('/');
  if (slash > 0 && plainNames(path)) {
    const key = path.slice(0, slash);
    const hit = cache.take(root.fd, key);
    if (hit !== undefined) {
      // One plain name left in a directory that validated: its lstat is the answer, as the walk
      // of that name would give it, unless it is a symlink to follow (then the walk does it).
      const base = hit.dir;
      opened.push({ dir: base, name: key.slice(key.lastIndexOf('/') + 1), cached: hit });
      const name = path.slice(slash + 1);
      if (!lastStat) return { parent: base, name, trailingSlash: false, stat: undefined, unchecked: true };
      const stat = lstat(inDir(base, name));
      if (!follow || stat === undefined || !stat.isSymbolicLink()) return { parent: base, name, trailingSlash: false, stat };
      const stack: Entered[] = [];
      try {
        return resolveFrom(base, name, follow, stack, { cache, key, fromCache: true }, true, absolute);
      } finally {
        opened.push(...stack);
      }
    }
  }
  const parts = path.split('/');
  let lastNamed = parts.length - 1;
  while (lastNamed >= 0 && (parts[lastNamed] === '' || parts[lastNamed] === '.')) lastNamed--;
  let k = 0;
  while (k < lastNamed && parts[k] !== '' && parts[k] !== '.' && parts[k] !== '..') k++;
  if (k === 0 || parts.includes('..', k)) return RESTART;
  for (; k > 0; k--) {
    const key = parts.slice(0, k).join('/');
    const hit = cache.take(root.fd, key);
    if (hit !== undefined) return fromCached(hit, key, parts.slice(k).join('/'), follow, opened, cache, lastStat, absolute);
  }
  return RESTART;
}

const SLASH = 0x2f, DOT = 0x2e;

/** No empty, "." or ".." component anywhere in `path` (a scan: cheaper than a RegExp per call). */
function plainNames(path: string): boolean {
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i < path.length && path.charCodeAt(i) !== SLASH) continue;
    const n = i - start;
    if (n === 0 || (path.charCodeAt(start) === DOT && (n === 1 || (n === 2 && path.charCodeAt(start + 1) === DOT)))) return false;
    start = i + 1;
  }
  return true;
}

/** The walk of `rest` from `hit`, the cached directory `key` (taken: `opened` gives it back). */
function fromCached(hit: CachedDir, key: string, rest: string, follow: boolean, opened: Entered[], cache: DirCache, lastStat: boolean, absolute: boolean): Resolved | typeof RESTART {
  const base = hit.dir;
  opened.push({ dir: base, name: key.slice(key.lastIndexOf('/') + 1), cached: hit });
  // The rest is walked from the cached directory; `opened` keeps it open (and counted) first.
  const stack: Entered[] = [];
  try {
    return resolveFrom(base, rest, follow, stack, { cache, key, fromCache: true }, lastStat, absolute);
  } finally {
    opened.push(...stack);
  }
}

/** Only "" and "." left: the component just read is the last one that names something. */
const onlyDots = (pending: readonly string[]): boolean => pending.every((p) => p === '' || p === '.');

/**
 * The walk of `path` from `root` (or, `use.fromCache`, from a cached directory: RESTART when the
 * path leaves it). `absolute`: the walk's root is the host's root, where a symlink's absolute
 * target is walked from that root (from a cached start: RESTART, the walk from the root does it).
 */
function resolveFrom(root: DirRef, path: string, follow: boolean, stack: Entered[], use: CacheUse | undefined, lastStat: boolean, absolute: boolean): Resolved | typeof RESTART {
  const trailingSlash = path.endsWith('/');
  const pending = path.split('/').reverse();
  /** How many of `pending`'s components (the bottom ones) are the guest path's; the rest are symlink targets'. */
  let guest = pending.length;
  const top = (): DirRef => stack.length ? stack[stack.length - 1]!.dir : root;
  let links = 0;
  /** The guest prefix of the top directory while the walk went down by plain names only, else undefined. */
  let key = use?.key;
  /** Splices a symlink's target into the components still to walk; false: the walk must restart at the root. */
  const splice = (target: string): boolean => {
    if (++links > MAX_SYMLINKS) fail(ERRNO_LOOP);
    if (target.startsWith('/')) {
      if (!absolute) fail(ERRNO_PERM);
      if (use?.fromCache) return false;
      leave(stack); // back at the root, which the target starts from
      key = use === undefined ? undefined : '';
    } else {
      key = undefined;
    }
    if (target === '') fail(ERRNO_NOENT);
    pending.push(...target.split('/').reverse());
    return true;
  };
  while (pending.length > 0) {
    const c = pending.pop()!;
    const ofTarget = pending.length >= guest;
    if (!ofTarget) guest = pending.length;
    if (c === '' || c === '.') continue;
    if (c === '..') {
      const left = stack.pop();
      if (left === undefined) {
        if (use?.fromCache) return RESTART;
        // A symlink target's ".." at the host's root stays there, as the kernel's does.
        if (ofTarget && absolute) continue;
        return fail(ERRNO_PERM);
      }
      exit(left);
      key = undefined;
      continue;
    }
    const dir = top();
    if (pending.length === 0 && !trailingSlash && !lastStat) {
      return { parent: dir, name: c, trailingSlash, stat: undefined, unchecked: true };
    }
    if (pending.length === 0 && !follow && !trailingSlash) {
      return { parent: dir, name: c, trailingSlash, stat: lstat(inDir(dir, c)) };
    }
    const last = onlyDots(pending);
    if (!last && PROC_FD) {
      // An intermediate component: its lstat (no exception for a missing name) answers ENOENT,
      // a symlink (read and spliced in) and ENOTDIR (a file: rolldown probes `mod.ts/tsconfig.json`
      // hundreds of times a bundle) without opening it; a directory is then opened (O_DIRECTORY |
      // O_NOFOLLOW). The open still decides: if the name changed in between, a symlink or a file
      // there now fails it (ENOTDIR, ELOOP), and the symlink is then read and spliced in as before.
      const st = lstat(inDir(dir, c));
      if (st === undefined) fail(ERRNO_NOENT);
      if (st.isSymbolicLink()) {
        const target = readlinkOrNull(inDir(dir, c));
        if (target !== null) {
          if (!splice(target)) return RESTART;
          continue;
        }
      } else if (!st.isDirectory()) {
        fail(ERRNO_NOTDIR);
      }
      const entered = enter(dir, c);
      if (entered !== null) {
        key = key === undefined ? undefined : key === '' ? c : `${key}/${c}`;
        const cached = key === undefined ? undefined : use!.cache.add(entered.fd, key);
        stack.push({ dir: entered, name: c, cached });
        continue;
      }
      const target = readlinkOrNull(inDir(dir, c));
      if (target === null) fail(ERRNO_NOTDIR);
      if (!splice(target)) return RESTART;
      continue;
    }
    const st = lstat(inDir(dir, c));
    if (!st) {
      if (!last) fail(ERRNO_NOENT);
      return { parent: dir, name: c, trailingSlash, stat: undefined };
    }
    if (st.isSymbolicLink()) {
      if (!splice(sys(() => readlinkSync(inDir(dir, c), 'utf8')))) return RESTART;
      continue;
    }
    if (last) return { parent: dir, name: c, trailingSlash, stat: st };
    if (!st.isDirectory()) fail(ERRNO_NOTDIR);
    stack.push({ dir: { fd: -1, path: `${dir.path}/${c}` }, name: c });
  }
  // The path named a directory of the walk itself ("", ".", "a/.."): the top of the stack.
  if (stack.length === 0) return use?.fromCache ? RESTART : { parent: root, name: null, trailingSlash, stat: statOf(root, null) };
  const self = stack[stack.length - 1]!;
  const parent = stack.length > 1 ? stack[stack.length - 2]!.dir : root;
  return { parent, name: self.name, trailingSlash, stat: lstat(inDir(parent, self.name)) };
}

/** A symlink's target, or null when `path` is not a symlink (EINVAL; it may have just changed). */
function readlinkOrNull(path: string): string | null {
  try {
    return quiet(() => readlinkSync(path, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EINVAL') return null;
    return fail(errnoOfNodeError(e));
  }
}

/**
 * Opens directory `name` in `dir` (O_DIRECTORY | O_NOFOLLOW); null when it is not a directory
 * (ENOTDIR: a file, or a symlink, which O_NOFOLLOW with O_DIRECTORY reports so on Linux).
 */
function enter(dir: DirRef, name: string): DirRef | null {
  try {
    return { fd: quiet(() => openSync(inDir(dir, name), DIR_FLAGS)), path: '' };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'ELOOP') return null;
    return fail(errnoOfNodeError(e));
  }
}
