/**
 * The creator: the worker that creates a program's pool workers when the program's owner is itself
 * a worker (run() called from a worker of the page). The owner creates this one worker and asks
 * it for every other; pool workers grown on demand ask it too (it is their parent).
 *
 * Why not the owner: Firefox can block a worker's `new Worker()` forever while WebDriver or
 * DevTools is attached (docs/known-issues/firefox-nested-worker.md). Stuck in the constructor, a
 * thread runs nothing more, so the thread that creates must not be the one that has to notice:
 * the owner stays free, hears `begin` before each creation and `created` after it, and ends the
 * program with a message when a creation does not finish in time (index.ts).
 *
 * Messages: owner -> creator `{ init }` (create a pool worker for `init.slot`); creator -> owner
 * `{ begin: slot }`, `{ created: slot }`, `{ failed: slot, message }`. This worker never blocks,
 * so a nested worker's start-up, which needs its parent's event loop in Chromium, always gets it.
 */
import type { GrowRequest, WorkerInit } from '../../protocol.js';

/** What this file uses of the worker's global scope (the DOM lib has no worker types). */
interface CreatorScope {
  postMessage(message: CreatorReport): void;
  onmessage: ((e: MessageEvent<{ init: WorkerInit }>) => void) | null;
}

/** A creator's reports to the owner. */
export type CreatorReport = { begin: number } | { created: number } | { failed: number; message: string };

const scope = globalThis as unknown as CreatorScope;

function create(init: WorkerInit): void {
  const slot = init.slot;
  scope.postMessage({ begin: slot });
  let worker: Worker;
  try {
    worker = new Worker(new URL('../../worker.js', import.meta.url), { type: 'module', name: `spindle slot ${slot}` });
  } catch (e) {
    scope.postMessage({ failed: slot, message: `cannot start a worker for slot ${slot}: ${e instanceof Error ? e.message : String(e)}` });
    return;
  }
  scope.postMessage({ created: slot });
  worker.onerror = (e) => {
    e.preventDefault();
    scope.postMessage({ failed: slot, message: `worker for slot ${slot} failed: ${e.message || 'its script did not load (is the runtime\'s worker.js served beside browser.js?)'}` });
  };
  worker.onmessageerror = () => scope.postMessage({ failed: slot, message: `worker for slot ${slot} could not receive the program` });
  worker.onmessage = (e: MessageEvent<GrowRequest>) => {
    const grow = e.data?.grow;
    if (typeof grow === 'number') create({ ...init, slot: grow });
  };
  worker.postMessage(init);
}

scope.onmessage = (e) => create(e.data.init);
