/**
 * Setting file times on host files to the nanosecond (fd_filestat_set_times,
 * path_filestat_set_times). node:fs takes times as seconds in a double and libuv keeps only
 * microseconds (it rounds the nanoseconds down to a multiple of 1000), and it cannot leave one of
 * the two times alone (no UTIME_OMIT): both are always written. So:
 *
 *   - fast path, node:fs (futimes / lutimes): when every time it would write is a whole number of
 *     microseconds (the times asked for, and the current value of a time not asked for), so
 *     nothing is rounded and nothing not asked for changes; "now" is Date.now() there;
 *   - otherwise GNU `touch -d @SECONDS.NANOSECONDS` (-a / -m: one time, the other left alone
 *     with UTIME_OMIT; -h: never follow), on /proc/<pid>/fd/... (the same file the fd or the
 *     walk holds: host-path.ts). The result is read back; if `touch` is missing, fails, or did
 *     not set exactly the times asked for, the call fails with ENOTSUP rather than round a time
 *     the program set and will read back (README: host table);
 *   - except when only the time NOT asked for has nanoseconds and `touch` cannot help (no
 *     /proc/self/fd, or it failed): then node:fs rewrites that one rounded down to the
 *     microsecond, and the times asked for are exact.
 *
 * Thread rules: none; each call runs on the calling thread (spawnSync blocks it, ~1-3 ms).
 */
import { spawnSync } from 'node:child_process';
import type { BigIntStats } from 'node:fs';
import { ERRNO_NOTSUP, FSTFLAGS_ATIM, FSTFLAGS_ATIM_NOW, FSTFLAGS_MTIM, FSTFLAGS_MTIM_NOW } from '../../wasi/constants.js';
import { fail } from '../../wasi/errno.js';
import { PROC_FD, sys } from './host-path.js';

/** How to set times on one file: through node:fs, or `touch` on a path; and how to read them back. */
export interface TimesTarget {
  /** node:fs's call (futimes or lutimes), times in seconds. */
  nodeSet(atime: number, mtime: number): void;
  /** A path naming the same file for a child process (/proc/<pid>/fd/...), and whether it is a symlink to follow. */
  readonly childPath: string;
  readonly followChildPath: boolean;
  /** The file's times now. */
  stat(): BigIntStats;
}

const US = 1000n;

/** Sets the times `fstflags` asks for (already checked: never both X and X_NOW). */
export function setTimes(target: TimesTarget, current: BigIntStats, atim: bigint, mtim: bigint, fstflags: number): void {
  const setA = (fstflags & (FSTFLAGS_ATIM | FSTFLAGS_ATIM_NOW)) !== 0;
  const setM = (fstflags & (FSTFLAGS_MTIM | FSTFLAGS_MTIM_NOW)) !== 0;
  if (!setA && !setM) return;
  // What node:fs would write for each time: the value asked for, now, or the current value.
  const a = fstflags & FSTFLAGS_ATIM ? atim : fstflags & FSTFLAGS_ATIM_NOW ? null : current.atimeNs;
  const m = fstflags & FSTFLAGS_MTIM ? mtim : fstflags & FSTFLAGS_MTIM_NOW ? null : current.mtimeNs;
  if ((a === null || a % US === 0n) && (m === null || m % US === 0n)) {
    const now = Date.now() / 1000;
    sys(() => target.nodeSet(a === null ? now : seconds(a), m === null ? now : seconds(m)));
    return;
  }
  // Only the time not asked for has nanoseconds: exact through touch, else rounded by node:fs.
  const askedWhole = (!(fstflags & FSTFLAGS_ATIM) || atim % US === 0n) && (!(fstflags & FSTFLAGS_MTIM) || mtim % US === 0n);
  const exact = PROC_FD && touched(target, setA, setM, atim, mtim, fstflags);
  if (exact) return;
  if (!askedWhole) fail(ERRNO_NOTSUP);
  const now = Date.now() / 1000;
  sys(() => target.nodeSet(a === null ? now : seconds(a - (a % US)), m === null ? now : seconds(m - (m % US))));
}

/** Sets the times through `touch` and reads them back: true when they are exactly as asked. */
function touched(target: TimesTarget, setA: boolean, setM: boolean, atim: bigint, mtim: bigint, fstflags: number): boolean {
  if (setA && !touch(target, '-a', fstflags & FSTFLAGS_ATIM ? atim : null)) return false;
  if (setM && !touch(target, '-m', fstflags & FSTFLAGS_MTIM ? mtim : null)) return false;
  const after = target.stat();
  return !((fstflags & FSTFLAGS_ATIM && after.atimeNs !== atim) || (fstflags & FSTFLAGS_MTIM && after.mtimeNs !== mtim));
}

/**
 * Seconds for node:fs, biased by half a microsecond: libuv truncates to whole microseconds, and
 * a double near 1.7e9 s is only exact to ~0.24 us, so the unbiased value could land 1 us low.
 */
function seconds(ns: bigint): number {
  return Number(ns / US) / 1e6 + 5e-7;
}

/** `touch -a|-m [-d @S.N]` on the target; false when touch failed (or is missing). */
function touch(target: TimesTarget, which: '-a' | '-m', ns: bigint | null): boolean {
  const args = [which, ...(target.followChildPath ? [] : ['-h'])];
  if (ns !== null) args.push('-d', `@${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`);
  return spawnSync('touch', [...args, '--', target.childPath], { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

/** The path a child process uses for `name` in directory fd `dirFd` of this process. */
export function childPathIn(dirFd: number, name: string): string {
  return `/proc/${process.pid}/fd/${dirFd}/${name}`;
}

/** The path a child process uses for this process's open fd `fd` (a magic link to follow). */
export function childPathOf(fd: number): string {
  return `/proc/${process.pid}/fd/${fd}`;
}
