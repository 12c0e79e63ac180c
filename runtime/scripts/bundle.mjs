// Bundles the Node entry points that start-up time depends on, after `tsc` (dist/ must exist):
//   dist/cli-bundle.cjs   the CLI (src/cli.ts) and the runtime, one CommonJS file (was: ~30 ES
//                         modules)
//   dist/cli.cjs          the `spindle` command (package.json "bin", src/cli-start.ts): runs
//                         cli-bundle.cjs with V8's code cache of it kept across runs (cli-start.ts
//                         says why and how; it gets the bundle's content hash from here)
//   dist/cli.js           what `node runtime/dist/cli.js` runs: a three-line ES module that
//                         requires dist/cli.cjs
//   dist/node-worker.cjs  the pool worker for Node (src/node-worker.ts), one CommonJS file (an iife),
//                         started through dist/node-worker-loader.cjs (platform/node/worker-code.ts)
//                         (dist/worker.js stays for browsers)
//   dist/napi-worker.cjs  the napi host's pool worker for Node (src/napi/node-worker.ts and emnapi), one
//                         CommonJS file (an iife), started through dist/node-worker-loader.cjs too
//                         (dist/napi/worker.js stays for browsers and bundlers)
//   dist/napi/napi-bundle.cjs  spindle/napi in Node (src/napi/index.ts and emnapi), one CommonJS
//                         file, run by dist/napi/index.cjs (package.json "require") with V8's code
//                         cache of it kept across runs (platform/node/bundle-cache.ts; the bundle's
//                         content hash from here); dist/napi/index.js becomes a shim that requires
//                         index.cjs
// Loading one file instead of ~30 modules saves ~30 ms per process and per worker. CommonJS rather
// than one ES module: Node's ES module loader costs a process ~5 ms of CPU before the first line
// runs (reading package.json for "type", an asynchronous read through node:fs/promises and its
// streams, linking), and ~5 ms more where no package.json says "type": "module" (Node 20.19+
// first compiles the file as CommonJS, fails, then as a module). Measured on Node 20, 2 cores,
// 12-15 runs, CPU time (user+sys) of `--version`: node -e 0 53 ms, the ES module bundle 63-64 ms
// (69 without a package.json beside it), the CommonJS bundle 57-58 ms. A worker that loads
// CommonJS also skips the ES module loader (~8 ms of CPU per worker, ~0.5 MB). The bundles find
// the Node worker through __SPINDLE_NODE_WORKER__ (see src/platform/node/index.ts); inside a
// CommonJS bundle `import.meta.url` is the bundle's own file: URL.
// Also copies the memory-FS module (build/fs-module/spindle-fs.wasm, from tools/build-fs-module.sh)
// to dist/spindle-fs.wasm, where src/fs/memfs.ts finds it (__SPINDLE_FS_WASM__ in the bundles).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  define: { __SPINDLE_NODE_WORKER__: '"./node-worker.cjs"', __SPINDLE_FS_WASM__: '"./spindle-fs.wasm"', 'import.meta.url': '__spindle_import_meta_url' },
  // "use strict" first: esbuild's own directive would come after the banner and not count.
  banner: { js: '"use strict";\nconst __spindle_import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
};

