// Reproducer for "Node 20: setting --experimental-wasm-stack-switching at run time crashes the
// process at its next garbage collection" (docs/known-issues/node20-stack-switching-flag.md).
// No spindle code, no worker, no WebAssembly: the flag set, then a few young-generation
// collections. Node 20.20 (V8 11.3): Segmentation fault (exit status 139) on every run.
// Node 22 (V8 12.4) with its flag (--experimental-wasm-jspi) and Node 20 with the flag given at
// start (`node --experimental-wasm-stack-switching ...`) print the line and exit 0.
//
// Run: node docs/known-issues/node20_stack_switching_flag.mjs
import v8 from 'node:v8';

v8.setFlagsFromString(process.versions.v8.startsWith('11.') ? '--experimental-wasm-stack-switching' : '--experimental-wasm-jspi');
let junk = [];
for (let i = 0; i < 2e6; i++) { junk.push({ i }); if (junk.length > 1e5) junk = []; }
console.log(`survived the garbage collections (Node ${process.version}, V8 ${process.versions.v8})`);
