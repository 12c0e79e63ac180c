/**
 * The pool worker script of browsers (a module worker the owner creates and then posts its
 * WorkerInit to), and of Node when the runtime was built with tsc only (scripts/bundle.mjs makes
 * node-worker.cjs, which Node prefers). The loop itself is in pool-worker.ts.
 */
import { serve } from './pool-worker.js';
import type { WorkerInit } from './protocol.js';

async function boot(): Promise<void> {
  if (typeof process !== 'undefined' && process.versions?.node) {
    const { workerData } = await import('node:worker_threads');
    const { nodePlatform } = await import('./platform/node/index.js');
    serve(workerData as WorkerInit, nodePlatform);
  } else {
    // A browser module worker: its owner (platform/browser/index.ts) posts the WorkerInit right after
    // creating it.
    // The handler is set before any await: a message that arrives while no handler is set is
    // dropped once the module has been evaluated.
    const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<WorkerInit>) => void) | null };
    const platform = import('./platform/browser/index.js');
    scope.onmessage = (e) => {
      scope.onmessage = null;
      platform.then(({ poolWorkerPlatform }) => serve(e.data, poolWorkerPlatform)).catch((err: unknown) => {
        // A rejection would only reach the console; thrown from a task it becomes the Worker's
        // error event, which the main thread turns into an exit with a message.
        setTimeout(() => { throw err; });
      });
    };
  }
}

void boot();
