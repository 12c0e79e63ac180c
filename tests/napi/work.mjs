// One napi-rs job on one route, in this process; prints one JSON line: what was done, a digest of
// every output (the tests compare routes by it) and the time and peak memory (bench/napi).
//
//   node tests/napi/work.mjs ROUTE JOB [--project DIR] [--repeat N] [--settle MS]
//   ROUTE  stock   the packages' own loaders on @napi-rs/wasm-runtime (tests/napi/stock)
//          direct  spindle/napi's API (loadNapiSync) on the same .wasm files
//          dropin  the packages' own loaders with '@napi-rs/wasm-runtime' installed as spindle's
//                  drop-in (runtime/examples/napi: an npm alias, overrides)
//   JOB    parse        @oxc-parser/binding-wasm32-wasi: parseSync over the corpus (corpus.mjs),
//                       then parse() over it (that work runs on the addon's threads)
//          bundle       rolldown bundles tests/napi/project, or --project DIR (files read through
//                       WASI: spindle from a host directory holding the project only), N times
//                       (--repeat, default 1; the digest is the last bundle's)
//   --settle MS  waits MS ms between loading the binding and the job, so that what the load left
//                running (pool workers booting, V8's background compiles) is done before the job
//                (bench/results/napi-2026-11-27-first and -boot: is bundle 1's cost its own?)
// Times: loadMs (loading the binding), jobMs (the job after that, per repetition for bundle: the
// mean), firstMs (bundle: the first repetition, on code not yet optimized); loadCpuMs and jobCpuMs
// the CPU time of the process (all its threads) in the same spans, which a loaded machine
// inflates far less than wall time.
//
// The digest covers everything the binding returns (parse: program, module, comments, errors per
// file; bundle: every output chunk's file name and code), so equal digests mean equal output.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { corpus } from './corpus.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
export const fixtures = {
  stock: join(here, 'stock'),
  dropin: join(repo, 'runtime', 'examples', 'napi'),
  direct: join(here, 'stock'),
};
export const project = join(here, 'project');

const [route, job, ...rest] = process.argv.slice(2);
const option = (name, fallback) => { const i = rest.indexOf(name); return i >= 0 ? rest[i + 1] : fallback; };
const projectDir = option('--project', project);
const repeat = Number(option('--repeat', '1'));
const settleMs = Number(option('--settle', '0'));
if (!fixtures[route] || !['parse', 'bundle'].includes(job) || !(repeat >= 1) || !(settleMs >= 0)) {
  console.error('usage: node tests/napi/work.mjs stock|direct|dropin parse|bundle [--project DIR] [--repeat N] [--settle MS]');
  process.exit(2);
}
const fixture = fixtures[route];
const requireFrom = createRequire(join(fixture, 'package.json'));

const t0 = performance.now();
const result = job === 'bundle' ? await bundle() : await parse();
const ms = performance.now() - t0;
const usage = process.resourceUsage();
const cpuMs = Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000);
console.log(JSON.stringify({ route, job, node: process.versions.node, ...result, ms: Math.round(ms), cpuMs, maxRssKb: usage.maxRSS }));

function oxc() {
  if (route !== 'direct') return requireFrom('@oxc-parser/binding-wasm32-wasi');
  const wasm = requireFrom.resolve('@oxc-parser/binding-wasm32-wasi/parser.wasm32-wasi.wasm');
  return import(pathToFileURL(join(repo, 'runtime', 'dist', 'napi', 'index.js')).href)
    .then(({ loadNapiSync }) => loadNapiSync(wasm));
}

/**
 * parseSync over every file, then parse() over every file, all in flight at once. jobMs counts
 * the parse calls only, not the digest of their output (the same work on every route).
 */
async function parse() {
  const files = corpus().map((f) => ({ ...f, text: readFileSync(f.path, 'utf8') }));
  const tLoad = performance.now();
  const cLoad = process.cpuUsage();
  const binding = await oxc();
  const loadMs = Math.round(performance.now() - tLoad);
  const loadCpuMs = Math.round(cpuMsSince(cLoad));
  await settle();
  let jobCpuUs = 0;
  let syncMs = 0;
  const sync = digestOf(files, (f) => {
    const t = performance.now();
    const c = process.cpuUsage();
    const r = binding.parseSync(f.name, f.text, {});
    syncMs += performance.now() - t;
    jobCpuUs += cpuMsSince(c) * 1000;
    return r;
  });
  const tAsync = performance.now();
  const cAsync = process.cpuUsage();
  const results = await Promise.all(files.map((f) => binding.parse(f.name, f.text, {})));
  const asyncMs = performance.now() - tAsync;
  jobCpuUs += cpuMsSince(cAsync) * 1000;
  const async = digestOf(files, (_, i) => results[i]);
  return { files: files.length, errors: sync.errors, digest: sync.digest, asyncDigest: async.digest, loadMs,
    jobMs: Math.round(syncMs + asyncMs), syncMs: Math.round(syncMs), asyncMs: Math.round(asyncMs), loadCpuMs, jobCpuMs: Math.round(jobCpuUs / 1000) };
}

