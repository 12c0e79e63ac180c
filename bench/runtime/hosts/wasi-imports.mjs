/**
 * The WASI import object a peer host passes to the program: the WASI layer's own, or (with
 * hrtimeClock) the same with CLOCK_MONOTONIC answered from process.hrtime.bigint(), the one
 * monotonic nanosecond clock every thread of the process shares. @tybys/wasm-util answers
 * CLOCK_MONOTONIC with performance.now() truncated to whole milliseconds, whose origin differs per
 * worker, so a time taken on one thread cannot be compared with a time taken on another.
 */
const CLOCK_MONOTONIC = 1;

export function wasiImports(wasi, hrtimeClock, memory) {
  if (!hrtimeClock) return wasi.wasiImport;
  const inner = wasi.wasiImport.clock_time_get;
  return {
    ...wasi.wasiImport,
    clock_time_get(id, precision, out) {
      if (id !== CLOCK_MONOTONIC) return inner(id, precision, out);
      new DataView(memory().buffer).setBigUint64(out, process.hrtime.bigint(), true);
      return 0;
    },
  };
}