const SHIM_MARK = '// The spindle command is dist/cli.cjs';
if (readFileSync('dist/cli.js', 'utf8').includes(SHIM_MARK)) {
  throw new Error('dist/cli.js is the shim this script wrote, not tsc\'s output: run `npm run build` (tsc first)');
}
const CLI_BUNDLE = 'cli-bundle.cjs';
await build({ ...common, entryPoints: ['dist/cli.js'], outfile: `dist/${CLI_BUNDLE}` });
// cli-start.ts runs the bundle inside a function (Node's CommonJS wrapper), where a #! line
// cannot stand: esbuild keeps cli.ts's. (cli-start.ts's own is kept in dist/cli.cjs.)
const cliBundle = readFileSync(`dist/${CLI_BUNDLE}`, 'utf8').replace(/^#![^\n]*\n/, '');
writeFileSync(`dist/${CLI_BUNDLE}`, cliBundle);
noDynamicImport(`dist/${CLI_BUNDLE}`, cliBundle);
// The subcommands other than `run` stay their own ES modules (dist/bench.js, serve.js, check.js,
// from tsc), which cli-start.ts imports when named (esbuild keeps those import() calls): bundled,
// their Node built-ins (node:http, node:child_process) would load at every start of a program
// (~10 ms of CPU, a third of hello's start-up over plain node).
await build({
  ...common,
  entryPoints: ['dist/cli-start.js'],
  outfile: 'dist/cli.cjs',
  external: ['./bench.js', './serve.js', './check.js'],
  define: {
    ...common.define,
    __SPINDLE_CLI_BUNDLE__: JSON.stringify(CLI_BUNDLE),
    __SPINDLE_CLI_BUILD__: JSON.stringify(contentHash(cliBundle)),
  },
});
chmodSync('dist/cli.cjs', 0o755);
// What `node runtime/dist/cli.js` runs (README, tests, bench): the command, through require (an
// ES module that imported it would make Node scan it for its exports).
writeFileSync('dist/cli.js', `#!/usr/bin/env node
${SHIM_MARK} (scripts/bundle.mjs says why); this file runs it.
import { createRequire } from 'node:module';
createRequire(import.meta.url)('./cli.cjs');
`);
// The worker bundle is one function expression called at once (iife): Node may run it as a
// CommonJS module or, through platform/node/worker-code.ts's loader (dist/node-worker-loader.cjs,
// written here), as a script of the worker's global scope, where the bundle's top-level names
// must not become globals. It needs `require` and `__filename` from either.
await build({ ...common, format: 'iife', entryPoints: ['dist/node-worker.js'], outfile: 'dist/node-worker.cjs' });
// The napi host's pool worker for Node (src/napi/node-worker.ts with @emnapi/core and @emnapi/runtime),
// one CommonJS file that napi/node.ts starts when it exists: from ES modules each worker loaded
// ~55 of spindle's and emnapi's 3 through Node's ES module loader. Measured with rolldown's
// binding (4 pool workers, 2 cores, Node 20): the CPU time of loading it plus booting the pool,
// 449-510 ms from ES modules, 307-314 ms from this file (3 runs each). A loader's own emnapi
// copy (the drop-in) is required at run time from the files the main thread required (a `require`
// of a path computed at run time, which esbuild leaves as it is). An iife, as node-worker.cjs, for
// the same loader (worker-code.ts: the compiled code shared by the workers and kept across runs).
await build({ ...common, format: 'iife', entryPoints: ['dist/napi/node-worker.js'], outfile: 'dist/napi-worker.cjs' });
// ASCII only: esbuild escapes every non-ASCII character of the code, but not of comments, and one
// (an em dash in a comment of emnapi's) made V8 hold the whole 0.68 MB source as a two-byte
// string in every pool worker (peak RSS of rolldown's bundle on Node 26 216 -> 206 MB without it;
// bench/results/napi-2026-11-27-node26/notes.md). What is left lies in comments (\uXXXX is the same
// character in a string, template or identifier too).
const asciiOnly = (file) => writeFileSync(file, readFileSync(file, 'utf8').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
asciiOnly('dist/napi-worker.cjs');
// spindle/napi in Node (package.json "./napi": "require"; src/napi/index.ts with spindle's code and
// its emnapi pair), one CommonJS file, dist/napi/napi-bundle.cjs, run by dist/napi/index.cjs (a few
// lines: platform/node/bundle-cache.ts) with V8's code cache of it kept across runs in the cache
// directory (`napi/`): compiling it cost a load ~10 ms of CPU of ~17-20 (Node 20 and 26). tsc's
// dist/napi/index.js then becomes a shim that requires index.cjs: `import` and `require` of
// spindle/napi (and of the drop-in) get the same copy. From ES modules, loading spindle/napi took
// ~55 ms of CPU on Node 20 and 26 (~60 modules, and @emnapi/core's ES modules). Not imported from
// ES modules directly: Node 20 takes ~115 ms of CPU to import a CommonJS file of this size (its
// exports are found by lexing it), and `createRequire` skips that. Both files sit in dist/napi/,
// so URLs relative to the bundle (the napi worker) are those of index.js; the two defines are
// relative to dist/napi/ too.
const NAPI_SHIM_MARK = '// spindle/napi in Node is dist/napi/index.cjs';
const napiEsm = readFileSync('dist/napi/index.js', 'utf8');
if (napiEsm.includes(NAPI_SHIM_MARK)) {
  throw new Error('dist/napi/index.js is the shim this script wrote, not tsc\'s output: run `npm run build` (tsc first)');
}
const NAPI_BUNDLE = 'napi-bundle.cjs';
await build({
  ...common,
  entryPoints: ['dist/napi/index.js'],
  outfile: `dist/napi/${NAPI_BUNDLE}`,
  define: { ...common.define, __SPINDLE_NODE_WORKER__: '"../node-worker.cjs"', __SPINDLE_FS_WASM__: '"../spindle-fs.wasm"' },
});
asciiOnly(`dist/napi/${NAPI_BUNDLE}`);
const napiBundle = readFileSync(`dist/napi/${NAPI_BUNDLE}`, 'utf8');
noDynamicImport(`dist/napi/${NAPI_BUNDLE}`, napiBundle);
/** Entries kept in the cache directory's `napi/` (0.4-0.55 MB each after a rolldown run; a rebuild, a path, a Node line each make one). */
const NAPI_ENTRIES = 16;
await build({
  ...common,
  stdin: {
    contents: `// spindle/napi in Node: ${NAPI_BUNDLE} run with V8's code cache (scripts/bundle.mjs, platform/node/bundle-cache.ts).
const { requireWithCodeCache } = require('../platform/node/bundle-cache.js');
module.exports = requireWithCodeCache(require('node:path').join(__dirname, ${JSON.stringify(NAPI_BUNDLE)}), ${JSON.stringify(contentHash(napiBundle))}, 'napi', ${NAPI_ENTRIES});
`,
    resolveDir: 'dist/napi',
    sourcefile: 'napi-start.cjs',
  },
  outfile: 'dist/napi/index.cjs',
});
const napiNames = Object.keys(await import(new URL('../dist/napi/index.js', import.meta.url).href)).sort();
writeFileSync('dist/napi/index.js', `${NAPI_SHIM_MARK} (scripts/bundle.mjs says why); this file re-exports it.
import { createRequire } from 'node:module';
const napi = createRequire(import.meta.url)('./index.cjs');
export const { ${napiNames.join(', ')} } = napi;
`);
const { LOADER } = await import(new URL('../dist/platform/node/worker-code.js', import.meta.url).href);
writeFileSync('dist/node-worker-loader.cjs', LOADER);

const fsModule = new URL('../../build/fs-module/spindle-fs.wasm', import.meta.url);
if (existsSync(fsModule)) {
  copyFileSync(fsModule, new URL('../dist/spindle-fs.wasm', import.meta.url));
} else {
  console.warn('bundle: build/fs-module/spindle-fs.wasm is missing: memory mounts will not work; run `bash tools/build-fs-module.sh`');
}

/** The first 16 hex digits of a bundle's SHA-256: the part of its code cache key V8 cannot check. */
function contentHash(text) {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * Refuses a bundle that bundle-cache.ts runs as a vm.Script if its code calls import(): that
 * throws there (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING) where Node's own require would not.
 */
function noDynamicImport(file, text) {
  const at = text.search(/(?<![\w$.])import\s*\(/);
  if (at >= 0) throw new Error(`${file} calls import() (${JSON.stringify(text.slice(Math.max(0, at - 60), at + 40))}): it runs as a vm.Script (platform/node/bundle-cache.ts), where import() throws`);
}
