/**
 * The browser platform as every thread of a program sees it (`browserHost`: no host file
 * descriptors, fetch for files, OPFS), and the pool workers' platform (`poolWorkerPlatform`),
 * whose only way to add a worker is to ask the worker's parent.
 *
 * This file never creates a pool worker, so the pool worker's own module graph (worker.ts ->
 * pool-worker.ts -> here) reaches no script that creates one: bundlers (Vite) refuse a worker
 * that imports, through a chain of workers, its own creation (index.ts -> creator-worker.ts ->
 * worker.ts).
 *
 * Output and input: stdout/stderr always take the `ring` route (callbacks, on the owner) and
 * stdin is a pipe fed by the owner, so the fd calls here only answer errnos.
 */
import type { Platform, WorkerHandle } from '../types.js';
import type { GrowRequest, WorkerInit } from '../../protocol.js';
import { opfsDriver } from './opfs-owner.js';

const ERRNO_BADF = 8;
const ERRNO_NOTSUP = 58;

/** A worker's global scope, as far as this file uses it (the DOM lib has no worker types). */
interface WorkerScope {
  postMessage(message: unknown): void;
}

/** Everything of the platform but the creation of workers, the same on every thread. */
export const browserHost: Omit<Platform, 'startWorker'> = {
  cpuCount: () => Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1),
  readFile: async (url) => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`cannot fetch ${String(url)}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  },
  isatty: () => false,
  writeFd: () => ERRNO_NOTSUP,
  readFd: () => ERRNO_BADF,
  // No host stdin in a page: a program that reads the default stdin sees end of input.
  readStdin: (_onChunk, onEnd) => { onEnd(); return () => {}; },
  // OPFS mounts of the runtime's shared FS (`mounts: ['/data=opfs:DIR']`).
  opfs: opfsDriver,
};

/**
 * A pool worker's side: its parent (the owner, or the owner's creator) creates every worker of
 * the program, so ask it for one. The command is already in the slot; the thread starts when the
 * worker boots.
 */
function askParent(init: WorkerInit): WorkerHandle {
  (globalThis as unknown as WorkerScope).postMessage({ grow: init.slot } satisfies GrowRequest);
  return { terminate: async () => {} };
}

/** For the runtime's own pool workers (worker.ts) and an embedder's (napi/worker.ts). */
export const poolWorkerPlatform: Platform = { ...browserHost, startWorker: askParent };
