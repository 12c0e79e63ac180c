#!/usr/bin/env node
/**
 * The floor of a thread on Node: bare worker_threads Workers (an eval'd script of a few lines, no
 * wasm, no runtime) in the two shapes of the thread-cost experiment's guests, so that each
 * spindle figure has the cost of the Node workers it cannot avoid beside it (one worker per
 * running wasm thread: a thread that blocks needs its own isolate and OS thread).
 *
 *   node bare-workers.mjs blocked N   N workers alive at once, each blocked in Atomics.wait until
 *                                     the last has started; then released and awaited
 *   node bare-workers.mjs chain D     worker k starts worker k+1 and blocks until it ends (the
 *                                     nested start works while its parent blocks), to depth D
 *   node bare-workers.mjs suspended N one worker holding N wasm stacks suspended at once (JSPI:
 *                                     WebAssembly.Suspending, Node 26+): each a fresh instance of
 *                                     a tiny module on a shared memory, 16 frames deep in a call of
 *                                     a suspending import that awaits Atomics.waitAsync: the floor
 *                                     of a thread that blocks without a worker of its own (several
 *                                     blocked wasm threads per worker), a lower bound as the
 *                                     module is tiny
 *   --limits (first argument)         every worker gets the options spindle's pool workers get
 *                                     (runtime/src/platform/node/index.ts): an old generation of
 *                                     at most 2047 MiB, under V8's 2 GiB threshold for short
 *                                     builtin calls (no private remap of the builtins), SHARE_ENV
 *   --options JSON (first argument)   these Worker options instead ("env": "SHARE_ENV" for it)
 *
 * Prints `bare blocked threads=N joined=N elapsed_ms=F anon_kb=A rss_kb=R` or `bare chain
 * depth=D reached=D elapsed_ms=F` (from the first Worker constructor to the end of the last
 * worker; A and R: the process's anonymous and resident memory while all N workers are alive,
 * from /proc/self/smaps_rollup, -1 without it).
 */
import { SHARE_ENV, Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';

// Words: 0 started (blocked) / reached depth (chain), 1 released (blocked).
const BLOCKED = `
  const { workerData: w } = require('node:worker_threads');
  const words = new Int32Array(w.buf);
  Atomics.add(words, 0, 1);
  Atomics.notify(words, 0);
  while (Atomics.load(words, 1) === 0) Atomics.wait(words, 1, 0);
`;

// Each link waits for its child's end word, as pthread_join waits for the thread's exit.
const CHAIN = `
  const { Worker, SHARE_ENV, workerData: w } = require('node:worker_threads');
  const words = new Int32Array(w.buf);
  Atomics.store(words, 0, w.k);
  if (w.k < w.depth) {
    const done = new Int32Array(new SharedArrayBuffer(4));
    const options = w.limits ? { env: SHARE_ENV, resourceLimits: w.limits } : {};
    new Worker(w.script, { eval: true, ...options, workerData: { ...w, k: w.k + 1, done: done.buffer } });
    while (Atomics.load(done, 0) === 0) Atomics.wait(done, 0, 0);
  }
  const mine = new Int32Array(w.done);
  Atomics.store(mine, 0, 1);
  Atomics.notify(mine, 0);
`;

// The suspended shape: words 0 suspended, 1 released, 2 resumed. The module (bytes below) imports
// a shared memory and h.wait (i32) -> i32, and exports deep(k, d): d calls deep, then wait(k).
const SUSPENDED = `
  const { workerData: w } = require('node:worker_threads');
  const words = new Int32Array(w.buf);
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
  const module = new WebAssembly.Module(new Uint8Array(w.bytes));
  const wait = new WebAssembly.Suspending(async (k) => {
    Atomics.add(words, 0, 1);
    Atomics.notify(words, 0);
    const r = Atomics.waitAsync(words, 1, 0);
    if (r.async) await r.value;
    return k;
  });
  const alive = setInterval(() => {}, 1 << 30); // a pending waitAsync does not keep a worker alive
  const runs = [];
  for (let k = 0; k < w.n; k++) {
    const instance = new WebAssembly.Instance(module, { env: { memory }, h: { wait } });
    runs.push(WebAssembly.promising(instance.exports.deep)(k, 16));
  }
  Promise.all(runs).then((r) => { Atomics.store(words, 2, r.filter((v, k) => v === k + 16).length); clearInterval(alive); });
`;
const DEEP_MODULE = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x0c, 0x02, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, // types (i32)->i32, (i32 i32)->i32
  0x02, 0x19, 0x02, 0x03, 0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03, 0x01, 0x01, // env.memory shared 1..1
  0x01, 0x68, 0x04, 0x77, 0x61, 0x69, 0x74, 0x00, 0x00, // h.wait
  0x03, 0x02, 0x01, 0x01, 0x07, 0x08, 0x01, 0x04, 0x64, 0x65, 0x65, 0x70, 0x00, 0x01, // func deep, exported
  // deep(k, d) = d == 0 ? wait(k) : deep(k, d - 1) + 1
  0x0a, 0x1b, 0x01, 0x19, 0x00, 0x20, 0x01, 0x45, 0x04, 0x7f, 0x20, 0x00, 0x10, 0x00, 0x05,
  0x20, 0x00, 0x20, 0x01, 0x41, 0x01, 0x6b, 0x10, 0x01, 0x41, 0x01, 0x6a, 0x0b, 0x0b,
];

