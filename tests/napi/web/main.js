// One job in the page: ?job=parse|bundle&route=stock|dropin|direct[&repeat=N]. The result goes to
// window.napiResult: { route, job, files, digest, loadMs, jobMs } (or { error }).
//   parse   @oxc-parser/binding-wasm32-wasi parses every file of corpus/ (list.json), with
//           parseSync and then parse() (on the addon's threads)
//   bundle  rolldown's binding bundles project/ from a memory filesystem (the loader's memfs:
//           @napi-rs/wasm-runtime's on the stock route, spindle's otherwise)
//   channel  spindle/napi only: 300 parse() calls one at a time, while a listener in the page
//           on every BroadcastChannel name of spindle/napi's counts the 'async-send' messages of
//           emnapi it hears: what every pool worker's instance of that name would receive, and,
//           its JavaScript never running again while it serves, queue for good
//   lock    spindle/napi only (direct): the peer-problem addon (build/napi/peer.wasm, copied to
//           peer/ by pages.mjs) runs contendedLock(): its instance on the page's thread waits for
//           a mutex one of its threads holds (?ms=, default 50)
//   first   spindle/napi only: loads owner-first.js's module (whose start function initializes
//           the shared memory slowly, as wasm-ld's __wasm_init_memory) with the page's instance
//           made late on purpose: once the pool has its WorkerInit, the page's thread spins until
//           some instance has claimed the memory's initialization (at most FIRST_SPIN_MS)
// The routes stock and dropin import the packages' own generated browser loaders; which runtime
// they get is the build's choice (vite.config.js). direct loads the .wasm with spindle/napi.
import { bundleProject } from './rolldown-driver.js';
import { INIT_FLAG, ownerFirstModule } from './owner-first.js';

const params = new URLSearchParams(location.search);
const job = params.get('job');
const route = params.get('route');
const $status = document.getElementById('status');

