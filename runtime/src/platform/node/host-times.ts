/**
 * Setting file times on host files to the nanosecond (fd_filestat_set_times,
 * path_filestat_set_times). node:fs takes times as seconds in a double, and it cannot leave one
 * of the two times alone (no UTIME_OMIT): both are always written. What libuv then writes depends
 * on its version (measured on every Node line of the tests, `nodeWrites` below):
 *
 *   libuv < 1.52 (Node 20, 22)   whole microseconds: the nanoseconds are cut down to a multiple
 *                                of 1000
 *   libuv >= 1.52 (Node 24, 26)  nanoseconds as the double gives them: trunc(fraction x 1e9); a
 *                                double near 1.7e9 s is exact to only ~0.24 us, so most times in
 *                                nanoseconds (and most whole microseconds) have no double at all
 *
 * So:
 *   - fast path, node:fs (futimes / lutimes): when every time it would write has a double that
 *     libuv writes exactly (the times asked for, and the current value of a time not asked for),
 *     so nothing is rounded and nothing not asked for changes; "now" is Date.now() there;
 *   - otherwise GNU `touch -d @SECONDS.NANOSECONDS` (-a / -m: one time, the other left alone
 *     with UTIME_OMIT; -h: never follow), on /proc/<pid>/fd/... (the same file the fd or the
 *     walk holds: host-path.ts). The result is read back; if `touch` is missing, fails, or did
 *     not set exactly the times asked for, the call fails with ENOTSUP rather than round a time
 *     the program set and will read back (README: host table);
 *   - except when only the time NOT asked for cannot be written exactly and `touch` cannot help
 *     (no /proc/self/fd, or it failed): then node:fs rewrites that one rounded down to the
 *     nearest time it can write, and the times asked for are exact.
 *
 * Thread rules: none; each call runs on the calling thread (spawnSync blocks it, ~1-3 ms).
 */
