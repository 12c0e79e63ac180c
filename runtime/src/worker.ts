/**
 * The pool worker script of browsers (a module worker the owner creates and then posts its
 * WorkerInit to), and of Node when the runtime was built with tsc only (scripts/bundle.mjs makes
 * node-worker.cjs, which Node prefers). The loop and its boot are in pool-worker.ts.
 */
import { bootPoolWorker } from './pool-worker.js';

void bootPoolWorker();
