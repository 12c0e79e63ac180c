/**
 * The idle write-back of OPFS mounts on the runtime's shared FS (browser): a small dedicated
 * module worker per program with such mounts, started by the owner (opfs-owner.ts `startIdle`)
 * once the memory FS exists. It joins the memory FS like a program thread (its own module
 * instance on the shared memory) and every `spindle_fs_opfs_idle_tick_ms()` ms calls
 * `spindle_fs_opfs_flush_idle`, which queues a write-back of each file open for writing on an
 * OPFS mount that changed and then stayed unchanged for a whole tick (design: the top of
 * crates/spindle-wasi-fs/src/opfs.rs). So it works while the program makes no fs call at all.
 *
 * Why not the I/O worker itself: a scan is a producer on the channel and may wait for room in a
 * full ring, which only the I/O worker (the consumer) makes; and it may wait for the memory
 * FS's locks. This worker may block (Atomics.wait): it is never the page's main thread.
 *
 * Thread rules: one scan at a time (a timer callback); `{ end: true }` (the program ended) stops
 * the timer between scans, returns the instance and closes the worker: never ended mid-scan, so
 * no lock is left held.
 */
import { memFsThread, type MemFsInit } from '../../fs/memfs.js';

/** What the owner posts once. */
export interface IdleWorkerInit {
  memfs: MemFsInit;
}

let stop: (() => void) | null = null;

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<IdleWorkerInit | { end: true }>) => void) | null;
  close(): void;
};
scope.onmessage = (e) => {
  if ('end' in e.data) {
    stop?.();
    scope.close();
    return;
  }
  const t = memFsThread(e.data.memfs);
  const timer = setInterval(() => t.flushOpfsIdle(), t.opfsIdleTickMs());
  stop = () => {
    clearInterval(timer);
    t.dispose();
  };
};
