/**
 * Runs one command as a child process and measures it from the parent: wall time from spawn to
 * exit, and the time to the first stdout byte (process.hrtime, first 'data' event). Output is
 * collected so that each configuration's result can be checked before its time counts.
 */
import { spawn } from 'node:child_process';

/**
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string,
 *   wallMs: number, firstOutputMs: number, timedOut: boolean }>}
 */
export function runCommand(cmd, args, { timeoutMs = 60_000, env, cwd } = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const elapsedMs = () => Number(process.hrtime.bigint() - start) / 1e6;
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env, cwd });
    let firstOutputMs = NaN;
    const out = [], err = [];
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
    child.stdout.on('data', (chunk) => {
      if (Number.isNaN(firstOutputMs)) firstOutputMs = elapsedMs();
      out.push(chunk);
    });
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code, signal, timedOut,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        wallMs: elapsedMs(),
        firstOutputMs,
      });
    });
  });
}

/** A one-line description of a failed run, for error rows and the log. */
export function describeFailure(r) {
  if (r.timedOut) return 'timed out';
  const why = r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`;
  // The first line says what happened (spindle: "thread N trapped: wasm trap: <reason>"), the
  // last where it came from (the outermost backtrace frame); both, when there are more lines.
  const lines = (r.stderr || r.stdout).trim().split('\n').map((l) => l.trim()).filter(Boolean);
  const text = lines.length > 2 ? `${lines[0]} | ... | ${lines[lines.length - 1]}` : lines.join(' | ');
  return text ? `${why}: ${text.slice(0, 400)}` : why;
}

/**
 * Each run needs an empty directory (a workload that makes DIR/t<i>, say): the command gets a
 * fresh one under `base` through a shell wrapper, which replaces `@DIR` in the arguments by it and
 * removes it afterwards.
 */
export function inFreshDir(exe, args, base) {
  const quote = (a) => `'${a.replace(/'/g, "'\\''").split('@DIR').join(`'"$d"'`)}'`;
  const cmd = [exe, ...args].map(quote).join(' ');
  return ['sh', ['-c', `d=$(mktemp -d "$0/run.XXXXXX") && ${cmd}; s=$?; rm -rf "$d"; exit $s`, base]];
}
