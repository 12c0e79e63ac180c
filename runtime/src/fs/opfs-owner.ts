/**
 * The owner's side of OPFS mounts (browser only): for a program whose module imports
 * `spindle_opfs` (linked with libspindle-fs-opfs.a), one request channel and one I/O worker
 * (opfs-io-worker.ts) per program, created with its first worker; every WorkerInit of the
 * program then carries the channel (`opfs`). When the program ends, the I/O worker is told to
 * finish what is queued and close: queued write-backs still reach OPFS after `run()` resolves,
 * as long as the page stays open.
 *
 * Thread rules: owner only (the page, or the user's worker that runs the program).
 */
import type { WorkerInit } from '../thread.js';
import { createChannel } from './opfs-channel.js';

const programs = new WeakMap<SharedArrayBuffer, { channel: SharedArrayBuffer; worker: Worker }>();

/** `init` with the program's OPFS channel if its module needs one (starts the I/O worker once). */
export function withOpfs(init: WorkerInit): WorkerInit {
  if (init.opfs || !WebAssembly.Module.imports(init.module).some((i) => i.module === 'spindle_opfs')) return init;
  let io = programs.get(init.control);
  if (!io) {
    const channel = createChannel();
    // Written out in full so that bundlers recognise the worker and emit it.
    const worker = new Worker(new URL('./opfs-io-worker.js', import.meta.url), { type: 'module', name: 'spindle OPFS I/O' });
    worker.postMessage({ channel });
    io = { channel, worker };
    programs.set(init.control, io);
  }
  return { ...init, opfs: { channel: io.channel } };
}

/** The program ended: its I/O worker drains the queue and closes. */
export function endOpfs(control: SharedArrayBuffer): void {
  programs.get(control)?.worker.postMessage({ end: true });
  programs.delete(control);
}
