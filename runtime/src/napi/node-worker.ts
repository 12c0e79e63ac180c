/**
 * The pool worker script of napi programs in Node (napi/worker.ts's, for Node only): a loader's
 * own emnapi pair (the drop-in) is loaded with `require` from the files the main thread required
 * (napi/node.ts: `require.resolve`, then `require`), not imported by URL. Those files are CommonJS
 * or, for emnapi 2.x ("type": "module", what rolldown's and oxc's bindings pin), ES modules that
 * Node loads synchronously through require(esm) (Node 20.19+; where the main thread could not
 * require them it uses spindle's own pair and passes no URLs). Either way `require` skips the
 * asynchronous ES module loader: ~4-5 ms less CPU per worker for rolldown's pair (Node 20).
 * scripts/bundle.mjs makes dist/napi-worker.cjs of this file; browsers and bundlers keep
 * napi/worker.ts.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bootPoolWorker } from '../pool-worker.js';
import { loadEmnapi } from './emnapi.js';
import { napiThreadHooks, type NapiEmbed } from './thread.js';

const require = createRequire(import.meta.url);

void bootPoolWorker(async (init) => {
  const embed = init.embed as NapiEmbed;
  return napiThreadHooks(loadEmnapi(embed.urls, (url) => require(fileURLToPath(url))), embed);
});
