// fd_*, path_*, sock_* on the stdio-only fd table, with wasmtime's answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as C from '../dist/wasi/constants.js';
import { makeWasi, OOB, NEG } from './wasi-fake-host.mjs';

test('fd_write gathers all iovecs into one writeOutput call and reports nwritten', () => {
  const w = makeWasi();
  const a = w.put(1000, 'héllo, ');
  const b = w.put(1100, 'world\n');
  w.iovs(100, [[1000, a], [1050, 0], [1100, b]]);
  assert.equal(w.wasi.fd_write(1, 100, 3, 200), C.ERRNO_SUCCESS);
  assert.equal(w.out[1].length, 1, 'one host call per fd_write');
  assert.equal(w.text(1), 'héllo, world\n');
  assert.equal(w.u32(200), a + b);
  assert.ok(!(w.out[1][0].buffer instanceof SharedArrayBuffer), 'the host gets a private copy');
});

test('fd_write to stderr goes to sink 2; zero-length write calls no sink', () => {
  const w = makeWasi();
  w.iovs(100, [[1000, w.put(1000, 'err')]]);
  assert.equal(w.wasi.fd_write(2, 100, 1, 200), C.ERRNO_SUCCESS);
  assert.equal(w.text(2), 'err');
  assert.equal(w.wasi.fd_write(1, 100, 0, 200), C.ERRNO_SUCCESS);
  assert.equal(w.u32(200), 0);
  assert.equal(w.out[1].length, 0);
});

test('fd_write: EFAULT for a bad iovec, buffer or result pointer, and nothing is written', () => {
  const w = makeWasi();
  w.iovs(100, [[1000, 4], [OOB, 100]]);
  assert.equal(w.wasi.fd_write(1, 100, 2, 200), C.ERRNO_FAULT);
  w.iovs(100, [[1000, 4]]);
  assert.equal(w.wasi.fd_write(1, 100, 1, OOB + 1), C.ERRNO_FAULT);
  assert.equal(w.wasi.fd_write(1, NEG, 1, 200), C.ERRNO_FAULT);
  assert.equal(w.out[1].length, 0);
});

