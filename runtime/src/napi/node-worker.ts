/**
 * The pool worker script of napi programs in Node (napi/worker.ts's, for Node only): a loader's
 * own emnapi pair (the drop-in) is loaded with `require` from the files the main thread required
 * (napi/node.ts resolves them with `require.resolve`, so they are CommonJS), not imported by URL:
 * Node's ES module loader costs a worker ~7 ms more CPU for the same three files. scripts/bundle.mjs
 * makes dist/napi-worker.cjs of this file; browsers and bundlers keep napi/worker.ts.
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
