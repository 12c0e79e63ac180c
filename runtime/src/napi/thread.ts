/**
 * The pool-worker side of a napi host: every thread's instance is made by emnapi as a "child
 * thread" (its Node-API imports bound to that instance, `_initialize` not run again), with
 * spindle's WASI preview1, `wasi.thread-spawn` and shared memory (napi/imports.ts). What emnapi
 * sends from a thread to the main thread (`postMessage`: 'async-send' to run a callback there,
 * 'async-thread-ready') goes to the owner (napi/owner.ts): no worker object of emnapi's is
 * involved. Browsers: on the worker's port to its parent, the owner. Node: a worker the owner
 * started posts to its parent, the owner (`NapiEmbed.toOwner`, napi/node-worker.ts), as emnapi's
 * own workers do; one started by another worker, whose JavaScript never runs again, on a
 * BroadcastChannel. Not a channel for all: Node delivers a channel's message to the listener as a
 * MessageEvent, and the first one made Node 26 load its fetch implementation (undici, where its
 * MessageEvent lives): ~40 ms of the main thread's CPU, inside rolldown's first bundle.
 *
 * In Node each worker on a channel posts on a channel of its own, which only the owner also holds
 * (`threadPoster`): Node hands every message to every other instance of a channel's name in the
 * process, and a pool worker's JavaScript never runs while it waits idle or runs a thread
 * (Atomics.wait, wasm), so on the program's one channel each worker's instance queued every other
 * thread's messages, unread, for as long as the program ran (~110 bytes each per worker: oxc's
 * parse() posts one per call, rolldown ~8 per bundle).
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
  /**
   * Node: the BroadcastChannel on which threads post emnapi's messages to the owner. Absent
   * (browsers): each worker posts them to its parent, the owner.
   */
  readonly channel?: string;
  /**
   * Node: a worker's own channel (`threadPoster`). Word 0 hands out numbers; word n is set to 1
   * once the owner listens on `${channel}/${n}`. Absent: every thread posts on `channel`.
   */
  readonly own?: SharedArrayBuffer;
  /** The addon's file name, for emnapi's messages. */
  readonly filename: string;
  /**
   * Node: the owner started this worker and listens to it (`WorkerHandle.onMessage`): it posts to
   * its parent (napi/node-worker.ts), not on `channel`. The workers it starts get the embed
   * without it: their parent is this worker.
   */
  readonly toOwner?: boolean;
  /**
   * Browsers' page thread (`NapiPlatform.ownerInstanceFirst`): one Int32 word, 1 once the owner's
   * instance exists (its start function has initialized the shared memory). The worker
   * instantiates only then.
   */
  readonly ownerInstance?: SharedArrayBuffer;
}

const IN_NODE = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';
/** How long the main thread has to end the process itself after an exit on a pool thread. */
const MAIN_THREAD_GRACE_MS = 1000;

/** `toParent`: how this worker posts to its parent, when that is the owner (`NapiEmbed.toOwner`). */
export function napiThreadHooks(emnapi: Emnapi, embed: NapiEmbed, toParent?: (message: unknown) => void): InstanceHooks {
  const postMessage = toParent ?? threadPoster(embed);
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
      if (embed.ownerInstance) awaitOwnerInstance(new Int32Array(embed.ownerInstance));
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

/**
 * Waits until the owner's instance exists (`NapiEmbed.ownerInstance`). Every instance's start
 * function (wasm-ld's __wasm_init_memory in a wasm32-wasip1-threads module) claims the shared
 * memory's initialization; an instance that finds another one initializing waits for it in
 * memory.atomic.wait32, which traps on a page's thread ("Atomics.wait cannot be called in this
 * context", Chromium). So the page's instance must be the first: a pool worker that booted while
 * the addon compiled gets its WorkerInit when the program starts, just before the page
 * instantiates, and on a loaded machine it could instantiate first (rolldown's direct load in
 * Chromium, 1 of 24 runs of napi-browser.test.mjs on the 2-core test machine). The worker only
 * waits for what the page does next anyway; the page never waits for a worker's instance.
 */
function awaitOwnerInstance(word: Int32Array): void {
  while (Atomics.load(word, 0) === 0) Atomics.wait(word, 0, 0);
}

/**
 * How this worker posts to the owner. In Node, on a channel of its own: the worker takes number n
 * (`embed.own`, word 0) and posts on `${channel}/${n}` once the owner listens there (word n is 1).
 * The owner opens those channels ahead of the workers (owner.ts): always, but for a worker that
 * started beyond them before the owner's thread ran again; that one posts on the program's
 * channel meanwhile (which also makes the owner open more), through an instance it closes when it
 * switches. (Closing does not stop the queueing on a worker whose event loop never runs again; it
 * only ever gets the other late workers' messages of that while.) Node's BroadcastChannel is
 * in-process: an instance is a receiver from its constructor on, so a message posted after the
 * owner set the word reaches it. Messages of one thread stay in order within a channel; emnapi's
 * own workers give no order across threads either (one port per worker).
 * Browsers (no `embed.channel`): the worker's port to its parent, the owner, which creates every
 * pool worker of an addon (platform/browser `browserPlatformWith`); nothing reaches a worker on
 * it but its WorkerInit, and one thread's messages stay in order. A BroadcastChannel's instances
 * on blocked workers queue there as in Node (Chromium and Firefox ESR: 2 workers blocked in
 * Atomics.wait, no listener, 20,000 posts from the page: each worker's instance delivered all
 * 20,000 once it ran again), and whether a new instance receives at once, from another agent, is
 * not specified there, so Node's scheme would not do.
 */
function threadPoster(embed: NapiEmbed): (message: unknown) => void {
  const name = embed.channel;
  if (name === undefined) return (message) => (globalThis as unknown as ParentScope).postMessage(message);
  const shared = (): BroadcastChannel => unref(new BroadcastChannel(name));
  const words = embed.own && new Int32Array(embed.own);
  const n = words ? Atomics.add(words, 0, 1) + 1 : 0;
  if (!words || n >= words.length) {
    const channel = shared();
    return (message) => channel.postMessage(message);
  }
  let own: BroadcastChannel | undefined;
  let early: BroadcastChannel | undefined;
  return (message) => {
    if (!own && Atomics.load(words, n) === 1) {
      own = unref(new BroadcastChannel(`${name}/${n}`));
      early?.close();
      early = undefined;
    }
    (own ?? (early ??= shared())).postMessage(message);
  };
}

/** A dedicated worker's global scope: postMessage goes to its parent. */
interface ParentScope {
  postMessage(message: unknown): void;
}

/** Node: posting only; a channel must not keep the worker's event loop alive. */
function unref(channel: BroadcastChannel): BroadcastChannel {
  (channel as { unref?: () => void }).unref?.();
  return channel;
}
