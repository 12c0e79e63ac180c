/**
 * How each configuration is started: the command lines for spindle's CLI, the peer stack
 * (@emnapi/wasi-threads with node:wasi or @tybys/wasm-util), node:wasi and native programs.
 * Every wasm configuration is a fresh `node` process, so each run pays its own start-up.
 */
import { join } from 'node:path';

export function commands(ctx) {
  const node = process.execPath;
  const hosts = join(ctx.benchDir, 'hosts');
  // Peers: node:wasi prints an ExperimentalWarning on every thread; silence it so that stderr
  // stays readable (it does not touch stdout, which is what is timed).
  const peer = (script, ...args) => [node, ['--no-warnings', join(hosts, script), ...args]];
  return {
    spindle: (wasm, args, flags = []) => [node, [ctx.spindleCli, 'run', ...flags, wasm, ...args]],
    emnapi: (wasm, args, { wasi = 'node', pool = 0, hrtimeClock = false } = {}) =>
      peer('emnapi-run.mjs', '--wasi', wasi, '--pool', String(pool), ...(hrtimeClock ? ['--hrtime-clock'] : []), wasm, ...args),
    nodeWasi: (wasm, args) => peer('node-wasi-run.mjs', wasm, ...args),
    native: (exe, args) => [exe, args],
    nodeOnly: (text) => [node, ['-e', `process.stdout.write(${JSON.stringify(text)})`]],
  };
}
