// Checks the runtime's layering rules (ARCHITECTURE.md, "Layers and who may depend on whom") on
// runtime/src, and exits 1 with one line per broken rule:
//   1. no import cycle (static, dynamic and type-only imports all count: a type loop is a design
//      loop too);
//   2. a file imports only from its own layer or a lower one (LAYERS below, lowest first);
//   3. platform/node and platform/browser never import each other;
//   4. `node:` modules are named only in platform/node/ and the Node-only entries (NODE_OK);
//   5. packages from outside spindle (@emnapi/*) are imported only under napi/, so that
//      `import 'spindle'` loads nothing from outside the package.
// Zero dependencies: imports are read with a regular expression, which the code style allows
// (one import per statement; specifiers are string literals).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Lowest first. A path ending in '/' is a folder (everything under it). */
export const LAYERS = [
  ['shared-buffer.ts'], // shared buffers by capability (no global name needed): imports nothing
  ['wasi/'], // WASI preview1 over the WasiHost contract
  // shared-memory protocols, errors, reading and writing module bytes
  ['errors.ts', 'ring.ts', 'control.ts', 'output.ts', 'stdin.ts', 'wasm-imports.ts', 'wasm-names.ts', 'known-imports.ts', 'compile-policy.ts',
    'wasm-code.ts', 'wasm-module-bytes.ts', 'budget-code.ts', 'atomic-guards.ts', 'thread-guards.ts', 'preempt.ts', 'host-queue.ts', 'jspi.ts'],
  ['fs/'], // the platform-free filesystem (drivers are interfaces here)
  ['protocol.ts'], // the worker wire format (types only)
  ['platform/types.ts'], // the Platform interface
  ['platform/node/', 'platform/browser/'], // the platforms: adapters, nothing above them
  ['wait-hook.ts', 'thread.ts', 'load.ts', 'program.ts', 'pool.ts', 'pool-worker.ts', 'host-worker.ts'], // the core
  ['worker.ts', 'node-worker.ts', 'index.ts', 'browser.ts', 'check.ts'], // entries: the worker script, the APIs
  ['napi/'], // the napi host (spindle/napi): emnapi on top of the core; the only importer of packages
  ['cli.ts', 'cli-start.ts', 'serve.ts', 'bench.ts', 'relaunch.ts'], // the command line
];

/** Files that may name `node:` modules besides platform/node/. */
const NODE_OK = new Map([
  ['worker.ts', 'boots a Node worker (dynamic import, Node branch only)'],
  ['node-worker.ts', 'the Node pool worker script'],
  ['pool-worker.ts', 'boots a pool worker for an embedder\'s worker script (dynamic import, Node branch only)'],
  ['cli.ts', 'the command line is Node only'],
  ['cli-start.ts', 'the command\'s first file (code cache of the CLI bundle) is Node only'],
  ['relaunch.ts', 'the CLI starting Node again with V8 flags is Node only'],
  ['serve.ts', 'the local server is Node only'],
  ['bench.ts', 'the bench command is Node only'],
  ['check.ts', '`spindle check` is Node only'],
  ['napi/node.ts', 'the napi host\'s Node platform: finds a loader\'s emnapi copy in require.cache'],
  ['napi/index.ts', 'the Node entry of spindle/napi reads an addon\'s file'],
  ['napi/node-worker.ts', 'the napi pool worker in Node requires a loader\'s emnapi copy'],
  ['napi/fs.ts', 'reads the memory-FS module with node:fs in Node (dynamic import, Node branch only)'],
  ['wasi/clock.ts', 'feature-detects process.hrtime and /proc/thread-self/schedstat on the clock hot path'],
]);

function layerOf(file) {
  const i = LAYERS.findIndex((l) => l.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));
  return i;
}

function tsFiles(dir, base = dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p, base);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [relative(base, p)] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|getBuiltinModule\?*\.?\(\s*'([^']+)'|(?:^|\n)\s*import\s*'([^']+)'/g;

function importsOf(file) {
  const text = readFileSync(join(src, file), 'utf8');
  const out = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (spec.startsWith('.')) out.push({ file: normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts') });
    else out.push({ module: spec });
  }
  if (/'node:[a-z_/]+'/.test(text) && !out.some((i) => i.module?.startsWith('node:'))) out.push({ module: 'node:(string)' });
  return out;
}

export function check() {
  const files = tsFiles(src);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const problems = [];
  for (const [file, imports] of graph) {
    const mine = layerOf(file);
    if (mine < 0) problems.push(`${file}: in no layer; add it to LAYERS in scripts/check-layers.mjs (and ARCHITECTURE.md)`);
    for (const i of imports) {
      if (i.module) {
        if (i.module.startsWith('node:') && !file.startsWith('platform/node/') && !NODE_OK.has(file)) {
          problems.push(`${file}: names ${i.module}; only platform/node/ touches Node (go through the Platform interface)`);
        }
        if (!i.module.startsWith('node:') && !file.startsWith('napi/')) {
          problems.push(`${file}: imports the package ${i.module}; only napi/ loads anything from outside spindle (the core has no dependencies)`);
        }
        continue;
      }
      if (!graph.has(i.file)) { problems.push(`${file}: imports ${i.file}, which does not exist`); continue; }
      const theirs = layerOf(i.file);
      if (theirs > mine) problems.push(`${file} (layer ${mine}) imports ${i.file} (layer ${theirs}): an upward import`);
      const side = (f) => (f.startsWith('platform/node/') ? 'node' : f.startsWith('platform/browser/') ? 'browser' : null);
      if (side(file) && side(i.file) && side(file) !== side(i.file)) problems.push(`${file} imports ${i.file}: one platform never imports another`);
    }
  }
  problems.push(...cycles(graph));
  return problems;
}

/** Every import cycle, each reported once (as found by a depth-first search). */
function cycles(graph) {
  const state = new Map(); // file -> 1 on the stack, 2 done
  const stack = [];
  const found = [];
  const visit = (f) => {
    state.set(f, 1);
    stack.push(f);
    for (const i of graph.get(f) ?? []) {
      if (!i.file || !graph.has(i.file)) continue;
      if (state.get(i.file) === 1) found.push(`import cycle: ${[...stack.slice(stack.indexOf(i.file)), i.file].join(' -> ')}`);
      else if (!state.has(i.file)) visit(i.file);
    }
    stack.pop();
    state.set(f, 2);
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = check();
  for (const p of problems) console.error(`check-layers: ${p}`);
  if (problems.length) {
    console.error(`check-layers: ${problems.length} broken rule(s); see ARCHITECTURE.md, "Layers and who may depend on whom"`);
    process.exit(1);
  }
  console.log(`check-layers: ${tsFiles(src).length} files, ${LAYERS.length} layers, no cycle, no upward import`);
}
