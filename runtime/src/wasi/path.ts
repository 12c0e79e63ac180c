/**
 * The path_* imports: decode the guest's arguments and hand them to the `Directory` of the dirfd.
 *
 * Order of checks, as wasmtime: invalid flag values (EINVAL), then the dirfd (EBADF when not open
 * or not a directory: today every fd, since there are no preopens yet), then the path strings
 * (EFAULT, EILSEQ for invalid UTF-8), then the directory. Result pointers are validated before the
 * directory acts, so path_open never opens an fd it cannot report.
 *
 * A directory with a `raw` side (the memory FS: fd-table.ts's `RawPathDirectory`) gets its path as
 * the guest's bytes, checked at the same point as the string would be decoded (same errnos in the
 * same order), so the single-path calls never build a string.
 *
 * Thread rules: none beyond the directory's own.
 */
import {
  ERRNO_SUCCESS,
  FDFLAGS_ALL,
  LOOKUPFLAGS_ALL,
  OFLAGS_ALL,
} from './constants.js';
import type { Directory, FdTable, RawPathDirectory } from './fd-table.js';
import { checkFlags, checkFstflags, writeFilestat } from './fd.js';
import type { GuestMemory } from './guest-memory.js';

const u64 = (v: bigint) => BigInt.asUintN(64, v);

export function pathFunctions(mem: GuestMemory, fds: FdTable) {
  const dir = (fd: number) => fds.get(fd).asDirectory();
  const str = (ptr: number, len: number) => mem.string(ptr, len);
  /** `d.raw` after checking the path as `str` would (EFAULT, EILSEQ); undefined without one. */
  const rawPath = (d: Directory, ptr: number, len: number): RawPathDirectory | undefined => {
    const raw = d.raw;
    if (raw) mem.checkUtf8(ptr, len);
    return raw;
  };

  return {
    path_create_directory: (fd: number, pathPtr: number, pathLen: number): number => {
      const d = dir(fd);
      const raw = rawPath(d, pathPtr, pathLen);
      if (raw) raw.createDirectory(mem, pathPtr, pathLen);
      else d.createDirectory(str(pathPtr, pathLen));
      return ERRNO_SUCCESS;
    },

    path_filestat_get: (
      fd: number,
      flags: number,
      pathPtr: number,
      pathLen: number,
      statPtr: number,
    ): number => {
      checkFlags(flags, LOOKUPFLAGS_ALL);
      const d = dir(fd);
      const raw = rawPath(d, pathPtr, pathLen);
      if (raw) raw.filestatInto(flags, mem, pathPtr, pathLen, statPtr);
      else if (d.filestatOrErrno) {
        const st = d.filestatOrErrno(flags, str(pathPtr, pathLen));
        if (typeof st === 'number') return st;
        writeFilestat(mem, statPtr, st);
      } else writeFilestat(mem, statPtr, d.filestat(flags, str(pathPtr, pathLen)));
      return ERRNO_SUCCESS;
    },

    path_filestat_set_times: (
      fd: number,
      flags: number,
      pathPtr: number,
      pathLen: number,
      atim: bigint,
      mtim: bigint,
      fstflags: number,
    ): number => {
      checkFlags(flags, LOOKUPFLAGS_ALL);
      checkFstflags(fstflags);
      const d = dir(fd);
      const raw = rawPath(d, pathPtr, pathLen);
      if (raw) raw.setTimes(flags, mem, pathPtr, pathLen, u64(atim), u64(mtim), fstflags);
      else d.setTimes(flags, str(pathPtr, pathLen), u64(atim), u64(mtim), fstflags);
      return ERRNO_SUCCESS;
    },

    path_link: (
      oldFd: number,
      oldFlags: number,
      oldPathPtr: number,
      oldPathLen: number,
      newFd: number,
      newPathPtr: number,
      newPathLen: number,
    ): number => {
      checkFlags(oldFlags, LOOKUPFLAGS_ALL);
      const src = dir(oldFd);
      const dst = dir(newFd);
      src.link(oldFlags, str(oldPathPtr, oldPathLen), dst, str(newPathPtr, newPathLen));
      return ERRNO_SUCCESS;
    },

    path_open: (
      fd: number,
      dirflags: number,
      pathPtr: number,
      pathLen: number,
      oflags: number,
      rightsBase: bigint,
      rightsInheriting: bigint,
      fdflags: number,
      openedFdPtr: number,
    ): number => {
      checkFlags(dirflags, LOOKUPFLAGS_ALL);
      checkFlags(oflags, OFLAGS_ALL);
      checkFlags(fdflags, FDFLAGS_ALL);
      const d = dir(fd);
      const raw = rawPath(d, pathPtr, pathLen);
      const path = raw ? '' : str(pathPtr, pathLen);
      mem.range(openedFdPtr, 4);
      const opened = raw
        ? raw.open(dirflags, mem, pathPtr, pathLen, oflags, u64(rightsBase), u64(rightsInheriting), fdflags)
        : d.open(dirflags, path, oflags, u64(rightsBase), u64(rightsInheriting), fdflags);
      mem.setU32(openedFdPtr, fds.insert(opened));
      return ERRNO_SUCCESS;
    },

    path_readlink: (
      fd: number,
      pathPtr: number,
      pathLen: number,
      bufPtr: number,
      bufLen: number,
      bufusedPtr: number,
    ): number => {
      const d = dir(fd);
      const raw = rawPath(d, pathPtr, pathLen);
      const path = raw ? '' : str(pathPtr, pathLen);
      mem.range(bufPtr, bufLen);
      mem.range(bufusedPtr, 4);
      const target = raw ? raw.readlink(mem, pathPtr, pathLen) : d.readlink(path);
      const used = Math.min(target.length, bufLen >>> 0);
      mem.write(bufPtr, target.subarray(0, used));
      mem.setU32(bufusedPtr, used);
      return ERRNO_SUCCESS;
    },

    path_remove_directory: (fd: number, pathPtr: number, pathLen: number): number => {
      const d = dir(fd);
      const raw = rawPath(d, pathPtr, pathLen);
      if (raw) raw.removeDirectory(mem, pathPtr, pathLen);
      else d.removeDirectory(str(pathPtr, pathLen));
      return ERRNO_SUCCESS;
    },

    path_rename: (
      fd: number,
      oldPathPtr: number,
      oldPathLen: number,
      newFd: number,
      newPathPtr: number,
      newPathLen: number,
    ): number => {
      const src = dir(fd);
      const dst = dir(newFd);
      src.rename(str(oldPathPtr, oldPathLen), dst, str(newPathPtr, newPathLen));
      return ERRNO_SUCCESS;
    },

    path_symlink: (
      oldPathPtr: number,
      oldPathLen: number,
      fd: number,
      newPathPtr: number,
      newPathLen: number,
    ): number => {
      const d = dir(fd);
      d.symlink(str(oldPathPtr, oldPathLen), str(newPathPtr, newPathLen));
      return ERRNO_SUCCESS;
    },

    path_unlink_file: (fd: number, pathPtr: number, pathLen: number): number => {
      const d = dir(fd);
      const raw = rawPath(d, pathPtr, pathLen);
      if (raw) raw.unlinkFile(mem, pathPtr, pathLen);
      else d.unlinkFile(str(pathPtr, pathLen));
      return ERRNO_SUCCESS;
    },
  };
}
