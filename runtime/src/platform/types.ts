/**
 * What the runtime needs from its host platform (Node or a browser), in one interface, so the
 * core has no `node:` import and no `self`/`window` reference. One implementation per platform.
 */
import type { WorkerInit } from '../protocol.js';
import type { HostFsDriver, OpfsDriver } from '../fs/drivers.js';

export interface WorkerHandle {
  terminate(): Promise<void>;
  /**
   * Node: `listener` gets each message the worker posts to its parent (`parentPort`), as Node
   * hands it over (no MessageEvent is made for it).
   */
  onMessage?(listener: (message: unknown) => void): void;
}

export interface Platform {
  /** Logical cores available to this process. */
  cpuCount(): number;
  /**
   * Starts a pool worker for `init.slot`. Callable from any thread of the program; `onFailure`
   * runs if the worker cannot start or dies outside the runtime's control.
   */
  startWorker(init: WorkerInit, onFailure: (message: string) => void): WorkerHandle;
  /**
   * Reads a whole local file: a path or file: URL in Node (rejects with Node's error, whose
   * `code` says why); browsers fetch the URL.
   */
  readFile(path: string | URL): Promise<Uint8Array>;
  /** Whether a host fd is a terminal. */
  isatty(fd: number): boolean;
  /** Writes all of `bytes` to a host fd synchronously. Returns 0 or a WASI errno. */
  writeFd(fd: number, bytes: Uint8Array): number;
  /** Reads up to `max` bytes from a host fd, blocking. Bytes (empty = EOF) or a WASI errno. */
  readFd(fd: number, max: number): Uint8Array | number;
  /**
   * Starts reading the host's stdin asynchronously (never blocking this thread). `onChunk`
   * returns false when it could not take the whole chunk yet; the source then pauses and
   * offers the rest again shortly. Returns a function that stops reading.
   */
  readStdin(onChunk: (bytes: Uint8Array) => number, onEnd: () => void): () => void;
  /**
   * Sets V8 flags in the running process (Node: `v8.setFlagsFromString`), for workers started
   * after it: only jspi.ts's `workerJspiFlag`, at the first thread beyond the pool (thread.ts).
   */
  setV8Flags?(flags: string): void;
  /** Host directories for the runtime's filesystem (Node); absent: `dirs` is refused. */
  readonly hostFs?: HostFsDriver;
  /** OPFS directories for the runtime's filesystem (browsers); absent: `opfs:` mounts are refused. */
  readonly opfs?: OpfsDriver;
}
