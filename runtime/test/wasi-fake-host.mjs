/**
 * A fake WasiHost for the WASI layer's unit tests: a shared memory like a real threaded instance,
 * output captured per fd, stdin fed from a queue, exit/raise that throw a recognisable unwind.
 * Tests call the import functions directly (no wasm module needed).
 */
import assert from 'node:assert/strict';
import { SharedFdTable } from '../dist/fs/shared-fd-table.js';
import { hostDirEntryFor, threadFdTable } from '../dist/fs/runtime-fs.js';
import { nodeHostFs } from '../dist/platform/node/host-fs.js';
import { wasiPreview1 } from '../dist/wasi/preview1.js';

/** What the fake host's exit() throws. */
export class FakeExit {
  constructor(code) {
    this.code = code;
  }
}

/**
 * Options: args, env, stdin (array of Uint8Array/string chunks, then EOF), writeResult (errno
 * returned by writeOutput), wasiOptions (passed to wasiPreview1; or a function of the host
 * returning them).
 */
export function makeWasi(opts = {}) {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 10, shared: true });
  const out = { 1: [], 2: [] };
  const stdin = (opts.stdin ?? []).map((c) => (typeof c === 'string' ? new TextEncoder().encode(c) : c));
  const host = {
    memory,
    args: opts.args ?? ['prog'],
    env: opts.env ?? [],
    threadId: 0,
    stdinReads: [],
    writeOutput(fd, bytes) {
      if (opts.writeThrows) throw new Error('sink exploded');
      out[fd].push(bytes);
      return opts.writeResult ?? 0;
    },
    readStdin(max) {
      host.stdinReads.push(max);
      if (opts.stdinErrno) return opts.stdinErrno;
      if (stdin.length === 0) return new Uint8Array(0);
      const chunk = stdin[0];
      if (chunk.length <= max) return stdin.shift();
      stdin[0] = chunk.subarray(max);
      return chunk.subarray(0, max);
    },
    stdinReady() {
      return opts.stdinReady ?? stdin.length > 0;
    },
    exit(code) {
      throw new FakeExit(code);
    },
    raise(signal) {
      throw new FakeExit(128 + signal);
    },
  };
  const wasiOptions =
    typeof opts.wasiOptions === 'function' ? opts.wasiOptions(host) : opts.wasiOptions;
  const wasi = wasiPreview1(host, wasiOptions);
  const view = () => new DataView(memory.buffer);
  const bytes = () => new Uint8Array(memory.buffer);
  return {
    wasi,
    host,
    memory,
    out,
    /** Output of fd as one string. */
    text: (fd) => Buffer.concat(out[fd]).toString('utf8'),
    u8: (p) => view().getUint8(p),
    u16: (p) => view().getUint16(p, true),
    u32: (p) => view().getUint32(p, true),
    u64: (p) => view().getBigUint64(p, true),
    setU8: (p, v) => view().setUint8(p, v),
    setU16: (p, v) => view().setUint16(p, v, true),
    setU32: (p, v) => view().setUint32(p, v, true),
    setU64: (p, v) => view().setBigUint64(p, v, true),
    /** Writes bytes (or a UTF-8 string) at p, returns its length. */
    put: (p, data) => {
      const b = typeof data === 'string' ? new TextEncoder().encode(data) : data;
      bytes().set(b, p);
      return b.length;
    },
    get: (p, n) => bytes().slice(p, p + n),
    /** Writes an iovec array at p from [ptr, len] pairs. */
    iovs: (p, list) => {
      list.forEach(([ptr, len], i) => {
        view().setUint32(p + i * 8, ptr, true);
        view().setUint32(p + i * 8 + 4, len, true);
      });
    },
  };
}

/** A pointer past the end of a 1-page memory, as wasm would pass it (i32). */
export const OOB = 65536 - 2;
/** A pointer wasm passes as a negative i32 (0xfffffff0). */
export const NEG = -16;

/**
 * The WASI imports of a program on this thread (the same code a worker runs: the shared fd table,
 * the Node host-directory driver) with host directory `dir` preopened as fd 3 (guest '/d'): its
 * imports, fd table, memory (2 pages, up to 16) and views of it.
 */
export function hostDirWasi(dir) {
  const table = SharedFdTable.create();
  const root = nodeHostFs.root(dir);
  assert.ok(!('error' in root));
  table.insertEntry(hostDirEntryFor(root.fd, root.path, 0, 1));
  const memory = new WebAssembly.Memory({ initial: 2, maximum: 16, shared: true });
  const host = {
    memory, args: [], env: [], threadId: 0, writeOutput: () => 0, readStdin: () => new Uint8Array(0), stdinReady: () => true,
    exit: (code) => { throw new Error(`exit ${code}`); },
  };
  const fds = threadFdTable({ table: table.buffer, mounts: [{ guest: '/d', host: dir, readOnly: false }], memfs: null }, host, false, nodeHostFs);
  return { wasi: wasiPreview1(host, { fds }), fds, memory, view: () => new DataView(memory.buffer), bytes: () => new Uint8Array(memory.buffer) };
}
