// The binding's own browser loader: it calls memfs() and instantiateNapiModule() of
// '@napi-rs/wasm-runtime', which the alias (vite.config.js) makes spindle's. __volume is the memory
// filesystem the page writes the project into; rolldown's threads read it directly.
import * as rolldown from '@rolldown/binding-wasm32-wasi';

const $ = (id) => document.getElementById(id);

/** Bundles /app/src/main.js with rolldown's binding (rolldown's own JavaScript API is made for Node). */
async function bundle() {
  rolldown.__volume.fromJSON({ '/app/src/main.js': $('main').value, '/app/src/words.js': $('words').value });
  const bundler = new rolldown.BindingBundler();
  try {
    const result = await bundler.generate({
      inputOptions: {
        input: [{ import: './src/main.js' }], cwd: '/app', plugins: [], resolve: { yarnPnp: false }, logLevel: 0,
        onLog: () => {}, treeshake: { moduleSideEffects: true }, experimental: { chunkModulesOrder: 1 },
        deferSyncScanData: () => [], invalidateJsSideCache: () => {},
      },
      outputOptions: { format: 'es', plugins: [] },
    });
    if (result.isBindingErrors) throw new Error(result.errors.map((e) => e.message).join('\n'));
    return result.chunks.map((c) => `// ${c.getFileName()}\n${c.getCode()}`).join('\n');
  } finally {
    await bundler.close();
  }
}

$('go').onclick = async () => {
  $('status').textContent = 'bundling';
  try {
    $('output').textContent = await bundle();
    $('status').textContent = 'done';
  } catch (e) {
    $('output').textContent = String(e);
    $('status').textContent = 'failed';
  }
  window.exampleOutput = $('output').textContent;
};
$('go').disabled = false;
$('status').textContent = 'ready';
