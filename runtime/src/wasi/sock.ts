/**
 * sock_accept, sock_recv, sock_send, sock_shutdown.
 *
 * This runtime has no sockets (preview1 cannot create one; a host would have to pass it in as a
 * preopened fd). As wasmtime: invalid flag values are EINVAL, an fd that is not open is EBADF, and
 * any open fd is ENOTSOCK. When socket descriptors arrive they get methods on `Descriptor` and
 * these functions dispatch to them.
 *
 * Thread rules: none.
 */
import {
  ERRNO_NOTSOCK,
  FDFLAGS_ALL,
  RIFLAGS_ALL,
  SDFLAGS_ALL,
  SIFLAGS_ALL,
} from './constants.js';
import { fail } from './errno.js';
import type { FdTable } from './fd-table.js';
import { checkFlags } from './fd.js';

export function sockFunctions(fds: FdTable) {
  /** EBADF if `fd` is not open, else ENOTSOCK: no open fd is a socket. */
  const notSocket = (fd: number): number => {
    fds.get(fd);
    return fail(ERRNO_NOTSOCK);
  };
  return {
    sock_accept: (fd: number, flags: number, _roFdPtr: number): number => {
      checkFlags(flags, FDFLAGS_ALL);
      return notSocket(fd);
    },
    sock_recv: (
      fd: number,
      _riDataPtr: number,
      _riDataLen: number,
      riFlags: number,
      _roDatalenPtr: number,
      _roFlagsPtr: number,
    ): number => {
      checkFlags(riFlags, RIFLAGS_ALL);
      return notSocket(fd);
    },
    sock_send: (
      fd: number,
      _siDataPtr: number,
      _siDataLen: number,
      siFlags: number,
      _soDatalenPtr: number,
    ): number => {
      checkFlags(siFlags, SIFLAGS_ALL);
      return notSocket(fd);
    },
    sock_shutdown: (fd: number, how: number): number => {
      checkFlags(how, SDFLAGS_ALL);
      return notSocket(fd);
    },
  };
}
