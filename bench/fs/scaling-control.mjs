// The machine's ceiling for the fs experiment's T=2 / T=1 goal: interleaves, N times,
//   alone      one process, one thread (`threads ROUNDS /tmp 1`);
//   2 procs    two such processes at once (combined throughput: no shared state at all);
//   T=2        one process, two threads on their own files (`threads ROUNDS /tmp 2`),
// and prints ns per operation for each and the ratios of the medians. If T=2 matches "2 procs",
// the program adds no contention between its threads, and what keeps T=2 / T=1 from 2x is the
// machine (on a VM: vCPUs of different and changing speed, steal). Timings, not a test.
//
// Usage: node bench/fs/scaling-control.mjs [N=8] [ROUNDS=730] [WASM=build/bench/fs/fs-inprogram.wasm]
//        (build first: bash bench/fs/build.sh; the spindle CLI: runtime/dist/cli.js)
//        WASM may also be the native build (build/bench/fs/fs-native): then DIR is a fresh tmpfs dir.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fsCheck } from './experiment.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [n = 8, rounds = 730] = process.argv.slice(2, 4).map(Number);
const program = process.argv[4] ?? join(repo, 'build', 'bench', 'fs', 'fs-inprogram.wasm');
const native = !program.endsWith('.wasm');

/** Runs the workload with `threads` threads; resolves to ns per operation (all threads), after
 * the experiment's own check (every operation done, the checksum of what was read back). */
function run(threads) {
  const dir = native ? mkdtempSync('/dev/shm/spindle-scaling-') : '/tmp';
  const args = ['threads', String(rounds), dir, String(threads)];
  const [exe, argv] = native ? [program, args] : [process.execPath, [join(repo, 'runtime', 'dist', 'cli.js'), 'run', program, ...args]];
  return new Promise((resolve, reject) => {
    const p = spawn(exe, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('close', (code) => {
      if (native) rmSync(dir, { recursive: true, force: true });
      try {
        if (code !== 0) throw new Error(`exited ${code}`);
        resolve(fsCheck(rounds, threads)({ stdout: out }).ns_per_op);
      } catch (e) {
        reject(new Error(`${exe}: ${e.message}: ${out.trim()}`));
      }
    });
  });
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const rows = { alone: [], procs: [], t2: [] };
for (let i = 0; i < n; i++) {
  rows.alone.push(await run(1));
  const [a, b] = await Promise.all([run(1), run(1)]);
  rows.procs.push(1 / (1 / a + 1 / b));
  rows.t2.push(await run(2));
  console.log(`alone ${rows.alone[i].toFixed(0)} | 2 procs ${a.toFixed(0)} + ${b.toFixed(0)} -> ${rows.procs[i].toFixed(0)} | T=2 ${rows.t2[i].toFixed(0)}  (ns/op)`);
}
const [al, pr, t2] = [median(rows.alone), median(rows.procs), median(rows.t2)];
console.log(`medians (ns/op): alone ${al.toFixed(0)}, 2 procs ${pr.toFixed(0)}, T=2 ${t2.toFixed(0)}`);
console.log(`throughput vs alone: 2 procs ${(al / pr).toFixed(2)}x, T=2 ${(al / t2).toFixed(2)}x; T=2 / 2 procs ${(pr / t2).toFixed(2)}`);
