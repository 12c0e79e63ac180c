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
// The routes stock and dropin import the packages' own generated browser loaders; which runtime
// they get is the build's choice (vite.config.js). direct loads the .wasm with spindle/napi.
import { bundleProject } from './rolldown-driver.js';

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

try {
  if (!__ROUTES__.includes(route)) throw new Error(`route ${route} is not in this build (it has ${__ROUTES__.join(', ')})`);
  const jobs = { parse, bundle, channel, lock };
  if (!Object.hasOwn(jobs, job)) throw new Error(`no job ${job}`);
  const result = await jobs[job]();
  window.napiResult = { route, job, ...result };
} catch (e) {
  window.napiResult = { route, job, error: `${e?.code ?? e?.name ?? 'Error'}: ${e?.message ?? e}`, stack: String(e?.stack ?? '') };
}
$status.textContent = JSON.stringify(window.napiResult, null, 1);
