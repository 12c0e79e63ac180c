/**
 * The WASI preview1 subset the demo's baseline host gives a program whose files live in a JS
 * filesystem (memfs.js): args, clocks, random, stdio, and the file calls, each turned into one
 * call of the filesystem's node:fs-style API. `fs` is either the filesystem itself (the program
 * runs on the page's main thread) or its proxy (proxy.js: the program runs on a worker, every call
 * goes to the page's main thread). This mirrors what @tybys/wasm-util's WASI does on top of memfs
 * under @napi-rs/wasm-runtime; it is a baseline for the demo, not spindle's WASI layer.
 *
 * One preopen: fd 3 is the directory /tmp of the filesystem. File fds are the filesystem's own
 * (shared by all threads). Calls the workload does not need return ENOSYS.
 *
 * Thread rules: one import object per instance (per thread), used on that thread.
 */
import { ERRNO } from './memfs.js';

const PREOPEN_FD = 3;
const PREOPEN_PATH = '/tmp';
const FILETYPE_CHARACTER_DEVICE = 2;
const FILETYPE_DIRECTORY = 3;
const RIGHTS_ALL = 0x1fffffffn;
const RIGHT_FD_SEEK = 1n << 2n;
const RIGHT_FD_TELL = 1n << 5n;

/** Thrown by proc_exit to unwind the wasm stack; caught by whoever called _start. */
export class ExitSignal {
  constructor(code) { this.code = code; }
}

/**
 * @param {object} o
 * @param {() => WebAssembly.Memory} o.memory   the instance's memory (read on every call)
 * @param {string[]} o.args                     argv, argv[0] included
 * @param {object} o.fs                         the filesystem or its proxy
 * @param {(fd: number, bytes: Uint8Array) => void} o.output   stdout/stderr bytes (a copy)
 * @param {string[]} names                      the module's wasi_snapshot_preview1 imports
 */
