// @napi-rs/wasm-runtime 1.x, on spindle: every name the generated loaders import, from
// spindle/napi. This is the ES module; require() (the generated *.wasi.cjs loaders) gets index.cjs,
// and both reach the same copy of spindle/napi in Node.
export * from 'spindle/napi';
