/**
 * CPU time and peak memory of a whole process tree (every thread of it: Node's workers included),
 * which a parent cannot read from node:child_process: the command runs under GNU time
 * (`/usr/bin/time`, Debian package `time`), which writes the child's rusage to a file.
 *
 *   const u = underRusage(cmd, 'name');      // u.cmd: the command to run instead of cmd
 *   ... run u.cmd ...; u.read()              // { cpu_ms, user_ms, sys_ms, rss_mb }
 *
 * rss_mb is the process's peak resident set (ru_maxrss), in MiB; cpu_ms is user + system time of
 * the process and its waited-for children, in ms.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TIME_BIN = '/usr/bin/time';

/** Why rusage cannot be measured here, or undefined. */
export function rusageUnavailable() {
  return existsSync(TIME_BIN) ? undefined : `${TIME_BIN} is missing: apt-get install time (GNU time reads a process tree's CPU time and peak memory)`;
}

const dir = join(tmpdir(), `spindle-bench-rusage-${process.pid}`);

/** Wraps `cmd` ([exe, args]) so that its rusage lands in a file named after `name`. */
export function underRusage([exe, args], name) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name.replace(/[^\w.-]/g, '_')}.txt`);
  return {
    cmd: [TIME_BIN, ['-f', 'rusage %U %S %M', '-o', file, exe, ...args]],
    /** The last run's figures; throws when the run left none (it did not start, or was killed). */
    read() {
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      rmSync(file, { force: true });
      const m = /^rusage (\S+) (\S+) (\d+)$/m.exec(text);
      if (!m) throw new Error(`no rusage from ${TIME_BIN}: ${JSON.stringify(text.slice(0, 200))}`);
      const user = Number(m[1]) * 1000, sys = Number(m[2]) * 1000;
      return { cpu_ms: user + sys, user_ms: user, sys_ms: sys, rss_mb: Number(m[3]) / 1024 };
    },
  };
}
