/**
 * The fd imports that manage descriptors rather than move data: fd_advise, fd_allocate, fd_close,
 * fd_datasync, fd_fdstat_get, fd_fdstat_set_flags, fd_fdstat_set_rights, fd_filestat_get,
 * fd_filestat_set_size, fd_filestat_set_times, fd_prestat_get, fd_prestat_dir_name,
 * fd_renumber, fd_sync.
 *
 * Argument checks come first, as wasmtime's generated bindings do: an invalid enum or flag value
 * is EINVAL whatever the fd; then the fd (EBADF); then the descriptor decides.
 * Struct results are zeroed first so padding bytes are deterministic.
 *
 * Thread rules: none beyond the descriptor's own.
 */
import {
  ADVICE_MAX,
  ERRNO_BADF,
  ERRNO_INVAL,
  ERRNO_NAMETOOLONG,
  ERRNO_NOTDIR,
  ERRNO_SUCCESS,
  FDFLAGS_ALL,
  FSTFLAGS_ALL,
  FSTFLAGS_ATIM,
  FSTFLAGS_ATIM_NOW,
  FSTFLAGS_MTIM,
  FSTFLAGS_MTIM_NOW,
  PREOPENTYPE_DIR,
  PRESTAT_DIR_NAME_LEN,
  PRESTAT_SIZE,
  PRESTAT_TAG,
} from './constants.js';
import { fail } from './errno.js';
import type { FdTable, Filestat } from './fd-table.js';
import type { GuestMemory } from './guest-memory.js';

/** Fails with EINVAL when `value` has bits outside `mask` (a flags type's defined bits). */
export function checkFlags(value: number, mask: number): number {
  if ((value & ~mask) !== 0 || value < 0) fail(ERRNO_INVAL);
  return value;
}

/** fstflags: defined bits only, and never both "set to a value" and "set to now" for one time. */
export function checkFstflags(flags: number): number {
  checkFlags(flags, FSTFLAGS_ALL);
  const both = (a: number, b: number) => (flags & a) !== 0 && (flags & b) !== 0;
  if (both(FSTFLAGS_ATIM, FSTFLAGS_ATIM_NOW) || both(FSTFLAGS_MTIM, FSTFLAGS_MTIM_NOW)) {
    fail(ERRNO_INVAL);
  }
  return flags;
}

/** Writes a filestat struct at `ptr` (validated first). Shared with path_filestat_get. */
export function writeFilestat(mem: GuestMemory, ptr: number, st: Filestat): void {
  mem.setFilestat(ptr, st.dev, st.ino, st.filetype, st.nlink, st.size, st.atim, st.mtim, st.ctim);
}

const u64 = (v: bigint) => BigInt.asUintN(64, v);

export function fdFunctions(mem: GuestMemory, fds: FdTable) {
  return {
    fd_advise: (fd: number, offset: bigint, len: bigint, advice: number): number => {
      if (advice < 0 || advice > ADVICE_MAX) fail(ERRNO_INVAL);
      fds.get(fd).advise(u64(offset), u64(len), advice);
      return ERRNO_SUCCESS;
    },

    fd_allocate: (fd: number, offset: bigint, len: bigint): number => {
      fds.get(fd).allocate(u64(offset), u64(len));
      return ERRNO_SUCCESS;
    },

    fd_close: (fd: number): number => {
      fds.close(fd);
      return ERRNO_SUCCESS;
    },

    fd_datasync: (fd: number): number => {
      fds.get(fd).datasync();
      return ERRNO_SUCCESS;
    },

    fd_sync: (fd: number): number => {
      fds.get(fd).sync();
      return ERRNO_SUCCESS;
    },

    fd_fdstat_get: (fd: number, statPtr: number): number => {
      const d = fds.get(fd);
      if (d.fdstatInto) {
        d.fdstatInto(mem, statPtr);
        return ERRNO_SUCCESS;
      }
      const st = d.fdstat();
      mem.setFdstat(statPtr, st.filetype, st.flags, st.rightsBase, st.rightsInheriting);
      return ERRNO_SUCCESS;
    },

    fd_fdstat_set_flags: (fd: number, flags: number): number => {
      checkFlags(flags, FDFLAGS_ALL);
      fds.get(fd).setFdflags(flags);
      return ERRNO_SUCCESS;
    },

    fd_fdstat_set_rights: (fd: number, base: bigint, inheriting: bigint): number => {
      fds.get(fd).setRights(u64(base), u64(inheriting));
      return ERRNO_SUCCESS;
    },

    fd_filestat_get: (fd: number, statPtr: number): number => {
      const d = fds.get(fd);
      if (d.filestatInto) d.filestatInto(mem, statPtr);
      else writeFilestat(mem, statPtr, d.filestat());
      return ERRNO_SUCCESS;
    },

    fd_filestat_set_size: (fd: number, size: bigint): number => {
      fds.get(fd).setSize(u64(size));
      return ERRNO_SUCCESS;
    },

    fd_filestat_set_times: (fd: number, atim: bigint, mtim: bigint, fstflags: number): number => {
      checkFstflags(fstflags);
      fds.get(fd).setTimes(u64(atim), u64(mtim), fstflags);
      return ERRNO_SUCCESS;
    },

    fd_prestat_get: (fd: number, prestatPtr: number): number => {
      const name = fds.get(fd).prestatName() ?? fail(ERRNO_BADF);
      mem.zero(prestatPtr, PRESTAT_SIZE);
      mem.setU8(prestatPtr + PRESTAT_TAG, PREOPENTYPE_DIR);
      mem.setU32(prestatPtr + PRESTAT_DIR_NAME_LEN, name.length);
      return ERRNO_SUCCESS;
    },

    fd_prestat_dir_name: (fd: number, pathPtr: number, pathLen: number): number => {
      // wasmtime: an open fd that is not a preopen is ENOTDIR here (EBADF in fd_prestat_get).
      const name = fds.get(fd).prestatName() ?? fail(ERRNO_NOTDIR);
      if (name.length > pathLen >>> 0) fail(ERRNO_NAMETOOLONG);
      mem.write(pathPtr, name);
      return ERRNO_SUCCESS;
    },

    fd_renumber: (fd: number, to: number): number => {
      fds.renumber(fd, to);
      return ERRNO_SUCCESS;
    },
  };
}
