// @napi-rs/wasm-runtime 1.x, on spindle: every name the generated loaders import, from
// spindle/napi. ES module; require() loads it too (Node >= 20.19), which the generated *.wasi.cjs
// loaders and wasi-worker.mjs do.
export * from 'spindle/napi';
