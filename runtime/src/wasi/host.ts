/**
 * The contract between the runtime core (threads, pool, exit, output routing) and the WASI
 * preview1 import layer. The core builds one `WasiHost` per wasm thread (one per instance); the
 * WASI layer turns it into the `wasi_snapshot_preview1` import object.
 *
 * Thread rules: every method is called on the thread that owns the instance and must complete
 * synchronously. Nothing here may wait on the browser main thread.
 */
export interface WasiHost {
  /** The instance's memory. Read `.buffer` on every call: a shared memory may have grown. */
  readonly memory: WebAssembly.Memory;
  /** argv, argv[0] is the program name. */
  readonly args: readonly string[];
  /** Environment as "KEY=VALUE" strings, in order. */
  readonly env: readonly string[];
  /** wasi-threads thread id of the calling thread (the main thread, running `_start`, is 0). */
  readonly threadId: number;
  /**
   * Writes all of `bytes` to the program's stdout (fd 1) or stderr (fd 2) before returning.
   * Output of one thread stays in order; nothing written is lost at exit.
   * Returns 0 on success or a WASI errno (e.g. EIO) if the sink failed.
   */
  writeOutput(fd: 1 | 2, bytes: Uint8Array): number;
  /**
   * Reads up to `max` bytes of stdin, blocking until at least one byte or EOF is available.
   * Returns the bytes (length 0 = end of file) or a WASI errno number.
   */
  readStdin(max: number): Uint8Array | number;
  /** True when a read of stdin would not block (poll_oneoff readiness). */
  stdinReady(): boolean;
  /** Ends the whole program with `code` (proc_exit). Never returns: throws to unwind the wasm stack. */
  exit(code: number): never;
}
