/**
 * The pool worker script of napi programs in Node (napi/worker.ts's, for Node only).
 * scripts/bundle.mjs makes dist/napi-worker.cjs of this file and emnapi (an iife), which
 * platform/node/index.ts starts through the loader of platform/node/worker-code.ts (V8's code
 * cache of it, shared by the process's workers and kept across runs), or Node itself where it is
 * started as a plain script; browsers and bundlers keep napi/worker.ts. It serves at once,
 * synchronously, as node-worker.ts does: no await between Node's bootstrap and the instance.
 *
 * A worker the owner started (`NapiEmbed.toOwner`) posts emnapi's messages to it on `parentPort`
 * (napi/thread.ts); the workers it starts itself get its WorkerInit without that flag.
 *
 * A loader's own emnapi pair (the drop-in, when its version is not spindle's) is loaded with
 * `require` from the files the main thread required (napi/node.ts: `require.resolve`, then
 * `require`), not imported by URL. Those files are CommonJS or, for emnapi 2.x ("type":
 * "module"), ES modules that Node loads synchronously through require(esm) (Node 20.19+; where
 * the main thread could not require them it uses spindle's own pair and passes no URLs).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { nodePlatform } from '../platform/node/index.js';
import { loadedWorker, publishCodeCache } from '../platform/node/worker-code.js';
import { serve } from '../pool-worker.js';
import type { WorkerInit } from '../protocol.js';
import { loadEmnapi } from './emnapi.js';
import { napiThreadHooks, type NapiEmbed } from './thread.js';

const require = createRequire(import.meta.url);
const loaded = loadedWorker();
const init = loaded?.init ?? (workerData as WorkerInit);
const embed = init.embed as NapiEmbed;
const toOwner = embed.toOwner === true && parentPort !== null ? parentPort : undefined;
const served: WorkerInit = toOwner ? { ...init, embed: { ...embed, toOwner: false } } : init;
const hooks = napiThreadHooks(loadEmnapi(embed.urls, (url) => require(fileURLToPath(url))), embed, toOwner && ((message) => toOwner.postMessage(message)));
serve(served, nodePlatform, hooks, loaded && ((waiting) => publishCodeCache(loaded, waiting)));
