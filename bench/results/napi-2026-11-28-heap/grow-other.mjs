import { Worker, isMainThread, workerData } from 'node:worker_threads';
if (isMainThread) {
  const mem = new WebAssembly.Memory({ initial: 8192, maximum: 65536, shared: true });
  const rl = JSON.parse(process.argv[2]);
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const w = new Worker(new URL(import.meta.url), { resourceLimits: rl, workerData: { mem, flag } });
  setTimeout(() => {
    for (let i = 0; i < 24; i++) { mem.grow(1024); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); }
    Atomics.store(flag, 0, 1);
  }, 200);
} else {
  const { mem, flag } = workerData;
  let s = 0, n = 0;
  while (Atomics.load(flag, 0) === 0) { for (let i = 0; i < 1e4; i++) s += [i].length; n += mem.buffer.byteLength > 0 ? 1 : 0; }
  console.log('worker saw', mem.buffer.byteLength / 1048576, 'MB');
}
