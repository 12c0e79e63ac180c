// Does a process that hosted threads run wasm as fast afterwards? On Node 22 the first spawn
// beyond the pool sets a V8 flag (runtime/src/jspi.ts workerJspiFlag) for the rest of the
// process: workers started after it have the earlier JSPI. One process runs math T=1 (the
// bench's math.wasm: one long loop) RUNS times, then a program that starts 16 blocked threads
// with a pool of 2 (hosted with `hosted`, a worker each with `workers`), then math T=1 RUNS times
// again, each run a fresh createProgram (a new compile and new workers, after the flag).
//
//   node flag-after.mjs hosted|workers MATH_WASM BLOCKED_WASM [RUNS]
//   prints: flag-after mode=M before_ms=MEDIAN after_ms=MEDIAN ratio=AFTER/BEFORE started=N
import { createProgram, load } from '../../../runtime/dist/index.js';

const [mode, mathWasm, blockedWasm, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);

async function runOnce(wasm, args, options = {}) {
  let out = '';
  const program = createProgram(await load(wasm), { args, stdin: '', ...options, stdout: (b) => { out += Buffer.from(b).toString(); }, stderr: (b) => { out += Buffer.from(b).toString(); } });
  const code = await program.start();
  if (code !== 0) throw new Error(`${wasm} exited ${code}: ${out}`);
  return { out, stats: program.poolStats() };
}

async function mathMs() {
  const { out } = await runOnce(mathWasm, ['1']);
  const m = /elapsed_ms=([\d.]+)/.exec(out);
  if (!m) throw new Error(`no elapsed_ms in: ${out}`);
  return Number(m[1]);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const before = [], after = [];
for (let i = 0; i < runs; i++) before.push(await mathMs());
const { out, stats } = await runOnce(blockedWasm, ['16'], { threads: 2, hostThreads: mode === 'hosted' });
if (!/joined=16/.test(out)) throw new Error(`blocked: ${out}`);
for (let i = 0; i < runs; i++) after.push(await mathMs());
const b = median(before), a = median(after);
console.log(`flag-after mode=${mode} before_ms=${b.toFixed(1)} after_ms=${a.toFixed(1)} ratio=${(a / b).toFixed(3)} started=${stats.started} before=${before.map((x) => x.toFixed(0)).join(',')} after=${after.map((x) => x.toFixed(0)).join(',')}`);
