// rolldown in the page, on spindle. The one line that switches the generated loader of
// @rolldown/binding-wasm32-wasi (rolldown-binding.wasi-browser.js, unedited) from
// @napi-rs/wasm-runtime to spindle is the alias; the rest is what any page with threads needs.
import { defineConfig } from 'vite';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  // '@napi-rs/wasm-runtime' -> 'spindle/napi', '@napi-rs/wasm-runtime/fs' -> 'spindle/napi/fs'.
  resolve: { alias: [{ find: /^@napi-rs\/wasm-runtime(\/.*)?$/, replacement: 'spindle/napi$1' }] },
  // SharedArrayBuffer (threads) needs a cross-origin isolated page; your server must send these too.
  server: { headers: isolation, fs: { allow: ['../..'] } },
  preview: { headers: isolation },
  // spindle starts its workers with new Worker(new URL(..., import.meta.url)): keep it out of
  // dependency pre-bundling, which would move the module away from its worker scripts.
  optimizeDeps: { exclude: ['spindle', '@rolldown/binding-wasm32-wasi'] },
  // The generated loader and spindle/napi/fs use top-level await; workers are ES modules.
  build: { target: 'esnext' },
  worker: { format: 'es' },
});
