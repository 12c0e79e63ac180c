// The extension point for the filesystem: a custom FdTable with a preopened directory and files
// (toy in-memory descriptors written here) drives prestat, path_open, read/write/seek, readdir.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as C from '../dist/wasi/constants.js';
import { DescriptorBase, LocalFdTable, stdioDescriptors } from '../dist/wasi/preview1.js';
import { makeWasi } from './wasi-fake-host.mjs';

const enc = (s) => new TextEncoder().encode(s);
const zeroStat = (filetype, size = 0n) =>
  ({ dev: 1n, ino: 2n, filetype, nlink: 1n, size, atim: 0n, mtim: 0n, ctim: 0n });

class ToyFile extends DescriptorBase {
  constructor(data) { super(); this.data = data; this.pos = 0; }
  fdstat() { return { filetype: C.FILETYPE_REGULAR_FILE, flags: 0, rightsBase: -1n & 0x3fffffffn, rightsInheriting: 0n }; }
  filestat() { return zeroStat(C.FILETYPE_REGULAR_FILE, BigInt(this.data.length)); }
  read(max) { const b = this.data.slice(this.pos, this.pos + max); this.pos += b.length; return b; }
  write(bytes) { const d = new Uint8Array(Math.max(this.data.length, this.pos + bytes.length)); d.set(this.data); d.set(bytes, this.pos); this.data = d; this.pos += bytes.length; return bytes.length; }
  seek(delta, whence) { const base = whence === C.WHENCE_SET ? 0n : whence === C.WHENCE_CUR ? BigInt(this.pos) : BigInt(this.data.length); this.pos = Number(base + delta); return BigInt(this.pos); }
  tell() { return BigInt(this.pos); }
  readReady() { return true; }
}

class ToyDir extends DescriptorBase {
  constructor(files, name) { super(); this.files = files; this.name = name; }
  fdstat() { return { filetype: C.FILETYPE_DIRECTORY, flags: 0, rightsBase: 0n, rightsInheriting: 0n }; }
  filestat() { return zeroStat(C.FILETYPE_DIRECTORY); }
  prestatName() { return this.name && enc(this.name); }
  readdir(cookie, max) { return enc([...this.files.keys()].slice(Number(cookie)).join('\n')).slice(0, max + 3); }
  asDirectory() {
    const files = this.files;
    return {
      open: (_lf, path, oflags) => {
        if (!files.has(path)) {
          if (!(oflags & C.OFLAGS_CREAT)) throw { errno: C.ERRNO_NOENT }; // not a WasiErrno: EIO path
          files.set(path, new Uint8Array());
        }
        return new ToyFile(files.get(path));
      },
      filestat: (_lf, path) => zeroStat(C.FILETYPE_REGULAR_FILE, BigInt(files.get(path).length)),
      readlink: (path) => enc(`target-of-${path}`),
    };
  }
}

function setup() {
  const files = new Map([['hello.txt', enc('hello file')]]);
  const w = makeWasi({
    wasiOptions: (host) => ({
      fds: new LocalFdTable([...stdioDescriptors(host), new ToyDir(files, '/sandbox')]),
      onUnexpectedError: () => {},
    }),
  });
  return { w, files };
}

test('a preopen is visible through fd_prestat_get / fd_prestat_dir_name', () => {
  const { w } = setup();
  assert.equal(w.wasi.fd_prestat_get(3, 300), C.ERRNO_SUCCESS);
  assert.equal(w.u8(300), C.PREOPENTYPE_DIR);
  assert.equal(w.u32(304), 8);
  assert.equal(w.wasi.fd_prestat_dir_name(3, 400, 7), C.ERRNO_NAMETOOLONG);
  assert.equal(w.wasi.fd_prestat_dir_name(3, 400, 8), C.ERRNO_SUCCESS);
  assert.equal(Buffer.from(w.get(400, 8)).toString(), '/sandbox');
  assert.equal(w.wasi.fd_prestat_get(4, 300), C.ERRNO_BADF);
});

