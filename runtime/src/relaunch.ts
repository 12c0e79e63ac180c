/**
 * The CLI's relaunch: when a program needs V8 flags this process was not started with
 * (compile-policy.ts), the CLI starts Node again with them, running the same command line, and
 * supervises it: signals sent to this process are passed on, and this process ends with the
 * child's status. A crash of Node itself (a V8 abort is SIGTRAP or SIGABRT; SIGSEGV, ...) becomes
 * one line saying so and status 128 + the signal's number, so it never passes for the program's
 * own result. A signal from outside (SIGINT, SIGTERM, ...) ends this process the same way.
 *
 * Costs one Node start-up (tens of ms); only threaded programs in the default mode need it.
 */
import type { spawn as Spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';

// node:child_process is loaded only for a relaunch: the CLI's bundle would otherwise load it (and
// what it requires, ~2-3 ms of CPU) at every start, relaunch or not.
const lazyRequire = createRequire(import.meta.url);

/** Signals by which Node itself crashed, rather than being stopped from outside. */
const CRASH_SIGNALS = new Set(['SIGABRT', 'SIGTRAP', 'SIGSEGV', 'SIGBUS', 'SIGILL', 'SIGFPE', 'SIGSYS']);
/** Signals this process passes on to the child (the child may be in another process group). */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

/**
 * Runs this process's command line again in `node FLAGS...`; never returns: this process exits
 * with the child's status.
 */
export function relaunch(flags: readonly string[], programName: string): Promise<never> {
  const args = [...flags, ...process.execArgv, process.argv[1]!, ...process.argv.slice(2)];
  const { spawn } = lazyRequire('node:child_process') as { spawn: typeof Spawn };
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals): void => { child.kill(signal); };
  for (const s of FORWARDED) process.on(s, forward);
  return new Promise<never>(() => {
    child.on('error', (e) => {
      writeSync(2, `spindle: error: cannot start Node again with ${flags.join(' ')} for ${programName}: ${e.message}; `
        + `run it as: node ${flags.join(' ')} ${process.argv[1]} ...\n`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => {
      if (code !== null) process.exit(code);
      const number = constants.signals[signal as keyof typeof constants.signals] ?? 0;
      if (CRASH_SIGNALS.has(signal!)) {
        writeSync(2, `spindle: error: Node crashed (${signal}) while running ${programName}: a fault of V8 or Node, `
          + 'not a result of the program (V8\'s report, if any, is above)\n');
        process.exit(128 + number);
      }
      // Stopped from outside: end the same way, so the caller sees the signal.
      for (const s of FORWARDED) process.off(s, forward);
      process.kill(process.pid, signal!);
      setTimeout(() => process.exit(128 + number), 100);
    });
  });
}
