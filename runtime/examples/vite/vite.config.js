// SharedArrayBuffer (and so threads) needs a cross-origin isolated page: the dev server and
// `vite preview` send the two headers. Your production server must send them too.
import { defineConfig } from 'vite';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  // fs.allow: only because this example links the package from two folders up (file:../..);
  // an installed spindle is in node_modules, which Vite serves anyway.
  server: { headers: isolation, fs: { allow: ['../..'] } },
  preview: { headers: isolation },
  // spindle starts its workers with new Worker(new URL('../worker.js', import.meta.url)):
  // dependency pre-bundling would move the module away from worker.js, so keep it out.
  optimizeDeps: { exclude: ['spindle'] },
  // Pool workers are ES modules (they import the runtime's other modules).
  worker: { format: 'es' },
});
