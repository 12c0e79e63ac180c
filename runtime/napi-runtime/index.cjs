// @napi-rs/wasm-runtime 1.x, on spindle, for require(): the generated *.wasi.cjs loaders require
// it. spindle/napi's CommonJS file in Node (the copy its ES module shim loads too), so a loader
// starts no ES module loader for it (~55 -> ~17 ms of CPU: runtime/scripts/bundle.mjs).
module.exports = require('spindle/napi');
