// A host file's and a host directory's fd calls without BigInts (platform/node/host-file.ts,
// fs/shared-fd-table.ts): fd_fdstat_get writes the struct from the shared entry's words, the same
// bytes as the descriptor's `fdstat()` written by `GuestMemory.setFdstat`; fd_read keeps the
// shared offset as a number below 2^52 and as a BigInt from there on, so a read or a tell at any
// offset gives what the BigInt code gave: the bytes at a high offset of a sparse file, and an
// offset that no double can hold (2^53 + 1) kept exactly.
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { GuestMemory } from '../dist/wasi/guest-memory.js';
import * as C from '../dist/wasi/constants.js';
import { hostDirWasi } from './wasi-fake-host.mjs';

const enc = new TextEncoder();
const PATH = 1024, STAT = 4096, SLOW = 4160, IOVS = 4200, OUT = 4300, BUF = 8192;

/** `dir` preopened as fd 3 of a program on this thread: its imports, fd table and memory. */
function program(dir) {
  const { wasi, fds, memory, view, bytes } = hostDirWasi(dir);
  const open = (path, rights = C.RIGHTS_FD_READ | C.RIGHTS_FD_SEEK | C.RIGHTS_FD_TELL) => {
    const b = enc.encode(path);
    bytes().set(b, PATH);
    assert.equal(wasi.path_open(3, 0, PATH, b.length, 0, rights, 0n, 0, OUT), C.ERRNO_SUCCESS);
    return view().getUint32(OUT, true);
  };
  return { wasi, fds, memory, view, bytes, open };
}

function withDir(f) {
  const base = mkdtempSync(join(tmpdir(), 'spindle-wasi-hostfile-'));
  try {
    f(base);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

test('fd_fdstat_get of a host directory and a host file: the bytes setFdstat writes from fdstat(), flags changes seen, EFAULT outside memory', () => withDir((dir) => {
  writeFileSync(join(dir, 'a.txt'), 'hello');
  mkdirSync(join(dir, 'sub'));
  const p = program(dir);
  const mem = new GuestMemory(p.memory);
  const file = p.open('a.txt', C.RIGHTS_FD_READ | C.RIGHTS_FD_WRITE | C.RIGHTS_FD_SEEK | (1n << 63n));
  const sub = p.open('sub');
  const same = (fd) => {
    const bytes = p.bytes();
    bytes.fill(0xee, STAT, STAT + 24);
    assert.equal(p.wasi.fd_fdstat_get(fd, STAT), C.ERRNO_SUCCESS);
    const st = p.fds.get(fd).fdstat();
    bytes.fill(0x55, SLOW, SLOW + 24);
    mem.setFdstat(SLOW, st.filetype, st.flags, st.rightsBase, st.rightsInheriting);
    assert.deepEqual([...bytes.slice(STAT, STAT + 24)], [...bytes.slice(SLOW, SLOW + 24)], `fd ${fd}`);
    return p.view().getBigUint64(STAT + C.FDSTAT_RIGHTS_BASE, true);
  };
  for (const fd of [3, file, sub]) same(fd);
  // The preopen's rights are DIR_BASE (high bits clear); the file's, its request within the directory's inheriting rights.
  assert.equal(same(3), 0x7b7fe00n);
  assert.equal(p.view().getBigUint64(STAT + C.FDSTAT_RIGHTS_INHERITING, true), 0xff7ffffn);
  assert.equal(same(file), (C.RIGHTS_FD_READ | C.RIGHTS_FD_WRITE | C.RIGHTS_FD_SEEK) & 0xff7ffffn);
  assert.equal(p.bytes()[STAT + C.FDSTAT_FILETYPE], C.FILETYPE_REGULAR_FILE);
  assert.equal(p.wasi.fd_fdstat_set_flags(file, C.FDFLAGS_NONBLOCK), C.ERRNO_SUCCESS);
  same(file);
  assert.equal(p.view().getUint16(STAT + C.FDSTAT_FLAGS, true), C.FDFLAGS_NONBLOCK);
  assert.equal(p.wasi.fd_fdstat_set_flags(sub, C.FDFLAGS_SYNC), C.ERRNO_SUCCESS);
  same(sub);
  assert.equal(p.view().getUint16(STAT + C.FDSTAT_FLAGS, true), C.FDFLAGS_SYNC);
  assert.equal(p.wasi.fd_fdstat_get(file, 0xfffffff0), C.ERRNO_FAULT);
  assert.equal(p.wasi.fd_fdstat_get(3, p.memory.buffer.byteLength - 23), C.ERRNO_FAULT);
  assert.equal(p.wasi.fd_close(file), C.ERRNO_SUCCESS);
  assert.equal(p.wasi.fd_fdstat_get(file, STAT), C.ERRNO_BADF);
}));

test('fd_read and fd_tell at high offsets: bytes of a sparse file at 2^40, 2^52 - 1 and 2^53 + 1 kept exactly', () => withDir((dir) => {
  const path = join(dir, 'sparse');
  const os = openSync(path, 'w');
  writeSync(os, 'head');
  writeSync(os, 'far bytes', 2 ** 40);
  closeSync(os);
  const p = program(dir);
  const fd = p.open('sparse');
  const v = p.view();
  const iov = (i, ptr, len) => { v.setUint32(IOVS + 8 * i, ptr, true); v.setUint32(IOVS + 8 * i + 4, len, true); };
  const read = (...lens) => {
    lens.forEach((len, i) => iov(i, BUF + 64 * i, len));
    assert.equal(p.wasi.fd_read(fd, IOVS, lens.length, OUT), C.ERRNO_SUCCESS);
    const n = p.view().getUint32(OUT, true);
    let s = '';
    for (let i = 0, left = n; i < lens.length && left > 0; i++) {
      s += Buffer.from(p.bytes().slice(BUF + 64 * i, BUF + 64 * i + Math.min(lens[i], left))).toString('latin1');
      left -= lens[i];
    }
    return s;
  };
  const tell = () => {
    assert.equal(p.wasi.fd_tell(fd, OUT), C.ERRNO_SUCCESS);
    return p.view().getBigUint64(OUT, true);
  };
  const seek = (to) => assert.equal(p.wasi.fd_seek(fd, to, C.WHENCE_SET, OUT), C.ERRNO_SUCCESS);
  assert.equal(read(2, 0, 1), 'hea');
  assert.equal(tell(), 3n);
  seek(2n ** 40n - 2n);
  assert.equal(read(3, 4), '\0\0far b'); // across the hole's end, into two buffers
  assert.equal(read(100), 'ytes');
  assert.equal(tell(), 2n ** 40n + 9n);
  assert.equal(read(8), '');
  assert.equal(tell(), 2n ** 40n + 9n);
  for (const at of [2n ** 52n - 1n, 2n ** 52n, 2n ** 53n + 1n, 2n ** 62n + 3n]) {
    seek(at);
    assert.equal(read(8, 8), ''); // past the end of the file
    assert.equal(tell(), at);
  }
  // From 2^52 - 4 a read moves the offset by what it read: nothing here, so it stays exact.
  seek(2n ** 52n - 4n);
  assert.equal(read(16), '');
  assert.equal(p.wasi.fd_seek(fd, 5n, C.WHENCE_CUR, OUT), C.ERRNO_SUCCESS);
  assert.equal(tell(), 2n ** 52n + 1n);
  seek(0n);
  assert.equal(read(4), 'head');
  assert.equal(tell(), 4n);
  assert.equal(p.wasi.fd_close(fd), C.ERRNO_SUCCESS);
}));