test('fd_write: a host sink errno is returned; fd 0 and unknown fds are EBADF', () => {
  const w = makeWasi({ writeResult: C.ERRNO_IO });
  w.iovs(100, [[1000, w.put(1000, 'x')]]);
  assert.equal(w.wasi.fd_write(1, 100, 1, 200), C.ERRNO_IO);
  assert.equal(w.wasi.fd_write(0, 100, 1, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_write(3, 100, 1, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_write(-1, 100, 1, 200), C.ERRNO_BADF);
});

test('fd_read scatters stdin across iovecs, asks for at most their capacity, then EOF', () => {
  const w = makeWasi({ stdin: ['abcdefgh'] });
  w.iovs(100, [[1000, 3], [2000, 0], [3000, 10]]);
  assert.equal(w.wasi.fd_read(0, 100, 3, 200), C.ERRNO_SUCCESS);
  assert.equal(w.host.stdinReads[0], 13);
  assert.equal(w.u32(200), 8);
  assert.equal(Buffer.from(w.get(1000, 3)).toString(), 'abc');
  assert.equal(Buffer.from(w.get(3000, 5)).toString(), 'defgh');
  assert.equal(w.wasi.fd_read(0, 100, 3, 200), C.ERRNO_SUCCESS);
  assert.equal(w.u32(200), 0, 'end of file');
});

test('fd_read: zero capacity returns 0 without reading; errors; EFAULT before consuming', () => {
  const w = makeWasi({ stdin: ['data'] });
  assert.equal(w.wasi.fd_read(0, 100, 0, 200), C.ERRNO_SUCCESS);
  assert.equal(w.u32(200), 0);
  w.iovs(100, [[1000, 4]]);
  assert.equal(w.wasi.fd_read(0, 100, 1, OOB + 1), C.ERRNO_FAULT);
  assert.equal(w.host.stdinReads.length, 0, 'stdin untouched');
  assert.equal(w.wasi.fd_read(1, 100, 1, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_read(2, 100, 1, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_read(9, 100, 1, 200), C.ERRNO_BADF);
  const e = makeWasi({ stdinErrno: C.ERRNO_AGAIN });
  e.iovs(100, [[1000, 4]]);
  assert.equal(e.wasi.fd_read(0, 100, 1, 200), C.ERRNO_AGAIN);
});

test('fd_pread / fd_pwrite on stdio: ESPIPE on the stream side, EBADF on the other', () => {
  const w = makeWasi({ stdin: ['x'] });
  w.iovs(100, [[1000, 1]]);
  assert.equal(w.wasi.fd_pread(0, 100, 1, 0n, 200), C.ERRNO_SPIPE);
  assert.equal(w.wasi.fd_pread(1, 100, 1, 0n, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_pwrite(1, 100, 1, 0n, 200), C.ERRNO_SPIPE);
  assert.equal(w.wasi.fd_pwrite(2, 100, 1, 0n, 200), C.ERRNO_SPIPE);
  assert.equal(w.wasi.fd_pwrite(0, 100, 1, 0n, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_pread(5, 100, 1, 0n, 200), C.ERRNO_BADF);
  assert.equal(w.out[1].length, 0);
});

test('fd_seek / fd_tell on stdio are ESPIPE; bad whence is EINVAL; unknown fd EBADF', () => {
  const w = makeWasi();
  for (const fd of [0, 1, 2]) {
    assert.equal(w.wasi.fd_seek(fd, 0n, C.WHENCE_CUR, 8), C.ERRNO_SPIPE);
    assert.equal(w.wasi.fd_tell(fd, 8), C.ERRNO_SPIPE);
  }
  assert.equal(w.wasi.fd_seek(1, 0n, 3, 8), C.ERRNO_INVAL);
  assert.equal(w.wasi.fd_seek(7, 0n, C.WHENCE_SET, 8), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_tell(7, 8), C.ERRNO_BADF);
});

test('fd_fdstat_get: stdio is a character device without seek/tell rights (isatty true)', () => {
  const w = makeWasi();
  const expected = [C.RIGHTS_FD_READ, C.RIGHTS_FD_WRITE, C.RIGHTS_FD_WRITE];
  for (const fd of [0, 1, 2]) {
    w.put(500, new Uint8Array(24).fill(0xff));
    assert.equal(w.wasi.fd_fdstat_get(fd, 500), C.ERRNO_SUCCESS);
    assert.equal(w.u8(500), C.FILETYPE_CHARACTER_DEVICE);
    assert.equal(w.u8(501), 0, 'padding zeroed');
    assert.equal(w.u16(502), 0);
    assert.equal(w.u64(508), expected[fd]);
    assert.equal(w.u64(516), expected[fd]);
    assert.equal(w.u64(508) & (C.RIGHTS_FD_SEEK | C.RIGHTS_FD_TELL), 0n);
  }
  assert.equal(w.wasi.fd_fdstat_get(3, 500), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_fdstat_get(1, OOB), C.ERRNO_FAULT);
});

test('stdioIsTty: false reports UNKNOWN filetype (wasmtime for a non-tty)', () => {
  const w = makeWasi({ wasiOptions: { stdioIsTty: false } });
  assert.equal(w.wasi.fd_fdstat_get(1, 500), C.ERRNO_SUCCESS);
  assert.equal(w.u8(500), C.FILETYPE_UNKNOWN);
});

test('stdioIsTty as a function: asked once per fd, at its first fdstat or filestat, never before', () => {
  const asked = [];
  const w = makeWasi({ wasiOptions: { stdioIsTty: (fd) => { asked.push(fd); return fd === 2; } } });
  assert.deepEqual(asked, [], 'asked before any fd was looked at');
  assert.equal(w.wasi.fd_write(1, 100, 0, 200), C.ERRNO_SUCCESS);
  assert.deepEqual(asked, [], 'a write needs no answer');
  for (const fd of [1, 1, 2, 2]) {
    assert.equal(w.wasi.fd_fdstat_get(fd, 500), C.ERRNO_SUCCESS);
    assert.equal(w.u8(500), fd === 2 ? C.FILETYPE_CHARACTER_DEVICE : C.FILETYPE_UNKNOWN);
  }
  assert.equal(w.wasi.fd_filestat_get(0, 600), C.ERRNO_SUCCESS);
  assert.equal(w.u8(616), C.FILETYPE_UNKNOWN);
  assert.deepEqual(asked, [1, 2, 0]);
});

test('fd_filestat_get on stdio: zeros except the filetype', () => {
  const w = makeWasi();
  w.put(600, new Uint8Array(64).fill(0xff));
  assert.equal(w.wasi.fd_filestat_get(2, 600), C.ERRNO_SUCCESS);
  const st = w.get(600, 64);
  assert.equal(st[16], C.FILETYPE_CHARACTER_DEVICE);
  st[16] = 0;
  assert.ok(st.every((b) => b === 0));
  assert.equal(w.wasi.fd_filestat_get(4, 600), C.ERRNO_BADF);
});

test('file-only operations on stdio are EBADF; invalid flags/advice are EINVAL first', () => {
  const w = makeWasi();
  assert.equal(w.wasi.fd_fdstat_set_flags(1, C.FDFLAGS_APPEND), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_fdstat_set_flags(1, 0x100), C.ERRNO_INVAL);
  assert.equal(w.wasi.fd_fdstat_set_rights(1, 0n, 0n), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_filestat_set_size(1, 0n), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_filestat_set_times(1, 0n, 0n, C.FSTFLAGS_ATIM_NOW), C.ERRNO_BADF);
  assert.equal(
    w.wasi.fd_filestat_set_times(1, 0n, 0n, C.FSTFLAGS_ATIM | C.FSTFLAGS_ATIM_NOW),
    C.ERRNO_INVAL,
  );
  assert.equal(w.wasi.fd_advise(0, 0n, 0n, 0), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_advise(0, 0n, 0n, 6), C.ERRNO_INVAL);
  assert.equal(w.wasi.fd_allocate(1, 0n, 10n), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_datasync(1), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_sync(2), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_readdir(0, 1000, 100, 0n, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_sync(9), C.ERRNO_BADF);
});

test('no preopens: fd_prestat_get is EBADF; fd_prestat_dir_name ENOTDIR on stdio, EBADF else', () => {
  const w = makeWasi();
  for (const fd of [0, 1, 2, 3]) assert.equal(w.wasi.fd_prestat_get(fd, 300), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_prestat_dir_name(1, 300, 10), C.ERRNO_NOTDIR);
  assert.equal(w.wasi.fd_prestat_dir_name(3, 300, 10), C.ERRNO_BADF);
});

test('fd_close on stdio: later calls on that fd are EBADF, closing twice is EBADF', () => {
  const w = makeWasi();
  assert.equal(w.wasi.fd_close(1), C.ERRNO_SUCCESS);
  w.iovs(100, [[1000, w.put(1000, 'x')]]);
  assert.equal(w.wasi.fd_write(1, 100, 1, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_fdstat_get(1, 500), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_close(1), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_write(2, 100, 1, 200), C.ERRNO_SUCCESS, 'other fds unaffected');
});

test('fd_renumber moves a stdio descriptor (dup2-like); EBADF when the source is not open', () => {
  const w = makeWasi();
  w.iovs(100, [[1000, w.put(1000, 'to-stderr')]]);
  assert.equal(w.wasi.fd_renumber(2, 1), C.ERRNO_SUCCESS);
  assert.equal(w.wasi.fd_write(1, 100, 1, 200), C.ERRNO_SUCCESS);
  assert.equal(w.text(2), 'to-stderr');
  assert.equal(w.text(1), '');
  assert.equal(w.wasi.fd_write(2, 100, 1, 200), C.ERRNO_BADF, 'the old number is gone');
  assert.equal(w.wasi.fd_renumber(2, 1), C.ERRNO_BADF);
  assert.equal(w.wasi.fd_renumber(1, 1), C.ERRNO_SUCCESS);
  assert.equal(w.wasi.fd_renumber(1, 5), C.ERRNO_SUCCESS);
  assert.equal(w.wasi.fd_write(5, 100, 1, 200), C.ERRNO_SUCCESS);
  assert.equal(w.text(2), 'to-stderrto-stderr');
});

test('every path_* call is EBADF (no directory fds yet), before looking at the path', () => {
  const w = makeWasi();
  const p = 1000, n = w.put(1000, 'file.txt');
  for (const fd of [0, 1, 2, 3]) {
    assert.equal(w.wasi.path_create_directory(fd, p, n), C.ERRNO_BADF);
    assert.equal(w.wasi.path_filestat_get(fd, 0, p, n, 500), C.ERRNO_BADF);
    assert.equal(w.wasi.path_filestat_set_times(fd, 0, p, n, 0n, 0n, 0), C.ERRNO_BADF);
    assert.equal(w.wasi.path_link(fd, 0, p, n, fd, p, n), C.ERRNO_BADF);
    assert.equal(w.wasi.path_open(fd, 0, p, n, 0, 0n, 0n, 0, 200), C.ERRNO_BADF);
    assert.equal(w.wasi.path_readlink(fd, p, n, 500, 10, 200), C.ERRNO_BADF);
    assert.equal(w.wasi.path_remove_directory(fd, p, n), C.ERRNO_BADF);
    assert.equal(w.wasi.path_rename(fd, p, n, fd, p, n), C.ERRNO_BADF);
    assert.equal(w.wasi.path_symlink(p, n, fd, p, n), C.ERRNO_BADF);
    assert.equal(w.wasi.path_unlink_file(fd, p, n), C.ERRNO_BADF);
    assert.equal(w.wasi.path_open(fd, 0, OOB, 100, 0, 0n, 0n, 0, 200), C.ERRNO_BADF);
  }
  assert.equal(w.wasi.path_open(3, 2, p, n, 0, 0n, 0n, 0, 200), C.ERRNO_INVAL, 'bad lookupflags');
  assert.equal(w.wasi.path_open(3, 0, p, n, 0x10, 0n, 0n, 0, 200), C.ERRNO_INVAL, 'bad oflags');
});

test('sock_*: ENOTSOCK on open fds, EBADF on unknown fds, EINVAL for bad flags', () => {
  const w = makeWasi();
  for (const fd of [0, 1, 2]) {
    assert.equal(w.wasi.sock_accept(fd, 0, 200), C.ERRNO_NOTSOCK);
    assert.equal(w.wasi.sock_recv(fd, 100, 1, 0, 200, 204), C.ERRNO_NOTSOCK);
    assert.equal(w.wasi.sock_send(fd, 100, 1, 0, 200), C.ERRNO_NOTSOCK);
    assert.equal(w.wasi.sock_shutdown(fd, 3), C.ERRNO_NOTSOCK);
  }
  assert.equal(w.wasi.sock_accept(3, 0, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.sock_recv(3, 100, 1, 0, 200, 204), C.ERRNO_BADF);
  assert.equal(w.wasi.sock_send(3, 100, 1, 0, 200), C.ERRNO_BADF);
  assert.equal(w.wasi.sock_shutdown(3, 1), C.ERRNO_BADF);
  assert.equal(w.wasi.sock_shutdown(1, 4), C.ERRNO_INVAL);
  assert.equal(w.wasi.sock_send(1, 100, 1, 1, 200), C.ERRNO_INVAL);
});
