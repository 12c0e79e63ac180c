import { Worker, isMainThread, workerData } from 'node:worker_threads';
if (isMainThread) {
  const mem = new WebAssembly.Memory({ initial: Number(process.argv[2]), maximum: 65536, shared: true });
  const rl = JSON.parse(process.argv[3]);
  const w = new Worker(new URL(import.meta.url), { resourceLimits: rl, workerData: { mem } });
} else {
  let s = 0; for (let i = 0; i < 1e6; i++) s += [i].length;
}
