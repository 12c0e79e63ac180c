/**
 * Confinement of guest paths to a host directory: every path a guest gives relative to a host
 * directory fd is resolved here, component by component, before node:fs sees it.
 *
 * Rules (those of wasmtime 46 / cap-std, checked against it with tests/fs-guests/runtime/probe.c):
 *   - an absolute guest path, a `..` above the directory fd's own directory (not just above the
 *     preopen: cap-std confines to the handle), and a symlink whose target is absolute or climbs
 *     above it are all EPERM ("a path led outside of the filesystem");
 *   - symlinks are followed here, never by the OS: each component is lstat'ed, a symlink's target
 *     is spliced into the remaining components, at most MAX_SYMLINKS (40, Linux's) per lookup,
 *     then ELOOP;
 *   - the last component is followed only when asked (lookupflags SYMLINK_FOLLOW, or a trailing
 *     slash); the caller then operates on the resulting host path with O_NOFOLLOW where the call
 *     allows it, so a symlink swapped in after the check is refused (ELOOP) rather than followed.
 *
 * Every node:fs error goes through `sys` (the one mapping, platform/node/errno.ts).
 */
import { lstatSync, readlinkSync, type BigIntStats } from 'node:fs';
import { ERRNO_INVAL, ERRNO_LOOP, ERRNO_NOENT, ERRNO_NOTDIR, ERRNO_PERM } from '../../wasi/constants.js';
import { fail, WasiErrno } from '../../wasi/errno.js';
import { errnoOfNodeError } from './errno.js';

export const MAX_SYMLINKS = 40;

/** Runs a node:fs call; a Node error becomes the WASI errno of its code. */
export function sys<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof WasiErrno) throw e;
    return fail(errnoOfNodeError(e));
  }
}

export interface Resolved {
  /** Host path of the entry the guest path names (it may not exist). */
  readonly host: string;
  /** Host path of the directory holding it. */
  readonly parent: string;
  /** Its name in `parent`; null when the path names the directory fd itself ("", ".", "a/.."). */
  readonly name: string | null;
  /** The guest path ended with a slash: the entry must be a directory. */
  readonly trailingSlash: boolean;
  /** lstat of `host` if it exists (after following, when followed). */
  readonly stat: BigIntStats | undefined;
}

function lstat(path: string): BigIntStats | undefined {
  return sys(() => lstatSync(path, { bigint: true, throwIfNoEntry: false }));
}

/**
 * Resolves `path` relative to the host directory `dir`. `follow`: follow a symlink in the last
 * component. Fails with EPERM on an escape, ENOENT/ENOTDIR on a missing or non-directory
 * intermediate component, ELOOP past MAX_SYMLINKS.
 */
export function resolve(dir: string, path: string, follow: boolean): Resolved {
  if (path === '') fail(ERRNO_NOENT);
  if (path.includes('\0')) fail(ERRNO_INVAL);
  if (path.startsWith('/')) fail(ERRNO_PERM);
  const trailingSlash = path.endsWith('/');
  const pending = path.split('/').reverse();
  const stack: string[] = [];
  let links = 0;
  let exists = true;
  while (pending.length > 0) {
    const c = pending.pop()!;
    const last = pending.length === 0;
    if (c === '' || c === '.') continue;
    if (c === '..') {
      if (stack.length === 0) fail(ERRNO_PERM);
      stack.pop();
      continue;
    }
    const host = join(dir, stack, c);
    if (last && !follow && !trailingSlash) {
      stack.push(c);
      break;
    }
    const st = lstat(host);
    if (!st) {
      if (!last && !pending.every((p) => p === '' || p === '.')) fail(ERRNO_NOENT);
      stack.push(c);
      exists = false;
      break;
    }
    if (st.isSymbolicLink()) {
      if (++links > MAX_SYMLINKS) fail(ERRNO_LOOP);
      const target = sys(() => readlinkSync(host, 'utf8'));
      if (target.startsWith('/')) fail(ERRNO_PERM);
      if (target === '') fail(ERRNO_NOENT);
      pending.push(...target.split('/').reverse());
      continue;
    }
    if (!st.isDirectory() && !pending.every((p) => p === '' || p === '.')) fail(ERRNO_NOTDIR);
    stack.push(c);
  }
  if (stack.length === 0) {
    return { host: dir, parent: dir, name: null, trailingSlash, stat: lstat(dir) };
  }
  const host = join(dir, stack);
  const parent = join(dir, stack.slice(0, -1));
  return { host, parent, name: stack[stack.length - 1]!, trailingSlash, stat: exists ? lstat(host) : undefined };
}

function join(dir: string, stack: readonly string[], last?: string): string {
  let p = dir;
  for (const c of stack) p += '/' + c;
  return last === undefined ? p : p + '/' + last;
}
