/**
 * Copying into and out of a circular byte buffer addressed by a free-running byte counter
 * (wrapping at 2^32), as the output rings and the stdin pipe use. The caller owns the
 * synchronisation: these only move bytes. Invariant: a copy never exceeds `data.length`.
 */

/** Copies `src` into `data` starting at ring position `counter`. */
export function ringWrite(data: Uint8Array, counter: number, src: Uint8Array): void {
  const start = (counter >>> 0) % data.length;
  const first = Math.min(src.length, data.length - start);
  data.set(src.subarray(0, first), start);
  if (first < src.length) data.set(src.subarray(first), 0);
}

/** A fresh copy of the `n` bytes at ring position `counter`. */
export function ringRead(data: Uint8Array, counter: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  const start = (counter >>> 0) % data.length;
  const first = Math.min(n, data.length - start);
  out.set(data.subarray(start, start + first), 0);
  if (first < n) out.set(data.subarray(0, n - first), first);
  return out;
}
