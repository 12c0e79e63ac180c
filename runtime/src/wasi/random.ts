/**
 * random_get: cryptographically secure bytes from `crypto.getRandomValues`.
 *
 * getRandomValues fills at most 65536 bytes per call and browsers reject views of a
 * SharedArrayBuffer, so bytes are generated into a private non-shared scratch buffer in chunks and
 * copied into guest memory. The whole destination is bounds-checked first (EFAULT writes nothing).
 *
 * Thread rules: the scratch buffer belongs to one instance (one thread).
 */
import { ERRNO_SUCCESS } from './constants.js';
import type { GuestMemory } from './guest-memory.js';

/** The most getRandomValues fills in one call (Web Crypto's QuotaExceededError limit). */
const CHUNK = 65536;

/** random_get. */
export function randomFunctions(mem: GuestMemory) {
  let scratch: Uint8Array | undefined;
  return {
    random_get: (bufPtr: number, bufLen: number): number => {
      const start = mem.range(bufPtr, bufLen);
      const len = bufLen >>> 0;
      scratch ??= new Uint8Array(CHUNK);
      for (let done = 0; done < len; done += CHUNK) {
        const chunk = scratch.subarray(0, Math.min(CHUNK, len - done));
        crypto.getRandomValues(chunk);
        mem.write(start + done, chunk);
      }
      return ERRNO_SUCCESS;
    },
  };
}
