// One napi-rs job on one route, in this process; prints one JSON line: what was done, a digest of
// every output (the tests compare routes by it) and the time and peak memory (bench/napi).
//
//   node tests/napi/work.mjs ROUTE JOB [--runs N]
//   ROUTE  stock   the packages' own loaders on @napi-rs/wasm-runtime (tests/napi/stock)
//          direct  spindle/napi's API (loadNapiSync) on the same .wasm files
//          dropin  the packages' own loaders with '@napi-rs/wasm-runtime' installed as spindle's
//                  drop-in (runtime/examples/napi: an npm alias, overrides)
//   JOB    parse        @oxc-parser/binding-wasm32-wasi: parseSync over the corpus (corpus.mjs),
//                       then parse() over it (that work runs on the addon's threads)
//          bundle       rolldown bundles tests/napi/project (files read through WASI: spindle
//                       from a host directory holding the project only)
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

const [route, job] = process.argv.slice(2);
if (!fixtures[route] || !['parse', 'bundle'].includes(job)) {
  console.error('usage: node tests/napi/work.mjs stock|direct|dropin parse|bundle');
  process.exit(2);
}
const fixture = fixtures[route];
const requireFrom = createRequire(join(fixture, 'package.json'));

const t0 = performance.now();
const result = job === 'bundle' ? await bundle() : await parse();
const ms = performance.now() - t0;
console.log(JSON.stringify({ route, job, node: process.versions.node, ...result, ms: Math.round(ms), maxRssKb: process.resourceUsage().maxRSS }));

function oxc() {
  if (route !== 'direct') return requireFrom('@oxc-parser/binding-wasm32-wasi');
  const wasm = requireFrom.resolve('@oxc-parser/binding-wasm32-wasi/parser.wasm32-wasi.wasm');
  return import(pathToFileURL(join(repo, 'runtime', 'dist', 'napi', 'index.js')).href)
    .then(({ loadNapiSync }) => loadNapiSync(wasm));
}

/** parseSync over every file, then parse() over every file, all in flight at once. */
async function parse() {
  const binding = await oxc();
  const files = corpus().map((f) => ({ ...f, text: readFileSync(f.path, 'utf8') }));
  const sync = digestOf(files, (f) => binding.parseSync(f.name, f.text, {}));
  const tAsync = performance.now();
  const results = await Promise.all(files.map((f) => binding.parse(f.name, f.text, {})));
  const asyncMs = Math.round(performance.now() - tAsync);
  const async = digestOf(files, (_, i) => results[i]);
  return { files: files.length, errors: sync.errors, digest: sync.digest, asyncDigest: async.digest, asyncMs };
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

async function bundle() {
  if (route === 'direct') process.env.NAPI_RS_NATIVE_LIBRARY_PATH = join(here, 'rolldown-direct.cjs');
  else process.env.NAPI_RS_FORCE_WASI = 'true';
  const { rolldown } = await import(pathToFileURL(requireFrom.resolve('rolldown')).href);
  const b = await rolldown({ input: 'src/main.ts', cwd: project, logLevel: 'silent' });
  const out = await b.generate({ format: 'esm', sourcemap: false });
  await b.close();
  const h = createHash('sha256');
  const chunks = out.output.map((o) => [o.fileName, o.type === 'chunk' ? o.code : String(o.source)]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  for (const c of chunks) h.update(JSON.stringify(c));
  return { files: chunks.length, bytes: chunks.reduce((n, c) => n + c[1].length, 0), digest: h.digest('hex') };
}
