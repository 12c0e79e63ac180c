// The drop-in: @oxc-parser/binding-wasm32-wasi's own generated loader (parser.wasi.cjs), unedited;
// its require('@napi-rs/wasm-runtime') gets spindle's (package.json "overrides").
import { createRequire } from 'node:module';

const oxc = createRequire(import.meta.url)('@oxc-parser/binding-wasm32-wasi');
const sync = oxc.parseSync('a.ts', 'export const answer: number = 42;', {});
console.log(JSON.parse(sync.program).node.body[0].type); // ExportNamedDeclaration
const async = await oxc.parse('b.js', 'for (const x of xs) f(x)', {}); // runs on a pool thread
console.log(JSON.parse(async.program).node.body[0].type); // ForOfStatement
