/**
 * The pool worker script of Node: scripts/bundle.mjs makes it one CommonJS file,
 * dist/node-worker.cjs, which platform/node/index.ts starts through the loader of
 * platform/node/worker-code.ts (V8's code cache shared by the workers of the process), or Node
 * itself where it is started as a plain script. It serves at once, synchronously: no ES module
 * loader and no await between Node's bootstrap and the worker's first instance.
 */
import { workerData } from 'node:worker_threads';
import { nodePlatform } from './platform/node/index.js';
import { loadedWorker, publishCodeCache } from './platform/node/worker-code.js';
import { serve } from './pool-worker.js';
import { serveHosted } from './host-worker.js';
import type { WorkerInit } from './protocol.js';

const loaded = loadedWorker();
const init = loaded?.init ?? (workerData as WorkerInit);
if (init.hostWorker) void serveHosted(init, nodePlatform);
else serve(init, nodePlatform, undefined, loaded && ((waiting) => publishCodeCache(loaded, waiting)));
