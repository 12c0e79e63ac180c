/** Maps Node's errno codes to WASI preview1 errno values (the one place that does it). */
import { newSharedBuffer } from '../../shared-buffer.js';

const WASI_ERRNO: Record<string, number> = {
  E2BIG: 1, EACCES: 2, EADDRINUSE: 3, EAGAIN: 6, EBADF: 8, EBUSY: 10, ECONNRESET: 15,
  EEXIST: 20, EFBIG: 22, EINTR: 27, EINVAL: 28, EIO: 29, EISDIR: 31, ELOOP: 32, EMFILE: 33,
  EMLINK: 34, ENAMETOOLONG: 37, ENFILE: 41, ENOENT: 44, ENOMEM: 48, ENOSPC: 51, ENOSYS: 52,
  ENOTDIR: 54, ENOTEMPTY: 55, ENOTSUP: 58, ENXIO: 60, EPERM: 63, EPIPE: 64, EROFS: 69,
  ESPIPE: 70, ETIMEDOUT: 73, EXDEV: 75,
  EDQUOT: 19, EFAULT: 21, ENODEV: 43, ENOBUFS: 42, EOPNOTSUPP: 58, EOVERFLOW: 61, ESRCH: 71, ETXTBSY: 74,
  ENOTSOCK: 57, ENOTTY: 59, EMSGSIZE: 35, EDEADLK: 16, ENOLCK: 46, ESTALE: 72,
};
const EIO = 29;

export function errnoOfNodeError(e: unknown): number {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return (code && WASI_ERRNO[code]) || EIO;
}

const sleeper = new Int32Array(newSharedBuffer(4));
export function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