async function suspended(n) {
  if (typeof WebAssembly.Suspending !== 'function') {
    process.stderr.write(`bare-workers: suspended needs JSPI (WebAssembly.Suspending): Node 26 or later; this is ${process.version}\n`);
    return 2;
  }
  const words = new Int32Array(new SharedArrayBuffer(12));
  const t0 = performance.now();
  const worker = new Worker(SUSPENDED, { eval: true, ...options, workerData: { buf: words.buffer, n, bytes: DEEP_MODULE } });
  const end = exited(worker);
  while (Atomics.load(words, 0) < n) await Promise.race([Atomics.waitAsync(words, 0, Atomics.load(words, 0)).value, end]);
  const peak = memoryNow();
  Atomics.store(words, 1, 1);
  Atomics.notify(words, 1);
  const code = await end;
  const joined = code === 0 ? Atomics.load(words, 2) : 0;
  process.stdout.write(`bare suspended threads=${n} joined=${joined} elapsed_ms=${(performance.now() - t0).toFixed(3)} anon_kb=${peak.anon} rss_kb=${peak.rss}\n`);
  return joined === n ? 0 : 1;
}

// Options of every Worker (set from --limits below; the chain's workers pass them on).
let options = {};

const exited = (worker) => new Promise((resolve, reject) => { worker.on('exit', resolve); worker.on('error', reject); });

async function blocked(n) {
  const words = new Int32Array(new SharedArrayBuffer(8));
  const t0 = performance.now();
  const workers = Array.from({ length: n }, () => new Worker(BLOCKED, { eval: true, ...options, workerData: { buf: words.buffer } }));
  const ends = workers.map(exited);
  // The main thread only waits asynchronously: its event loop must stay free for the workers' start.
  while (Atomics.load(words, 0) < n) await Atomics.waitAsync(words, 0, Atomics.load(words, 0)).value;
  const peak = memoryNow();
  Atomics.store(words, 1, 1);
  Atomics.notify(words, 1);
  const codes = await Promise.all(ends);
  const joined = codes.filter((c) => c === 0).length;
  process.stdout.write(`bare blocked threads=${n} joined=${joined} elapsed_ms=${(performance.now() - t0).toFixed(3)} anon_kb=${peak.anon} rss_kb=${peak.rss}\n`);
  return joined === n ? 0 : 1;
}

/** The process's anonymous and resident memory in KiB (Linux), -1 where it cannot be read. */
function memoryNow() {
  let text = '';
  try { text = readFileSync('/proc/self/smaps_rollup', 'utf8'); } catch { /* not Linux */ }
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? -1);
  return { anon: field('Anonymous'), rss: field('Rss') };
}

async function chain(depth) {
  const words = new Int32Array(new SharedArrayBuffer(4));
  const done = new Int32Array(new SharedArrayBuffer(4));
  const t0 = performance.now();
  const limits = options.resourceLimits ?? null;
  const first = new Worker(CHAIN, { eval: true, ...options, workerData: { buf: words.buffer, done: done.buffer, k: 1, depth, script: CHAIN, limits } });
  await exited(first);
  while (Atomics.load(done, 0) === 0) await Atomics.waitAsync(done, 0, 0).value;
  const reached = Atomics.load(words, 0);
  process.stdout.write(`bare chain depth=${depth} reached=${reached} elapsed_ms=${(performance.now() - t0).toFixed(3)}\n`);
  return reached === depth ? 0 : 1;
}

const argv = process.argv.slice(2);
if (argv[0] === '--limits') {
  argv.shift();
  options = { env: SHARE_ENV, resourceLimits: { maxOldGenerationSizeMb: 2047 } };
} else if (argv[0] === '--options') {
  argv.shift();
  options = JSON.parse(argv.shift());
  if (options.env === 'SHARE_ENV') options.env = SHARE_ENV;
}
const [shape, count] = argv;
const n = Number(count);
const SHAPES = { blocked, chain, suspended };
if (!Object.hasOwn(SHAPES, shape) || !Number.isInteger(n) || n < 1) {
  process.stderr.write('usage: node bare-workers.mjs [--limits | --options JSON] blocked N | chain D | suspended N   (N, D >= 1)\n');
  process.exit(2);
}
process.exitCode = await SHAPES[shape](n);