import type { spawnSync as SpawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import type { BigIntStats } from 'node:fs';
import { ERRNO_NOTSUP, FSTFLAGS_ATIM, FSTFLAGS_ATIM_NOW, FSTFLAGS_MTIM, FSTFLAGS_MTIM_NOW } from '../../wasi/constants.js';
import { fail } from '../../wasi/errno.js';
import { PROC_FD, sys } from './host-path.js';

// node:child_process is loaded only when `touch` is needed: importing it costs every start of the
// CLI a few ms of CPU (it is in the CLI's one-file bundle).
const lazyRequire = createRequire(import.meta.url);

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

const NS = 1_000_000_000n;

/** Sets the times `fstflags` asks for (already checked: never both X and X_NOW). */
export function setTimes(target: TimesTarget, current: BigIntStats, atim: bigint, mtim: bigint, fstflags: number): void {
  const setA = (fstflags & (FSTFLAGS_ATIM | FSTFLAGS_ATIM_NOW)) !== 0;
  const setM = (fstflags & (FSTFLAGS_MTIM | FSTFLAGS_MTIM_NOW)) !== 0;
  if (!setA && !setM) return;
  // What node:fs would write for each time: the value asked for, now, or the current value.
  const a = fstflags & FSTFLAGS_ATIM ? atim : fstflags & FSTFLAGS_ATIM_NOW ? null : current.atimeNs;
  const m = fstflags & FSTFLAGS_MTIM ? mtim : fstflags & FSTFLAGS_MTIM_NOW ? null : current.mtimeNs;
  const exactA = a === null ? undefined : exactSeconds(a);
  const exactM = m === null ? undefined : exactSeconds(m);
  if ((a === null || exactA !== undefined) && (m === null || exactM !== undefined)) {
    const now = Date.now() / 1000;
    sys(() => target.nodeSet(exactA ?? now, exactM ?? now));
    return;
  }
  // Only the time not asked for cannot be written exactly: exact through touch, else rounded by node:fs.
  const askedExact = (!(fstflags & FSTFLAGS_ATIM) || exactA !== undefined) && (!(fstflags & FSTFLAGS_MTIM) || exactM !== undefined);
  const exact = PROC_FD && touched(target, setA, setM, atim, mtim, fstflags);
  if (exact) return;
  if (!askedExact) fail(ERRNO_NOTSUP);
  const now = Date.now() / 1000;
  sys(() => target.nodeSet(a === null ? now : exactA ?? secondsAtOrBelow(a), m === null ? now : exactM ?? secondsAtOrBelow(m)));
}

/** Sets the times through `touch` and reads them back: true when they are exactly as asked. */
function touched(target: TimesTarget, setA: boolean, setM: boolean, atim: bigint, mtim: bigint, fstflags: number): boolean {
  if (setA && !touch(target, '-a', fstflags & FSTFLAGS_ATIM ? atim : null)) return false;
  if (setM && !touch(target, '-m', fstflags & FSTFLAGS_MTIM ? mtim : null)) return false;
  const after = target.stat();
  return !((fstflags & FSTFLAGS_ATIM && after.atimeNs !== atim) || (fstflags & FSTFLAGS_MTIM && after.mtimeNs !== mtim));
}

/** libuv of this Node keeps nanoseconds in futime/utime (1.52 and later; see the header). */
const KEEPS_NANOSECONDS = (() => {
  const [major, minor] = (process.versions.uv ?? '0.0').split('.').map(Number);
  return major! > 1 || (major === 1 && minor! >= 52);
})();

/**
 * The time in nanoseconds that libuv writes for `seconds` (src/unix/fs.c, uv__fs_to_timespec:
 * tv_sec = (long) t; tv_nsec = (long) ((t - tv_sec) * 1e9), before 1.52 cut to whole
 * microseconds). The same double arithmetic as the C code, so the answer is exact.
 */
export function nodeWrites(seconds: number, keepsNanoseconds = KEEPS_NANOSECONDS): bigint {
  let sec = Math.trunc(seconds);
  let nsec = Math.trunc((seconds - sec) * 1e9);
  if (!keepsNanoseconds) nsec -= nsec % 1000;
  if (nsec < 0) { nsec += 1e9; sec -= 1; }
  return BigInt(sec) * NS + BigInt(nsec);
}

/** Doubles around `ns` (nanoseconds): the nearest one and its neighbours, lowest first. */
function candidates(ns: bigint): number[] {
  const near = Number(ns / NS) + Number(ns % NS) / 1e9;
  const out = [near];
  for (let i = 0, up = near, down = near; i < 4; i++) {
    up = nextDouble(up, 1);
    down = nextDouble(down, -1);
    out.push(up, down);
  }
  return out.sort((x, y) => x - y);
}

/** The double after (dir 1) or before (dir -1) `x`, for x > 0. */
function nextDouble(x: number, dir: 1 | -1): number {
  const f = new Float64Array([x]);
  const bits = new BigInt64Array(f.buffer);
  bits[0] = bits[0]! + BigInt(dir);
  return f[0]!;
}

/** Seconds that node:fs writes as exactly `ns` nanoseconds on this Node, if there are any. */
export function exactSeconds(ns: bigint, keepsNanoseconds = KEEPS_NANOSECONDS): number | undefined {
  if (ns <= 0n) return ns === 0n ? 0 : undefined;
  return candidates(ns).find((s) => nodeWrites(s, keepsNanoseconds) === ns);
}

/** Seconds that node:fs writes as the latest time at or before `ns` it can write. */
function secondsAtOrBelow(ns: bigint): number {
  const below = candidates(ns).filter((s) => nodeWrites(s) <= ns);
  return below.length ? below[below.length - 1]! : Number(ns / NS);
}

/** `touch -a|-m [-d @S.N]` on the target; false when touch failed (or is missing). */
function touch(target: TimesTarget, which: '-a' | '-m', ns: bigint | null): boolean {
  const args = [which, ...(target.followChildPath ? [] : ['-h'])];
  if (ns !== null) args.push('-d', `@${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`);
  const { spawnSync } = lazyRequire('node:child_process') as { spawnSync: typeof SpawnSync };
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
