// Bundles the two Node entry points that start-up time depends on, after `tsc` (dist/ must exist):
//   dist/cli.js           the `spindle` command, rewritten as one file (was: ~30 ES modules)
//   dist/node-worker.cjs  the pool worker for Node (src/node-worker.ts), one CommonJS file
//                         (dist/worker.js stays for browsers)
// Loading one file instead of ~30 modules saves ~30 ms per process and per worker; a worker that
// loads CommonJS also skips Node's ES module loader (~8 ms of CPU per worker, ~0.5 MB). The
// bundles find the Node worker through __SPINDLE_NODE_WORKER__ (see src/platform/node/index.ts);
// inside the CommonJS bundle `import.meta.url` is the bundle's own file: URL.
// Also copies the memory-FS module (build/fs-module/spindle-fs.wasm, from tools/build-fs-module.sh)
// to dist/spindle-fs.wasm, where src/fs/memfs.ts finds it (__SPINDLE_FS_WASM__ in the bundles).
import { build } from 'esbuild';
import { copyFileSync, existsSync } from 'node:fs';

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  define: { __SPINDLE_NODE_WORKER__: '"./node-worker.cjs"', __SPINDLE_FS_WASM__: '"./spindle-fs.wasm"' },
  // cli.ts's shebang line is kept by esbuild.
};

// The subcommands other than `run` stay their own modules (dist/bench.js, serve.js, check.js, from
// tsc), imported when named: bundled, their Node built-ins (node:http, node:child_process) would
// load at every start of a program (~10 ms of CPU, a third of hello's start-up over plain node).
await build({ ...common, entryPoints: ['dist/cli.js'], outfile: 'dist/cli.js', allowOverwrite: true, external: ['./bench.js', './serve.js', './check.js'] });
await build({
  ...common,
  format: 'cjs',
  entryPoints: ['dist/node-worker.js'],
  outfile: 'dist/node-worker.cjs',
  define: { ...common.define, 'import.meta.url': '__spindle_import_meta_url' },
  banner: { js: 'const __spindle_import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
});

const fsModule = new URL('../../build/fs-module/spindle-fs.wasm', import.meta.url);
if (existsSync(fsModule)) {
  copyFileSync(fsModule, new URL('../dist/spindle-fs.wasm', import.meta.url));
} else {
  console.warn('bundle: build/fs-module/spindle-fs.wasm is missing: memory mounts will not work; run `bash tools/build-fs-module.sh`');
}