test('path_open inserts a descriptor at the lowest free fd; fd_read/fd_seek/fd_tell reach it', () => {
  const { w } = setup();
  const n = w.put(1000, 'hello.txt');
  assert.equal(w.wasi.path_open(3, 0, 1000, n, 0, 0n, 0n, 0, 200), C.ERRNO_SUCCESS);
  const fd = w.u32(200);
  assert.equal(fd, 4);
  w.iovs(100, [[2000, 5], [2100, 50]]);
  assert.equal(w.wasi.fd_read(fd, 100, 2, 204), C.ERRNO_SUCCESS);
  assert.equal(w.u32(204), 10);
  assert.equal(Buffer.from(w.get(2000, 5)).toString() + Buffer.from(w.get(2100, 5)).toString(), 'hello file');
  assert.equal(w.wasi.fd_seek(fd, -4n, C.WHENCE_END, 300), C.ERRNO_SUCCESS);
  assert.equal(w.u64(300), 6n);
  assert.equal(w.wasi.fd_tell(fd, 300), C.ERRNO_SUCCESS);
  assert.equal(w.u64(300), 6n);
  assert.equal(w.wasi.fd_filestat_get(fd, 600), C.ERRNO_SUCCESS);
  assert.equal(w.u64(600 + 32), 10n);
  assert.equal(w.wasi.fd_close(fd), C.ERRNO_SUCCESS);
  assert.equal(w.wasi.path_open(3, 0, 1000, n, 0, 0n, 0n, 0, 200), C.ERRNO_SUCCESS);
  assert.equal(w.u32(200), 4, 'closed number reused');
});

test('path strings are decoded as UTF-8; invalid UTF-8 is EILSEQ; a non-WasiErrno throw is EIO', () => {
  const { w, files } = setup();
  const n = w.put(1000, 'café.txt');
  assert.equal(w.wasi.path_open(3, 0, 1000, n, C.OFLAGS_CREAT, 0n, 0n, 0, 200), C.ERRNO_SUCCESS);
  assert.ok(files.has('café.txt'));
  w.put(1100, new Uint8Array([0x66, 0xff, 0x66]));
  assert.equal(w.wasi.path_open(3, 0, 1100, 3, 0, 0n, 0n, 0, 200), C.ERRNO_ILSEQ);
  const m = w.put(1200, 'missing');
  assert.equal(w.wasi.path_open(3, 0, 1200, m, 0, 0n, 0n, 0, 200), C.ERRNO_IO);
});

test('path_readlink truncates to the buffer; fd_readdir reports bytes used', () => {
  const { w } = setup();
  const n = w.put(1000, 'lnk');
  assert.equal(w.wasi.path_readlink(3, 1000, n, 2000, 5, 200), C.ERRNO_SUCCESS);
  assert.equal(w.u32(200), 5);
  assert.equal(Buffer.from(w.get(2000, 5)).toString(), 'targe');
  assert.equal(w.wasi.fd_readdir(3, 3000, 4, 0n, 200), C.ERRNO_SUCCESS);
  assert.equal(w.u32(200), 4, 'never more than the buffer even if the descriptor over-fills');
  const h = w.put(1100, 'hello.txt');
  assert.equal(w.wasi.path_filestat_get(3, C.LOOKUPFLAGS_SYMLINK_FOLLOW, 1100, h, 600), C.ERRNO_SUCCESS);
  assert.equal(w.u8(600 + 16), C.FILETYPE_REGULAR_FILE);
  assert.equal(w.u64(600 + 32), 10n);
});

test('poll_oneoff asks custom descriptors for readiness', () => {
  const { w } = setup();
  const n = w.put(1000, 'hello.txt');
  w.wasi.path_open(3, 0, 1000, n, 0, 0n, 0n, 0, 200);
  w.setU64(4000, 9n);
  w.setU8(4008, C.EVENTTYPE_FD_READ);
  w.setU32(4016, w.u32(200));
  assert.equal(w.wasi.poll_oneoff(4000, 5000, 1, 204), C.ERRNO_SUCCESS);
  assert.equal(w.u32(204), 1);
  assert.equal(w.u64(5000), 9n);
  assert.equal(w.u16(5008), 0);
});
