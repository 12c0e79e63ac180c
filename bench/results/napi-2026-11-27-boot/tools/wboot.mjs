import { Worker, SHARE_ENV } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
const N = Number(process.argv[2] ?? 20);
const variants = {
  plain: {},
  spindle: { env: SHARE_ENV, stdout: false, stderr: false, trackUnmanagedFds: false, resourceLimits: { maxOldGenerationSizeMb: 2047 } },
  nolimits: { env: SHARE_ENV, stdout: false, stderr: false, trackUnmanagedFds: false },
  limitsOnly: { resourceLimits: { maxOldGenerationSizeMb: 2047 } },
  execArgvEmpty: { env: SHARE_ENV, stdout: false, stderr: false, trackUnmanagedFds: false, resourceLimits: { maxOldGenerationSizeMb: 2047 }, execArgv: [] },
};
const res = {};
for (let r = 0; r < N; r++) for (const [k, o] of Object.entries(variants)) {
  const w = new Worker(new URL('./first.cjs', import.meta.url), o);
  const cpu = await new Promise((res) => w.once('message', res));
  await w.terminate();
  (res[k] ??= []).push(cpu);
}
const med = (a) => { a = [...a].sort((x, y) => x - y); return a[a.length >> 1]; };
for (const [k, a] of Object.entries(res)) console.log(k.padEnd(14), 'median', med(a).toFixed(1), 'min', Math.min(...a).toFixed(1), 'mean', (a.reduce((x, y) => x + y) / a.length).toFixed(1));
