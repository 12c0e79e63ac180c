// SharedArrayBuffer (and so threads) needs a cross-origin isolated page: the dev server and
// `vite preview` send the two headers. Your production server must send them too.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  // This example uses the package it sits in; an app would `npm install spindle` instead.
  // (Vite then picks dist/browser.js through the package's "browser" export condition.)
  resolve: { alias: { spindle: fileURLToPath(new URL('../..', import.meta.url)) } },
  // fs.allow: only because the package is two folders up; an installed spindle is in
  // node_modules, which Vite serves anyway.
  server: { headers: isolation, fs: { allow: ['../..'] } },
  preview: { headers: isolation },
  // spindle starts its workers with new Worker(new URL('../worker.js', import.meta.url)):
  // dependency pre-bundling would move the module away from worker.js, so keep it out.
  optimizeDeps: { exclude: ['spindle'] },
  // Pool workers are ES modules (they import the runtime's other modules).
  worker: { format: 'es' },
});
