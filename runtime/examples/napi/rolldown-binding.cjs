// rolldown's binding on spindle/napi, with one host directory: the project (direct.mjs).
const { loadNapiSync } = require('spindle/napi');

const project = process.env.SPINDLE_EXAMPLE_PROJECT;
module.exports = loadNapiSync(require.resolve('@rolldown/binding-wasm32-wasi/rolldown-binding.wasm32-wasi.wasm'), {
  dirs: [{ host: project, guest: project }],
});
