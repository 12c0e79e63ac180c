/**
 * The pool worker script of Node: scripts/bundle.mjs makes it one CommonJS file,
 * dist/node-worker.cjs, which platform/node/index.ts starts. It serves at once, synchronously:
 * no ES module loader and no await between Node's bootstrap and the worker's first instance.
 */
import { workerData } from 'node:worker_threads';
import { nodePlatform } from './platform/node/index.js';
import { serve } from './pool-worker.js';
import type { WorkerInit } from './protocol.js';

serve(workerData as WorkerInit, nodePlatform);
