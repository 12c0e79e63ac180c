// @napi-rs/wasm-runtime/fs on spindle: memfs() is a spindle memory filesystem that every thread of
// the addon reaches directly (browsers).
export * from 'spindle/napi/fs';
