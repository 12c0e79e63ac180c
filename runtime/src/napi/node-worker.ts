/**
 * The pool worker script of napi programs in Node (napi/worker.ts's, for Node only).
 * scripts/bundle.mjs makes dist/napi-worker.cjs of this file and emnapi (an iife), which
 * platform/node/index.ts starts through the loader of platform/node/worker-code.ts (V8's code
 * cache of it, shared by the process's workers and kept across runs), or Node itself where it is
 * started as a plain script; browsers and bundlers keep napi/worker.ts. It serves at once,
 * synchronously, as node-worker.ts does: no await between Node's bootstrap and the instance.
 *
 * A worker the owner started (`NapiEmbed.toOwner`) posts emnapi's messages to it on `parentPort`
 * (napi/thread.ts); the workers it starts itself get its WorkerInit without that flag. A spare
 * (napi/node.ts `warm`: started when the load begins, before the program exists) boots the same
 * way, then waits on `parentPort` for its WorkerInit, the first message the owner posts it.
 *
 * A loader's own emnapi pair (the drop-in, when its version is not spindle's) is loaded with
 * `require` from the files the main thread required (napi/node.ts: `require.resolve`, then
 * `require`), not imported by URL. Those files are CommonJS or, for emnapi 2.x ("type":
 * "module"), ES modules that Node loads synchronously through require(esm) (Node 20.19+; where
 * the main thread could not require them it uses spindle's own pair and passes no URLs). They
 * compiled in every worker (~12 ms of CPU of a worker's ~30-45 for emnapi 2.0.0-alpha.6, the
 * drop-in of oxc-parser 0.x), so they load with Node's compile cache where Node has one (22.1+:
 * ~7 ms; platform/node/worker-code.ts `loadWithCompileCache`).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { nodePlatform } from '../platform/node/index.js';
import { loadedWorker, loadWithCompileCache, publishCodeCache } from '../platform/node/worker-code.js';
import { serve } from '../pool-worker.js';
import type { WorkerInit } from '../protocol.js';
import { loadEmnapi } from './emnapi.js';
import { napiThreadHooks, type NapiEmbed } from './thread.js';

const require = createRequire(import.meta.url);
const loaded = loadedWorker();
// A spare (platform/node startSpareWorker: started before its program) gets its WorkerInit as the
// first message from the owner; every other worker has it at start.
const given = (loaded ? loaded.init : workerData) as WorkerInit | undefined;
if (given) start(given);
else parentPort!.once('message', (init: WorkerInit) => start(init));

function start(init: WorkerInit): void {
  const embed = init.embed as NapiEmbed;
  const toOwner = embed.toOwner === true && parentPort !== null ? parentPort : undefined;
  const served: WorkerInit = toOwner ? { ...init, embed: { ...embed, toOwner: false } } : init;
  const load = () => loadEmnapi(embed.urls, (url) => require(fileURLToPath(url)));
  const emnapi = embed.urls ? loadWithCompileCache(load) : load();
  const hooks = napiThreadHooks(emnapi, embed, toOwner && ((message) => toOwner.postMessage(message)));
  serve(served, nodePlatform, hooks, loaded && ((waiting) => publishCodeCache(loaded, waiting)));
}
