/**
 * The data-moving fd imports: fd_read, fd_write, fd_pread, fd_pwrite, fd_seek, fd_tell,
 * fd_readdir. Each one validates every guest pointer it will touch (iovecs, their buffers, the
 * result pointer) BEFORE the descriptor acts, so an EFAULT never consumes stdin or emits output.
 *
 * fd_write gathers all iovecs into one fresh buffer and hands it to the descriptor in one call, so
 * one fd_write stays contiguous in the output even when threads write at once (wasmtime writes
 * only the first non-empty iovec per call; gathering gives writev semantics and fewer calls).
 * fd_read asks the descriptor for up to the total iovec capacity and scatters what it got.
 *
 * Thread rules: blocking (stdin) happens inside the descriptor, on the calling worker.
 */
import { ERRNO_INVAL, ERRNO_SUCCESS, WHENCE_END } from './constants.js';
import { fail } from './errno.js';
import type { FdTable } from './fd-table.js';
import type { GuestMemory } from './guest-memory.js';

/** u64 arguments arrive from wasm as signed BigInts. */
function u64(value: bigint): bigint {
  return BigInt.asUintN(64, value);
}

export function fdIoFunctions(mem: GuestMemory, fds: FdTable) {
  return {
    fd_read: (fd: number, iovsPtr: number, iovsLen: number, nreadPtr: number): number => {
      const d = fds.get(fd);
      const iovs = mem.iovecs(iovsPtr, iovsLen);
      mem.range(nreadPtr, 4);
      const n = d.readInto ? d.readInto(mem, iovs) : mem.scatter(iovs, d.read(iovs.total));
      mem.setU32(nreadPtr, n);
      return ERRNO_SUCCESS;
    },

    fd_pread: (
      fd: number,
      iovsPtr: number,
      iovsLen: number,
      offset: bigint,
      nreadPtr: number,
    ): number => {
      const d = fds.get(fd);
      const iovs = mem.iovecs(iovsPtr, iovsLen);
      mem.range(nreadPtr, 4);
      const got = d.pread(iovs.total, u64(offset));
      mem.setU32(nreadPtr, mem.scatter(iovs, got));
      return ERRNO_SUCCESS;
    },

    fd_write: (fd: number, iovsPtr: number, iovsLen: number, nwrittenPtr: number): number => {
      const d = fds.get(fd);
      const iovs = mem.iovecs(iovsPtr, iovsLen);
      mem.range(nwrittenPtr, 4);
      const n = d.writeFrom ? d.writeFrom(mem, iovs) : d.write(mem.gather(iovs));
      mem.setU32(nwrittenPtr, n);
      return ERRNO_SUCCESS;
    },

    fd_pwrite: (
      fd: number,
      iovsPtr: number,
      iovsLen: number,
      offset: bigint,
      nwrittenPtr: number,
    ): number => {
      const d = fds.get(fd);
      const iovs = mem.iovecs(iovsPtr, iovsLen);
      mem.range(nwrittenPtr, 4);
      const n = d.pwrite(mem.gather(iovs), u64(offset));
      mem.setU32(nwrittenPtr, n);
      return ERRNO_SUCCESS;
    },

    fd_seek: (fd: number, delta: bigint, whence: number, newOffsetPtr: number): number => {
      if (whence < 0 || whence > WHENCE_END) fail(ERRNO_INVAL);
      const d = fds.get(fd);
      mem.range(newOffsetPtr, 8);
      mem.setU64(newOffsetPtr, d.seek(BigInt.asIntN(64, delta), whence));
      return ERRNO_SUCCESS;
    },

    fd_tell: (fd: number, offsetPtr: number): number => {
      const d = fds.get(fd);
      mem.range(offsetPtr, 8);
      mem.setU64(offsetPtr, d.tell());
      return ERRNO_SUCCESS;
    },

    fd_readdir: (
      fd: number,
      bufPtr: number,
      bufLen: number,
      cookie: bigint,
      bufusedPtr: number,
    ): number => {
      const d = fds.get(fd);
      mem.range(bufPtr, bufLen);
      mem.range(bufusedPtr, 4);
      const entries = d.readdir(u64(cookie), bufLen >>> 0);
      const used = Math.min(entries.length, bufLen >>> 0);
      mem.write(bufPtr, entries.subarray(0, used));
      mem.setU32(bufusedPtr, used);
      return ERRNO_SUCCESS;
    },
  };
}
