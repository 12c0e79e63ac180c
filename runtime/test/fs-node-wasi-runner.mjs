// Runs one wasm32-wasip1(-threads) program on node:wasi (single-threaded: thread-spawn fails),
// for the in-program filesystem's portability tests (fs-inprogram.test.mjs).
//   node fs-node-wasi-runner.mjs PROGRAM.wasm [--preopen GUEST=HOST]... [--env K=V]... [-- ARGS...]
// The memory the module imports is created with the limits it declares (shared if it is).
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';
import { readImports } from '../dist/wasm-imports.js';

const [file, ...rest] = process.argv.slice(2);
const preopens = {}, env = {}, args = [file];
for (let i = 0; i < rest.length; i++) {
  const a = rest[i];
  if (a === '--') { args.push(...rest.slice(i + 1)); break; }
  const [k, v] = rest[++i].split(/=(.*)/s);
  if (a === '--preopen') preopens[k] = v;
  else if (a === '--env') env[k] = v;
  else throw new Error(`unknown option ${a}`);
}
const bytes = readFileSync(file);
const wasi = new WASI({ version: 'preview1', args, env, preopens, returnOnExit: true });
const imports = { ...wasi.getImportObject(), wasi: { 'thread-spawn': () => -1 } };
const mem = readImports(bytes).memory;
if (mem) {
  imports[mem.module] = {
    [mem.name]: new WebAssembly.Memory({ initial: mem.initial, maximum: mem.maximum, shared: mem.shared }),
  };
}
const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), imports);
process.exitCode = wasi.start(instance);