async function sha256(text) {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The digest of a list of strings (one SHA-256 per item, then one over the hashes). */
async function digestOf(items) {
  const hashes = [];
  for (const item of items) hashes.push(await sha256(item));
  return sha256(hashes.join('\n'));
}

async function oxc() {
  if (route !== 'direct') return import('@oxc-parser/binding-wasm32-wasi');
  const [{ loadNapi }, { default: url }] = await Promise.all([
    import('spindle/napi'), import('@oxc-parser/binding-wasm32-wasi/parser.wasm32-wasi.wasm?url')]);
  return loadNapi(url);
}

async function parse() {
  const list = await (await fetch('corpus/list.json')).json();
  const texts = await Promise.all(list.map((f) => fetch(`corpus/${f.file}`).then((r) => r.text())));
  const t0 = performance.now();
  const binding = await oxc();
  const loadMs = performance.now() - t0;
  let syncMs = 0;
  const out = list.map((f, i) => {
    const t = performance.now();
    const r = binding.parseSync(f.name, texts[i], {});
    syncMs += performance.now() - t;
    return JSON.stringify([f.name, r.program, r.module, r.comments, r.errors]);
  });
  const t2 = performance.now();
  const results = await Promise.all(list.map((f, i) => binding.parse(f.name, texts[i], {})));
  const asyncMs = performance.now() - t2;
  const asyncOut = results.map((r, i) => JSON.stringify([list[i].name, r.program, r.module, r.comments, r.errors]));
  return { files: list.length, digest: await digestOf(out), asyncDigest: await digestOf(asyncOut), loadMs, jobMs: syncMs + asyncMs, syncMs, asyncMs };
}

async function rolldownBinding(files) {
  if (route !== 'direct') {
    const binding = await import('@rolldown/binding-wasm32-wasi');
    binding.__volume.fromJSON(files, '/');
    return binding;
  }
  const [{ loadNapi }, { memfs }, { default: url }] = await Promise.all([
    import('spindle/napi'), import('spindle/napi/fs'), import('@rolldown/binding-wasm32-wasi/rolldown-binding.wasm32-wasi.wasm?url')]);
  const { fs } = memfs(files, '/');
  return loadNapi(url, { memfs: fs });
}

/** Bundles `repeat` times (?repeat=N, default 1): jobMs per bundle (mean), firstMs the first (cold code). */
async function bundle() {
  const list = await (await fetch('project/list.json')).json();
  const files = Object.fromEntries(await Promise.all(list.map(async (p) => [`/project/${p}`, await (await fetch(`project/${p}`)).text()])));
  const t0 = performance.now();
  const binding = await rolldownBinding(files);
  const loadMs = performance.now() - t0;
  const repeat = Number(params.get('repeat') ?? 1);
  let chunks;
  let firstMs;
  const t1 = performance.now();
  for (let i = 0; i < repeat; i++) {
    chunks = await bundleProject(binding, '/project', 'src/main.ts');
    firstMs ??= performance.now() - t1;
  }
  const jobMs = (performance.now() - t1) / repeat;
  return { files: chunks.length, bytes: chunks.reduce((n, c) => n + c[1].length, 0), digest: await digestOf(chunks.map((c) => JSON.stringify(c))), loadMs, jobMs, firstMs };
}

async function channel() {
  const heard = { names: 0, asyncSend: 0 };
  const Channel = globalThis.BroadcastChannel;
  globalThis.BroadcastChannel = class extends Channel {
    constructor(name) {
      super(name);
      if (!String(name).startsWith('spindle-napi-')) return;
      heard.names++;
      new Channel(name).onmessage = (e) => { if (e.data?.__emnapi__?.type === 'async-send') heard.asyncSend++; };
    }
  };
  const binding = await oxc();
  const parse = async (i) => JSON.parse((await binding.parse(`a${i}.ts`, `let n${i}: number = ${i}`, {})).program).node.body[0].declarations[0].id.name;
  // The addon's pool threads start and say they are ready; then the count starts.
  for (let i = 0; i < 20; i++) await parse(i);
  await new Promise((w) => setTimeout(w, 50));
  heard.asyncSend = 0;
  const names = [];
  for (let i = 0; i < 300; i++) names.push(await parse(i));
  await new Promise((w) => setTimeout(w, 50));
  return { calls: names.length, right: names.every((n, i) => n === `n${i}`), channelNames: heard.names, heard: heard.asyncSend };
}

async function lock() {
  const { loadNapi } = await import('spindle/napi');
  const peer = await loadNapi(new URL('peer/peer.wasm', location.href));
  return { result: peer.contendedLock(params.get('ms') ?? '50') };
}

/** How long the `first` job holds the page's instance back, at most (ms). */
const FIRST_SPIN_MS = 3000;
/** How long its compile takes, at least (ms): the pool's spare workers boot meanwhile (a worker's script loads only while the page's thread is free). */
const FIRST_COMPILE_MS = 1000;

/**
 * A pool worker's instance must never be the first of the program (its start function would
 * initialize the shared memory while the page's instance, arriving second, waits for it: a trap,
 * as the page's thread may not wait). As rolldown's load on a loaded machine once had it: the
 * pool's spare workers boot while the addon compiles (made slow here: FIRST_COMPILE_MS), get
 * their WorkerInit when spindle starts the program, inside the instantiate, and the page's thread
 * is held back before it instantiates (here, in a getter of the import object that spindle reads
 * there) until some instance claims the memory's initialization, or FIRST_SPIN_MS. Reports
 * whether the compile and the hold happened (`slowed`, `held`), the hold's length, the memory's
 * initialization flag when it ended (0: no instance had claimed it, as it must be) and at the end
 * (2: done). Chromium traps without the page's instance coming first; Firefox ESR lets the page's
 * thread wait there.
 */
async function first() {
  const { instantiateNapiModule, napiPoolStats } = await import('spindle/napi');
  const memory = new WebAssembly.Memory({ initial: 2, maximum: 16, shared: true });
  const flag = new Int32Array(memory.buffer, INIT_FLAG, 1);
  let posted = false;
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message?.control instanceof SharedArrayBuffer) posted = true; // a WorkerInit
    return post.call(this, message, ...rest);
  };
  const compile = WebAssembly.compile;
  let slowed = false;
  WebAssembly.compile = async (...args) => {
    slowed = true;
    await new Promise((wake) => setTimeout(wake, FIRST_COMPILE_MS));
    return compile.apply(WebAssembly, args);
  };
  let heldMs;
  let flagAfterHold;
  const hold = () => {
    if (!posted || heldMs !== undefined) return undefined;
    const t = performance.now();
    while (Atomics.load(flag, 0) === 0 && performance.now() - t < FIRST_SPIN_MS);
    heldMs = performance.now() - t;
    flagAfterHold = Atomics.load(flag, 0);
    return undefined;
  };
  try {
    const source = await instantiateNapiModule(ownerFirstModule(), {
      overwriteImports: (io) => {
        const env = { ...io.env, memory };
        Object.defineProperty(env, 'spindle_test_hold', { enumerable: true, get: hold });
        return { ...io, env };
      },
    });
    return { slowed, held: heldMs !== undefined, heldMs, flagAfterHold, flag: Atomics.load(flag, 0), workers: napiPoolStats(source.napiModule.exports).started };
  } finally {
    Worker.prototype.postMessage = post;
    WebAssembly.compile = compile;
  }
}

try {
  if (!__ROUTES__.includes(route)) throw new Error(`route ${route} is not in this build (it has ${__ROUTES__.join(', ')})`);
  const jobs = { parse, bundle, channel, lock, first };
  if (!Object.hasOwn(jobs, job)) throw new Error(`no job ${job}`);
  const result = await jobs[job]();
  window.napiResult = { route, job, ...result };
} catch (e) {
  window.napiResult = { route, job, error: `${e?.code ?? e?.name ?? 'Error'}: ${e?.message ?? e}`, stack: String(e?.stack ?? '') };
}
$status.textContent = JSON.stringify(window.napiResult, null, 1);
