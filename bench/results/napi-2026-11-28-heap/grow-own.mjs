import { Worker, isMainThread, workerData } from 'node:worker_threads';
if (isMainThread) {
  const mem = new WebAssembly.Memory({ initial: 15000, maximum: 65536, shared: true });
  new Worker(new URL(import.meta.url), { resourceLimits: JSON.parse(process.argv[2]), workerData: { mem } });
} else {
  const { mem } = workerData;
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) { mem.grow(16); const a = []; for (let j = 0; j < 1000; j++) a.push({ j }); }
  console.log('grew to', mem.buffer.byteLength / 1048576, 'MB in', (performance.now() - t0).toFixed(0), 'ms');
}