/** CPU time of the whole process (every thread, user + system) since `start` (process.cpuUsage()), in ms. */
function cpuMsSince(start) {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** A digest of every file's result, each hashed as soon as `resultOf` gives it. */
function digestOf(files, resultOf) {
  const h = createHash('sha256');
  let errors = 0;
  files.forEach((f, i) => {
    const r = resultOf(f, i);
    errors += r.errors.length;
    h.update(JSON.stringify([f.name, r.program, r.module, r.comments, r.errors]));
  });
  return { errors, digest: h.digest('hex') };
}

/**
 * Ends the process when a spindle route is not on spindle. rolldown's loader takes its binding
 * from NAPI_RS_NATIVE_LIBRARY_PATH inside a try and, when that module is missing or throws,
 * silently falls back to the stock loader: the output is the same, so the digests cannot tell.
 * A module that loaded stays in require.cache with `loaded` set (a throw removes it).
 */
function requireSpindleBinding() {
  if (route === 'direct') {
    const entry = createRequire(import.meta.url).cache[join(here, 'rolldown-direct.cjs')];
    if (entry?.loaded) return;
    console.error(`spindle: the direct route did not load ${join(here, 'rolldown-direct.cjs')} (missing, or it threw): rolldown fell back to its own loader`);
    process.exit(3);
  }
  if (route === 'dropin') {
    const binding = requireFrom.resolve('@rolldown/binding-wasm32-wasi/rolldown-binding.wasm32-wasi.wasm');
    const runtime = createRequire(binding).resolve('@napi-rs/wasm-runtime');
    const name = JSON.parse(readFileSync(join(dirname(runtime), 'package.json'), 'utf8')).name;
    if (name === 'spindle-napi-runtime') return;
    console.error(`spindle: the drop-in route resolves @napi-rs/wasm-runtime to ${runtime} (${name}), not spindle's: run 'bash tests/napi/setup.sh'`);
    process.exit(3);
  }
}

async function bundle() {
  if (route === 'direct') {
    process.env.NAPI_RS_NATIVE_LIBRARY_PATH = join(here, 'rolldown-direct.cjs');
    process.env.SPINDLE_NAPI_PROJECT = projectDir;
  } else {
    process.env.NAPI_RS_FORCE_WASI = 'true';
  }
  const tLoad = performance.now();
  const cLoad = process.cpuUsage();
  const { rolldown } = await import(pathToFileURL(requireFrom.resolve('rolldown')).href);
  requireSpindleBinding();
  const loadMs = Math.round(performance.now() - tLoad);
  const loadCpuMs = Math.round(cpuMsSince(cLoad));
  await settle();
  const tJob = performance.now();
  const cJob = process.cpuUsage();
  let out;
  let firstMs;
  for (let i = 0; i < repeat; i++) {
    const b = await rolldown({ input: 'src/main.ts', cwd: projectDir, logLevel: 'silent' });
    out = await b.generate({ format: 'esm', sourcemap: false });
    await b.close();
    firstMs ??= Math.round(performance.now() - tJob);
  }
  const jobMs = Math.round((performance.now() - tJob) / repeat);
  const jobCpuMs = Math.round(cpuMsSince(cJob) / repeat);
  const h = createHash('sha256');
  const chunks = out.output.map((o) => [o.fileName, o.type === 'chunk' ? o.code : String(o.source)]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  for (const c of chunks) h.update(JSON.stringify(c));
  return { files: chunks.length, bytes: chunks.reduce((n, c) => n + c[1].length, 0), digest: h.digest('hex'), loadMs, jobMs, firstMs, loadCpuMs, jobCpuMs };
}

/** The pause `--settle` asks for, between the load and the job. */
function settle() {
  return settleMs > 0 ? new Promise((resolve) => setTimeout(resolve, settleMs)) : undefined;
}
