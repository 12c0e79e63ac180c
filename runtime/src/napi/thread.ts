/**
 * The pool-worker side of a napi host: every thread's instance is made by emnapi as a "child
 * thread" (its Node-API imports bound to that instance, `_initialize` not run again), with
 * spindle's WASI preview1, `wasi.thread-spawn` and shared memory (napi/imports.ts). What emnapi
 * sends from a thread to the main thread (`postMessage`: 'async-send' to run a callback there,
 * 'async-thread-ready') goes over the program's BroadcastChannel, which the owner reads
 * (napi/owner.ts): no worker object of emnapi's is involved.
 *
 * An exit (a trap, proc_exit) on a pool thread ends the Node process: the main thread does it
 * (napi/host.ts), or, if it is stuck inside the addon, the worker after a grace period.
 *
 * One instance per worker, not per thread (`reuseInstance`), as emnapi's own workers keep theirs
 * (@emnapi/wasi-threads with `reuseWorker`, what the generated loaders ask for): a thread started
 * on a worker whose previous thread ended runs on that thread's instance. Instantiating rolldown's
 * binding again for each thread (once per bundle) cost ~14 ms of CPU per bundle on Node 26 and
 * nothing measurable on Node 20 (bench/results/napi-2026-11-27-node26/notes.md).
 *
 * Thread rules: `napiThreadHooks` runs once per worker, `instantiate` once per worker, on that
 * worker.
 */
import type { InstanceHooks } from '../thread.js';
import type { Emnapi, EmnapiUrls } from './emnapi.js';
import { mergeImports, reactorWasi, threadExports } from './imports.js';

/** What every pool worker of a napi program gets (WorkerInit.embed). Structured-cloneable. */
export interface NapiEmbed {
  /** The emnapi pair to import, when it is not spindle's own (Node: the loader's). */
  readonly urls?: EmnapiUrls;
  /** The BroadcastChannel on which threads post emnapi's messages to the owner. */
  readonly channel: string;
  /** The addon's file name, for emnapi's messages. */
  readonly filename: string;
}

const IN_NODE = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';
/** How long the main thread has to end the process itself after an exit on a pool thread. */
const MAIN_THREAD_GRACE_MS = 1000;

export function napiThreadHooks(emnapi: Emnapi, embed: NapiEmbed): InstanceHooks {
  const channel = new BroadcastChannel(embed.channel);
  // Node: posting only; the channel must not keep the worker's event loop alive.
  (channel as { unref?: () => void }).unref?.();
  const postMessage = (message: unknown): void => channel.postMessage(message);
  const context = emnapi.runtime.getDefaultContext();
  return {
    reuseInstance: true,
    programEnded(status) {
      if (status === 0 || !IN_NODE) return;
      // A thread trapped or called exit(). The main thread ends the process with `status`
      // (napi/host.ts) unless it is blocked inside the addon, waiting for a thread that will
      // never come back: then this worker ends it, as a native addon's crash would (SIGABRT).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, MAIN_THREAD_GRACE_MS);
      process.kill(process.pid, 'SIGABRT');
    },
    instantiate(module, imports) {
      const { instance } = emnapi.core.instantiateNapiModuleSync(module, {
        childThread: true,
        context,
        postMessage,
        filename: embed.filename,
        wasi: reactorWasi(),
        plugins: [...emnapi.plugins],
        overwriteImports: (io) => mergeImports(io, imports),
      });
      return { exports: threadExports(instance.exports) };
    },
  };
}