export function wasiImports(o, names) {
  const enc = new TextEncoder();
  const u8 = () => new Uint8Array(o.memory().buffer);
  const dv = () => new DataView(o.memory().buffer);
  const str = (ptr, len) => new TextDecoder().decode(u8().slice(ptr, ptr + len));
  const args = o.args.map((a) => enc.encode(`${a}\0`));
  const preopenName = enc.encode(PREOPEN_PATH);
  const path = (dirfd, ptr, len) => {
    if (dirfd !== PREOPEN_FD) throw { errno: ERRNO.BADF };
    return `${PREOPEN_PATH}/${str(ptr, len)}`;
  };
  /** The iovecs at `iovs` as [ptr, len] pairs. */
  const iovecs = (iovs, n) => {
    const d = dv();
    return Array.from({ length: n }, (_, i) => [d.getUint32(iovs + i * 8, true), d.getUint32(iovs + i * 8 + 4, true)]);
  };
  const gather = (iovs, n) => {
    const parts = iovecs(iovs, n);
    const out = new Uint8Array(parts.reduce((s, [, l]) => s + l, 0));
    const m = u8();
    let at = 0;
    for (const [p, l] of parts) { out.set(m.subarray(p, p + l), at); at += l; }
    return out;
  };
  const writeFilestat = (ptr, st) => {
    const d = dv();
    d.setBigUint64(ptr, 0n, true);
    d.setBigUint64(ptr + 8, BigInt(st.ino), true);
    d.setUint8(ptr + 16, st.filetype);
    d.setBigUint64(ptr + 24, BigInt(st.nlink), true);
    d.setBigUint64(ptr + 32, BigInt(st.size), true);
    d.setBigUint64(ptr + 40, BigInt(st.atim), true);
    d.setBigUint64(ptr + 48, BigInt(st.mtim), true);
    d.setBigUint64(ptr + 56, BigInt(st.ctim), true);
  };

  const f = {
    args_sizes_get(argcPtr, sizePtr) {
      dv().setUint32(argcPtr, args.length, true);
      dv().setUint32(sizePtr, args.reduce((s, a) => s + a.length, 0), true);
      return 0;
    },
    args_get(argvPtr, bufPtr) {
      let at = bufPtr;
      args.forEach((a, i) => { dv().setUint32(argvPtr + i * 4, at, true); u8().set(a, at); at += a.length; });
      return 0;
    },
    environ_sizes_get(countPtr, sizePtr) {
      dv().setUint32(countPtr, 0, true);
      dv().setUint32(sizePtr, 0, true);
      return 0;
    },
    environ_get() { return 0; },
    clock_res_get(_id, ptr) { dv().setBigUint64(ptr, 1000n, true); return 0; },
    clock_time_get(id, _precision, ptr) {
      // One clock for every thread: timeOrigin differs between workers, timeOrigin + now does not.
      const ms = id === 0 ? Date.now() : performance.timeOrigin + performance.now();
      dv().setBigUint64(ptr, BigInt(Math.round(ms * 1e6)), true);
      return 0;
    },
    random_get(ptr, len) {
      const bytes = new Uint8Array(len);
      for (let i = 0; i < len; i += 65536) crypto.getRandomValues(bytes.subarray(i, Math.min(len, i + 65536)));
      u8().set(bytes, ptr);
      return 0;
    },
    sched_yield() { return 0; },
    proc_exit(code) { throw new ExitSignal(code); },

    fd_prestat_get(fd, ptr) {
      if (fd !== PREOPEN_FD) return ERRNO.BADF;
      dv().setUint8(ptr, 0);
      dv().setUint32(ptr + 4, preopenName.length, true);
      return 0;
    },
    fd_prestat_dir_name(fd, ptr, len) {
      if (fd !== PREOPEN_FD) return ERRNO.BADF;
      u8().set(preopenName.subarray(0, len), ptr);
      return 0;
    },
    fd_fdstat_get(fd, ptr) {
      const d = dv();
      let filetype, rights = RIGHTS_ALL;
      if (fd <= 2) { filetype = FILETYPE_CHARACTER_DEVICE; rights &= ~(RIGHT_FD_SEEK | RIGHT_FD_TELL); }
      else if (fd === PREOPEN_FD) filetype = FILETYPE_DIRECTORY;
      else filetype = o.fs.fstatSync(fd).filetype;
      d.setUint8(ptr, filetype);
      d.setUint16(ptr + 2, 0, true);
      d.setBigUint64(ptr + 8, rights, true);
      d.setBigUint64(ptr + 16, rights, true);
      return 0;
    },
    fd_write(fd, iovs, n, nwrittenPtr) {
      const bytes = gather(iovs, n);
      let written = bytes.length;
      if (fd === 1 || fd === 2) o.output(fd, bytes);
      else if (fd === 0 || fd === PREOPEN_FD) return ERRNO.BADF;
      else written = o.fs.writeSync(fd, bytes);
      dv().setUint32(nwrittenPtr, written, true);
      return 0;
    },
    fd_read(fd, iovs, n, nreadPtr) {
      const parts = iovecs(iovs, n);
      const total = parts.reduce((s, [, l]) => s + l, 0);
      let bytes = new Uint8Array(0); // stdin: end of input
      if (fd > PREOPEN_FD) bytes = o.fs.readSync(fd, total);
      else if (fd !== 0) return ERRNO.BADF;
      const m = u8();
      let at = 0;
      for (const [p, l] of parts) {
        if (at >= bytes.length) break;
        const chunk = bytes.subarray(at, at + l);
        m.set(chunk, p);
        at += chunk.length;
      }
      dv().setUint32(nreadPtr, bytes.length, true);
      return 0;
    },
    fd_seek(fd, offset, whence, ptr) {
      if (fd <= PREOPEN_FD) return ERRNO.SPIPE;
      dv().setBigUint64(ptr, BigInt(o.fs.seekSync(fd, Number(offset), whence)), true);
      return 0;
    },
    fd_close(fd) {
      if (fd <= PREOPEN_FD) return 0;
      o.fs.closeSync(fd);
      return 0;
    },
    fd_filestat_get(fd, ptr) {
      if (fd <= PREOPEN_FD) return ERRNO.BADF;
      writeFilestat(ptr, o.fs.fstatSync(fd));
      return 0;
    },
    path_open(dirfd, _dirflags, ptr, len, oflags, _rightsBase, _rightsInheriting, fdflags, fdPtr) {
      const fd = o.fs.openSync(path(dirfd, ptr, len), oflags, fdflags);
      dv().setUint32(fdPtr, fd, true);
      return 0;
    },
    path_filestat_get(dirfd, _flags, ptr, len, statPtr) {
      writeFilestat(statPtr, o.fs.statSync(path(dirfd, ptr, len)));
      return 0;
    },
    path_create_directory(dirfd, ptr, len) {
      o.fs.mkdirSync(path(dirfd, ptr, len));
      return 0;
    },
    path_unlink_file(dirfd, ptr, len) {
      o.fs.unlinkSync(path(dirfd, ptr, len));
      return 0;
    },
    path_remove_directory(dirfd, ptr, len) {
      o.fs.rmdirSync(path(dirfd, ptr, len));
      return 0;
    },
  };

  const imports = {};
  for (const name of names) {
    const impl = f[name];
    if (!impl) { imports[name] = () => ERRNO.NOSYS; continue; }
    imports[name] = name === 'proc_exit' ? impl : (...a) => {
      try {
        return impl(...a);
      } catch (e) {
        if (typeof e?.errno === 'number') return e.errno;
        throw e;
      }
    };
  }
  return imports;
}
