/**
 * Errors of the public API, and the internal unwinding signal of `proc_exit`.
 *
 * `SpindleError` is what a user mistake produces (bad file, bad module, bad flag): its `message`
 * is one line saying what is wrong and what to do, and its `code` is a stable string that survives
 * postMessage (structured clone keeps own data properties, so `code` is a plain property).
 */
export type SpindleErrorCode =
  | 'ENOENT_MODULE'     // the program file does not exist
  | 'NOT_WASM'          // the bytes are not a WebAssembly module
  | 'BAD_MODULE'        // the module does not validate / compile
  | 'UNKNOWN_IMPORT'    // the module imports something no host provides
  | 'MEMORY_NOT_SHARED' // a threaded program whose memory import is not shared
  | 'NO_THREAD_START'   // spawns threads but does not export wasi_thread_start
  | 'NO_START'          // no _start export
  | 'BAD_OPTION'        // an invalid option or CLI flag
  | 'BAD_TAR'           // a --preload tar is corrupt (nothing imported, program not started) or a --save tar cannot be written
  | 'NOT_ISOLATED'      // browser page is not cross-origin isolated
  | 'WORKER_FAILED';    // a worker could not be started

export class SpindleError extends Error {
  readonly code: SpindleErrorCode;
  constructor(code: SpindleErrorCode, message: string) {
    super(message);
    this.name = 'SpindleError';
    this.code = code;
  }
}

/**
 * Thrown by `proc_exit` (and after a trap was reported) to unwind the wasm stack of the calling
 * thread. Never escapes the runtime: the worker loop catches it. Not an `Error`, so wasm
 * code cannot mistake it for a trap and no stack is captured.
 */
export class ExitSignal {
  constructor(readonly code: number) {}
}
