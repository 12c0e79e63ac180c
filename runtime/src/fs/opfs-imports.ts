/**
 * The `spindle_opfs` imports of a program thread (a program linked with libspindle-fs-opfs.a, or
 * the runtime's memory-FS module, whose `memory()` is then the module's own memory;
 * crates/spindle-wasi-fs/src/opfs_host.rs has the contract): they copy the program's bytes into
 * the request channel (opfs-channel.ts) and, for fsync and loading, wait in Atomics.wait for the
 * I/O worker. They run on the calling thread, which in a browser is always a worker.
 *
 * Errors: an errno for the program (ENOSPC, EIO, ...), never a throw, except when a pointer is
 * out of bounds (a RangeError, which is a bug in the library, not the program's input).
 */
import { Channel, CHUNK_BYTES, ERRNO, errorKey, OP, RESP_BYTES } from './opfs-channel.js';
import { currentBuffer } from '../wasi/guest-memory.js';

/** What a thread needs: the channel's buffer (WorkerInit.opfs). */
export interface OpfsInit {
  channel: SharedArrayBuffer;
}

/** Is `module`/`name` one of these imports? (for load.ts's import check, browser entry) */
export function isOpfsImport(module: string, name: string): boolean {
  return module === 'spindle_opfs' && NAMES.has(name);
}
const NAMES = new Set(['load', 'load_copy', 'write_back', 'namespace', 'wait', 'take_error']);

/**
 * The same imports for a memory-FS module instance of a program without OPFS mounts (Node, or a
 * page that mounted none): the module imports them, but calls them only for an fd on an OPFS
 * mount, and program setup refuses such a mount without a channel (program-fs.ts). So they are
 * never reached; if they were, the call fails with ENOTSUP rather than losing data silently.
 */
export function opfsAbsent(): Record<string, (...args: number[]) => number> {
  const notsup = (): number => ERRNO.NOTSUP;
  const negative = (): number => -ERRNO.NOTSUP;
  return { load: notsup, load_copy: notsup, write_back: negative, namespace: negative, wait: notsup, take_error: notsup };
}

export function opfsImports(init: OpfsInit, memory: () => WebAssembly.Memory): Record<string, (...args: number[]) => number> {
  const ch = new Channel(init.channel);
  const empty = new Uint8Array(0);
  const mem = (ptr: number, len: number): Uint8Array => new Uint8Array(currentBuffer(memory(), (ptr >>> 0) + (len >>> 0)), ptr >>> 0, len >>> 0);
  return {
    load(dir: number, dirLen: number, out: number): number {
      ch.lock();
      try {
        ch.waitDone(ch.put(OP.LOAD, 0, mem(dir, dirLen), empty, empty));
        const r = ch.response();
        if (r.status !== 0) return r.status;
        const v = new DataView(currentBuffer(memory(), (out >>> 0) + 8), out >>> 0, 8);
        v.setUint32(0, r.mount, true);
        v.setUint32(4, r.length, true);
        return 0;
      } finally {
        ch.unlock();
      }
    },
    load_copy(mount: number, buf: number, len: number): number {
      ch.lock();
      try {
        for (let off = 0; off < len; off += RESP_BYTES) {
          ch.waitDone(ch.put(OP.LOAD_CHUNK, mount, empty, empty, empty, off));
          const r = ch.response();
          if (r.status !== 0) return r.status;
          mem(buf + off, r.length).set(ch.responseBytes(r.length));
        }
        return 0;
      } finally {
        ch.unlock();
      }
    },
    write_back(mount: number, path: number, pathLen: number, data: number, dataLen: number): number {
      const p = mem(path, pathLen);
      ch.lock();
      try {
        if (dataLen <= CHUNK_BYTES) return ch.put(OP.WRITE, mount, p, empty, mem(data, dataLen), dataLen);
        ch.put(OP.WRITE_BEGIN, mount, p, empty, empty, dataLen);
        for (let off = 0; off < dataLen; off += CHUNK_BYTES) {
          ch.put(OP.WRITE_DATA, mount, empty, empty, mem(data + off, Math.min(CHUNK_BYTES, dataLen - off)), off);
        }
        return ch.put(OP.WRITE_END, mount, p, empty, empty, dataLen);
      } finally {
        ch.unlock();
      }
    },
    namespace(mount: number, op: number, a: number, aLen: number, b: number, bLen: number): number {
      if (op < OP.MKDIR || op > OP.BARRIER) return -ERRNO.INVAL;
      ch.lock();
      try {
        return ch.put(op, mount, mem(a, aLen), mem(b, bLen), empty);
      } finally {
        ch.unlock();
      }
    },
    wait(mount: number, seq: number, path: number, pathLen: number): number {
      if (seq !== 0) ch.waitDone(seq);
      return ch.takeError(errorKey(mount, mem(path, pathLen)));
    },
    take_error(mount: number, path: number, pathLen: number): number {
      return ch.takeError(errorKey(mount, mem(path, pathLen)));
    },
  };
}
