// Reproduction for docs/known-issues/v8-tail-call-terminate.md: can worker.terminate() end a
// worker running wasm that never returns? Shapes (argument; default all three, one process each):
//   loop        (func $loop (loop br 0))                                   ends on every line
//   tail        (func $ping return_call $pong) (func $pong return_call $ping)   hangs on Node 24, 26
//   tail-call   the same, each first calling an empty function (a plain call every step): ends
// Prints one line per shape; a shape that is not ended within 5 s is reported and the process
// killed (SIGKILL: process.exit waits for the worker too). No dependency: node this-file.mjs
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const shape = process.argv[2];
if (!shape) {
  for (const s of ['loop', 'tail', 'tail-call']) {
    const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), s], { encoding: 'utf8', timeout: 20_000 });
    process.stdout.write(r.stdout || `${process.version} ${s}: killed (status ${r.status}, signal ${r.signal})\n`);
  }
} else {
  const w = new Worker(`
    const { workerData: shape, parentPort } = require('node:worker_threads');
    const sec = (id, b) => [id, b.length, ...b];
    const pre = shape === 'tail-call' ? [0x10, 0x03] : []; // call $nop
    const ping = [0x00, ...pre, 0x12, 0x01, 0x0b], pong = [0x00, ...pre, 0x12, 0x00, 0x0b];
    const loop = [0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b], nop = [0x00, 0x0b];
    const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...sec(1, [1, 0x60, 0, 0]), ...sec(3, [4, 0, 0, 0, 0]),
      ...sec(7, [2, 4, ...Buffer.from('ping'), 0, 0, 4, ...Buffer.from('loop'), 0, 2]),
      ...sec(10, [4, ping.length, ...ping, pong.length, ...pong, loop.length, ...loop, nop.length, ...nop])]);
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
    parentPort.postMessage('running');
    shape === 'loop' ? exports.loop() : exports.ping();
  `, { eval: true, workerData: shape });
  w.once('message', () => setTimeout(async () => {
    const t0 = Date.now();
    setTimeout(() => {
      process.stdout.write(`${process.version} (V8 ${process.versions.v8}) ${shape}: terminate() did not end the worker within 5 s\n`);
      process.kill(process.pid, 'SIGKILL');
    }, 5000).unref();
    await w.terminate();
    process.stdout.write(`${process.version} (V8 ${process.versions.v8}) ${shape}: terminate() ended the worker in ${Date.now() - t0} ms\n`);
  }, 300));
}
