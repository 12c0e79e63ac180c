/**
 * The owner's side of OPFS mounts (browser only): one request channel and one I/O worker
 * (opfs-io-worker.ts) per program, created on first need, by either route:
 * - the in-program FS: a program whose module imports `spindle_opfs` (linked with
 *   libspindle-fs-opfs.a) gets the channel in every WorkerInit (`opfs`, from `withOpfs`);
 * - the runtime's shared FS: `opfsDriver.load` (program setup, `mounts: ['/data=opfs:DIR']`)
 *   loads the OPFS directory through the I/O worker without blocking the owner, and the channel
 *   then travels in the memory FS's init (memfs-thread.ts gives every module instance the
 *   `spindle_opfs` imports over it).
 *   The idle write-back of that route runs on a second small worker (opfs-idle-worker.ts).
 * When the program ends, the I/O worker is told to finish what is queued and close: queued
 * write-backs still reach OPFS after `run()` resolves, as long as the page stays open.
 *
 * Thread rules: owner only (the page, or the user's worker that runs the program); nothing here
 * blocks (Atomics.waitAsync), so it may run on a page's main thread.
 */
import type { WorkerInit } from '../../protocol.js';
import { Channel, createChannel, OP, RESP_BYTES } from '../../fs/opfs-channel.js';
import type { OpfsDriver } from '../../fs/drivers.js';
import type { MemFsInit } from '../../fs/memfs.js';

interface ProgramIo {
  channel: SharedArrayBuffer;
  worker: Worker;
  /** The idle write-back worker (opfs-idle-worker.ts), runtime's shared FS only. */
  idle?: Worker;
}

const programs = new WeakMap<SharedArrayBuffer, ProgramIo>();

/** The program's channel, starting its I/O worker the first time. */
function ioFor(control: SharedArrayBuffer): ProgramIo {
  let io = programs.get(control);
  if (!io) {
    const channel = createChannel();
    // Written out in full so that bundlers recognise the worker and emit it.
    const worker = new Worker(new URL('./opfs-io-worker.js', import.meta.url), { type: 'module', name: 'spindle OPFS I/O' });
    worker.postMessage({ channel });
    io = { channel, worker };
    programs.set(control, io);
  }
  return io;
}

/** `init` with the program's OPFS channel if its module needs one (starts the I/O worker once). */
export function withOpfs(init: WorkerInit): WorkerInit {
  if (init.opfs || !WebAssembly.Module.imports(init.module).some((i) => i.module === 'spindle_opfs')) return init;
  return { ...init, opfs: { channel: ioFor(init.control).channel } };
}

/** The program ended: its idle worker stops, its I/O worker drains the queue and closes. */
export function endOpfs(control: SharedArrayBuffer): void {
  const io = programs.get(control);
  io?.idle?.postMessage({ end: true });
  io?.worker.postMessage({ end: true });
  programs.delete(control);
}

/**
 * The runtime's shared FS has OPFS mounts (`memfs` is its init): starts the idle write-back
 * worker, which scans the open files on a timer while the program runs (once per program).
 */
function startIdle(control: SharedArrayBuffer, memfs: MemFsInit): void {
  const io = programs.get(control);
  if (!io || io.idle) return;
  io.idle = new Worker(new URL('./opfs-idle-worker.js', import.meta.url), { type: 'module', name: 'spindle OPFS idle write-back' });
  io.idle.postMessage({ memfs });
}

/** The browser's driver (platform/browser/index.ts). */
/** The browser's driver (platform/browser/index.ts). */
export const opfsDriver: OpfsDriver = {
  async load(control, dir) {
    const { channel } = ioFor(control);
    const ch = new Channel(channel);
    const empty = new Uint8Array(0);
    await ch.lockAsync();
    try {
      await ch.waitDoneAsync(ch.put(OP.LOAD, 0, new TextEncoder().encode(dir), empty, empty));
      const r = ch.response();
      if (r.status !== 0) throw Object.assign(new Error(`OPFS refused directory '${dir}' (WASI errno ${r.status})`), { errno: r.status });
      const tar = new Uint8Array(r.length);
      for (let off = 0; off < tar.length; off += RESP_BYTES) {
        await ch.waitDoneAsync(ch.put(OP.LOAD_CHUNK, r.mount, empty, empty, empty, off));
        const c = ch.response();
        if (c.status !== 0) throw Object.assign(new Error(`reading OPFS directory '${dir}' failed (WASI errno ${c.status})`), { errno: c.status });
        tar.set(ch.responseBytes(c.length), off);
      }
      return { channel, mount: r.mount, tar };
    } finally {
      ch.unlock();
    }
  },
  end: endOpfs,
  startIdle,
};
