/**
 * How an errno travels inside the WASI layer: code deep in a call (a bounds check, a descriptor
 * method) calls `fail(errno)`, which throws a preallocated `WasiErrno`; the wrapper that
 * `preview1.ts` puts around every import catches it and returns the number to the guest.
 *
 * Invariants: a `WasiErrno` is never seen outside `src/wasi/` (the wrapper always catches it);
 * `WasiErrno` is deliberately not an `Error` (no stack capture: failing is as cheap as returning),
 * and there is exactly one instance per errno value, so throwing allocates nothing.
 */
import { ERRNO_IO, ERRNO_MAX } from './constants.js';

/** A WASI errno in flight. Thrown by `fail`, caught by the import wrapper. */
export class WasiErrno {
  private constructor(readonly errno: number) {}

  /** The one instance per errno value. */
  static readonly all: readonly WasiErrno[] = Array.from(
    { length: ERRNO_MAX + 1 },
    (_, i) => new WasiErrno(i),
  );
}

/** Abandons the current WASI call with `errno` (a value outside the spec's range becomes EIO). */
export function fail(errno: number): never {
  throw WasiErrno.all[errno] ?? WasiErrno.all[ERRNO_IO];
}

/** Fails with `errno` when a host call returned a non-zero errno; returns otherwise. */
export function check(errno: number): void {
  if (errno !== 0) fail(errno);
}
