// Two builds of one page (tests/napi/web/index.html):
//   vite build --mode stock    the generated browser loaders on @napi-rs/wasm-runtime, as published
//   vite build --mode spindle  the same loaders, '@napi-rs/wasm-runtime' aliased to spindle/napi
//                              (the drop-in), and the direct API
import { defineConfig } from 'vite';

export default defineConfig(({ mode }) => ({
  resolve: mode === 'spindle' ? { alias: [{ find: /^@napi-rs\/wasm-runtime(\/.*)?$/, replacement: 'spindle/napi$1' }] } : {},
  // The generated loaders and spindle/napi/fs use top-level await; workers are ES modules.
  base: './', // the two builds are served side by side (out/stock/, out/spindle/)
  build: { target: 'esnext', emptyOutDir: true },
  worker: { format: 'es' },
  define: { __ROUTES__: JSON.stringify(mode === 'spindle' ? ['dropin', 'direct'] : ['stock']) },
}));
