// spindle/napi's direct API: load an addon's .wasm yourself, with the files you choose. Here
// rolldown's binding sees one host directory (the project) and nothing else: `..` cannot leave it.
import { createRequire } from 'node:module';
import { loadNapiSync } from 'spindle/napi';

const require = createRequire(import.meta.url);
const project = new URL('../../../tests/napi/project', import.meta.url).pathname;
const oxc = loadNapiSync(require.resolve('@oxc-parser/binding-wasm32-wasi/parser.wasm32-wasi.wasm'));
console.log(JSON.parse(oxc.parseSync('c.ts', 'let n: number = 1', {}).program).node.body[0].kind); // let

// rolldown's JavaScript takes its binding from NAPI_RS_NATIVE_LIBRARY_PATH: a module that exports
// the addon's exports (see rolldown-binding.cjs).
process.env.NAPI_RS_NATIVE_LIBRARY_PATH = new URL('./rolldown-binding.cjs', import.meta.url).pathname;
process.env.SPINDLE_EXAMPLE_PROJECT = project;
const { rolldown } = await import('rolldown');
const bundle = await rolldown({ input: `${project}/src/main.ts`, cwd: project, logLevel: 'silent' });
const { output } = await bundle.generate({ format: 'esm' });
await bundle.close();
for (const chunk of output) console.log(`${chunk.fileName}: ${chunk.code.length} bytes`);
