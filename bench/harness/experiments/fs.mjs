/**
 * Placeholder of the filesystem experiment (issue 5; the reference article's third chart: file
 * operations on the main thread vs a worker). Until it exists the registry lists it as "not
 * available yet", so a reader of the results sees that it is missing rather than nothing.
 *
 * HOOK: when bench/fs/experiment.mjs exists (an experiment module with id 'fs', title, notes,
 * run(ctx) returning rows whose variant is 'main' or 'worker', goals(rows)), the registry uses
 * it, with a bar chart of the median per variant, one bar per configuration; its baseline
 * should be the JS FS proxied to the main thread (as @napi-rs/wasm-runtime wires memfs).
 */
export const id = 'fs';
export const title = 'Filesystem: main thread vs worker (in-program spindle-fs, runtime FS, JS FS proxied, node:wasi, native)';
export const needs = [];
export const notes = [];

export function unavailable() {
  return 'not available yet (issue 5): the filesystem benchmark (bench/fs/experiment.mjs) does not exist yet';
}
