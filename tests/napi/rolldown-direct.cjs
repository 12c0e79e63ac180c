// rolldown's binding through spindle/napi's direct API, for rolldown's loader
// (NAPI_RS_NATIVE_LIBRARY_PATH, set by work.mjs): the wasm of the stock fixture, with one host
// directory, the project to bundle (tests/napi/project, or SPINDLE_NAPI_PROJECT), at its own path.
const { join } = require('node:path');
// What require('spindle/napi') resolves to (package.json "require"): the CommonJS file, not the
// ES module shim beside it (which require() would load through require(esm)).
const { loadNapiSync } = require('../../runtime/dist/napi/index.cjs');

const project = process.env.SPINDLE_NAPI_PROJECT ?? join(__dirname, 'project');
const wasm = require.resolve('@rolldown/binding-wasm32-wasi/rolldown-binding.wasm32-wasi.wasm', { paths: [join(__dirname, 'stock')] });
module.exports = loadNapiSync(wasm, { dirs: [{ host: project, guest: project }] });
