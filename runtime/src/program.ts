/**
 * The main-thread side of a running program: creates the shared memory, the control block and
 * the output rings, starts `_start` on a worker (or on the calling thread), prewarms the pool,
 * pumps ring output into the user's callbacks, and, when any thread records an exit status,
 * drains the output, terminates every worker and resolves the exit code.
 *
 * The main thread never takes part in a spawn or a file operation: threads find idle workers
 * through the control block themselves. It only waits (asynchronously) for output and the exit.
 */
import { Control, CMD_RUN_MAIN, MAX_SLOTS, OUT_SEQ, STATE, STATE_EXITED, STATE_RUNNING, type PoolStats } from './control.js';
import { ExitSignal, SpindleError } from './errors.js';
import type { LoadedProgram } from './load.js';
import { OutputRings, type StreamRoute } from './output.js';
import type { Platform, WorkerHandle } from './platform/types.js';
import { StdinPipe } from './stdin.js';
import { reportFailure, runThread, ThreadFactory, ThreadStdio } from './thread.js';
import type { WorkerInit } from './protocol.js';
import { hasFsOptions, ProgramFs, type FsOptions, type ProgramFsDrivers } from './fs/program-fs.js';
import type { MemoryMounts } from './fs/memory-mounts.js';
import { isSharedBuffer } from './shared-buffer.js';
import { PoolKeeper } from './pool.js';
import { HostQueue } from './host-queue.js';
import { jspiForWorkers, workerJspiFlag } from './jspi.js';
import { installSpinWaitHook, installWaitHook } from './wait-hook.js';

export type OutputOption = 'inherit' | ((chunk: Uint8Array) => void);

/** Filesystem options (`dirs`, `mounts`, `preload`, `save`): see fs/program-fs.ts and the README. */
export interface RunOptions extends FsOptions {
  /** argv[1..]. */
  args?: readonly string[];
  /** argv[0]; default: the module file's base name. */
  argv0?: string;
  env?: Readonly<Record<string, string>> | readonly string[];
  /** Default 'inherit': the host process's fd 1 (Node). A callback receives byte chunks. */
  stdout?: OutputOption;
  stderr?: OutputOption;
  /** Default 'inherit' (the host's fd 0, Node); a string or bytes gives a fixed input. */
  stdin?: 'inherit' | string | Uint8Array;
  /**
   * Workers started with the program, ahead of its first spawns. Default: 2 x available cores
   * (a program that starts up to that many threads at once finds them booted).
   */
  threads?: number;
  /** Most threads alive at once (not counting the main thread); past it thread-spawn fails (EAGAIN). Default 512. */
  maxThreads?: number;
  /**
   * Threads beyond the pool (more than `threads` running at once) share a host worker instead of
   * getting a worker each, suspended while they wait (docs/threads-beyond-the-pool.md): Node
   * whose workers have JSPI only (24 and later; 22, where the first thread hosted sets the V8 flag
   * `--experimental-wasm-jspi` in the process: false never sets it); elsewhere ignored. Default true.
   */
  hostThreads?: boolean;
  /** Run `_start` on the calling thread instead of a worker (Node only). Default false. */
  runOnCallingThread?: boolean;
  /** The shared memory to use, for a compiled WebAssembly.Module that imports one. */
  memory?: WebAssembly.Memory;
}

const DEFAULT_MAX_THREADS = 512;
/** How often `poolBooted` looks at the pool. */
const POOL_POLL_MS = 5;

/**
 * What an embedder that runs a reactor sets for the program's workers (napi/): its worker script
 * (Node), whether workers keep the process alive, its own data for that script, and memory
 * mounts it made before the program (the options' `mounts` must name the same guests).
 */
export interface ReactorSetup {
  workerScript?: string;
  detached?: boolean;
  embed?: unknown;
  memory?: MemoryMounts;
}

/** The `threads` option's default: workers prewarmed for 2 x the available cores. */
export function defaultThreads(platform: Platform): number {
  return 2 * platform.cpuCount();
}

export class Program {
  private readonly ctl: Control;
  private readonly pool: PoolKeeper;
  private readonly rings = OutputRings.create();
  private readonly workers: WorkerHandle[] = [];
  private readonly init: WorkerInit;
  private readonly sinks: [OutputOption, OutputOption];
  private readonly stdin: StdinPipe | null;
  private stopStdin: (() => void) | undefined;
  private stdio: ThreadStdio | undefined;
  private exitPromise: Promise<number> | undefined;
  /** Whether fd 0, 1, 2 is the host's terminal: found out when first needed (`isTty`). */
  private readonly ttys: (boolean | undefined)[] = [];

  private readonly platform: Platform;

  constructor(private readonly program: LoadedProgram, private readonly options: RunOptions, platform: Platform) {
    // Every worker started on this thread (the pool, and in calling-thread mode the workers the
    // program's own spawns add) is remembered so the exit can terminate it. Workers started by
    // other workers are their children and end with them. A worker gets the stdio answers in
    // its WorkerInit; this thread asks them when first needed (ownerStdio).
    this.platform = {
      ...platform,
      startWorker: (init, onFailure) => this.track(platform.startWorker({ ...init, stdioTty: [0, 1, 2].map((fd) => this.isTty(fd)) }, onFailure)),
    };
    const maxThreads = checkCount('maxThreads', options.maxThreads ?? DEFAULT_MAX_THREADS, 1);
    // Once the pool has had to grow, the owner keeps one idle worker per core ahead (pool.ts).
    this.ctl = Control.create(maxThreads + 1, program.usesThreads ? platform.cpuCount() : 0);
    this.pool = new PoolKeeper(this.ctl, (slot) => this.startWorker(slot));
    this.sinks = [options.stdout ?? 'inherit', options.stderr ?? 'inherit'];
    this.stdin = stdinPipe(options);
    this.init = {
      module: program.module,
      memory: sharedMemory(program, options),
      privateMemory: program.memory && !program.memory.shared && !options.memory
        ? { initial: program.memory.initial, maximum: program.memory.maximum } : null,
      memoryImport: program.memory ? { module: program.memory.module, name: program.memory.name } : null,
      hasThreadStart: program.hasThreadStart,
      control: this.ctl.buffer,
      rings: this.rings.buffer,
      stdout: route(this.sinks[0]),
      stderr: route(this.sinks[1]),
      stdin: this.stdin?.buffer ?? 'fd',
      stdioTty: [], // filled in for each worker (this.platform.startWorker)
      args: [options.argv0 ?? program.name, ...(options.args ?? [])],
      env: envList(options.env),
      fs: null, // set by run() when the program has a filesystem
      slot: -1,
    };
  }

  /** Starts the program once; resolves with its exit code. */
  start(): Promise<number> {
    this.exitPromise ??= this.run();
    return this.exitPromise;
  }

  /** The worker pool's counters (workers started, spawns that had to grow the pool, ...). */
  poolStats(): PoolStats {
    return this.ctl.stats();
  }

  /**
   * Resolves once no idle pool worker is still booting (each has its instance and waits for a
   * thread), the program ended, or `timeoutMs` passed: for a caller that wants the prewarmed pool
   * booted before its work starts, as emnapi's asynchronous instantiate waits for its own workers
   * (napi/host.ts). Polls (every POOL_POLL_MS) without blocking the calling thread.
   */
  async poolBooted(timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.ctl.idleBooting() > 0 && Atomics.load(this.ctl.words, STATE) === STATE_RUNNING && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, POOL_POLL_MS));
    }
  }

  /** Ends the program now with `code` (as if a thread called proc_exit). */
  kill(code = 137): void {
    this.ctl.requestExit(code);
  }

  /**
   * Starts a reactor (a library module: `_initialize` and exported functions, no `_start`; a
   * napi-rs addon, napi/): sets up the filesystem and the pool as `start()` does and returns the
   * runtime's imports for the calling thread's instance, which the caller instantiates and calls
   * synchronously on its own thread (thread id 0), while the threads it spawns run on pool
   * workers. `ended()` resolves with the status when any thread calls proc_exit or traps, or
   * `kill()` ends the program.
   */
  async startReactor(setup: ReactorSetup = {}): Promise<WebAssembly.Imports> {
    const fs = hasFsOptions(this.options) ? await this.createFs(() => ProgramFs.create(this.options, this.fsDrivers(), setup.memory)) : null;
    return this.beginReactor(fs, setup);
  }

  /** The same, synchronously (Node): the filesystem options must need no async set-up (ProgramFs.createSync). */
  startReactorSync(setup: ReactorSetup = {}): WebAssembly.Imports {
    const fs = hasFsOptions(this.options) ? ProgramFs.createSync(this.options, this.fsDrivers(), setup.memory) : null;
    return this.beginReactor(fs, setup);
  }

  /**
   * A reactor's own instance, which its caller instantiated and runs on its own thread: where
   * that thread may not block (a page's thread in browsers), its waits spin there instead of
   * trapping (wait-hook.ts installSpinWaitHook). Elsewhere nothing changes.
   */
  callerInstance(exports: WebAssembly.Exports): void {
    if (this.init.memory) installSpinWaitHook(exports, this.init.memory, this.ctl);
  }

  /** A reactor's end: the status `start()` would resolve with. */
  ended(): Promise<number> {
    if (!this.exitPromise) throw new Error('spindle: ended() before startReactor()');
    return this.exitPromise;
  }

  private beginReactor(fs: ProgramFs | null, setup: ReactorSetup): WebAssembly.Imports {
    if (this.exitPromise) throw new SpindleError('BAD_OPTION', 'this program was started already; create another one');
    Object.assign(this.init, { workerScript: setup.workerScript, detached: setup.detached, embed: setup.embed });
    this.useFs(fs);
    const factory = new ThreadFactory(this.init, this.platform, this.ownerStdio());
    this.pool.prewarm(this.poolSize());
    this.exitPromise = this.watch(fs);
    return factory.importObject;
  }

  private fsDrivers(): ProgramFsDrivers {
    const opfs = this.platform.opfs;
    return {
      hostFs: this.platform.hostFs,
      opfsLoad: opfs && ((dir) => opfs.load(this.init.control, dir)),
      readFile: this.platform.readFile,
    };
  }

  /** Before any thread exists: a bad option or a corrupt --preload tar ends here, nothing started. */
  private async createFs(create: () => Promise<ProgramFs>): Promise<ProgramFs> {
    return create().catch((e: unknown) => { this.platform.opfs?.end(this.init.control); throw e; }); // an OPFS I/O worker it started
  }

  private useFs(fs: ProgramFs | null): void {
    this.init.fs = fs?.init ?? null;
    if (fs?.init.memfs?.opfs) this.platform.opfs?.startIdle(this.init.control, fs.init.memfs); // idle write-back
  }

  private poolSize(): number {
    return this.program.usesThreads ? checkCount('threads', this.options.threads ?? defaultThreads(this.platform), 0) : 0;
  }

  private async run(): Promise<number> {
    const fs = hasFsOptions(this.options) ? await this.createFs(() => ProgramFs.create(this.options, this.fsDrivers())) : null;
    this.useFs(fs);
    const pool = this.poolSize();
    this.init.hosting = this.hosting(pool, this.options.runOnCallingThread ? 0 : 1);
    if (this.options.runOnCallingThread) {
      this.pool.prewarm(pool);
      this.runHere();
    } else {
      this.startWorker(this.ctl.reserveSlot(), CMD_RUN_MAIN);
      this.pool.prewarm(pool);
    }
    return this.watch(fs);
  }

  /**
   * WorkerInit.hosting, when threads beyond the pool are hosted: the `hostThreads` option, a
   * threaded program whose bytes are at hand, and JSPI for workers in a Node (`process.versions.node`:
   * the host worker is started by a spawning worker, which only Node allows): the engine's own, or
   * one a V8 flag gives workers started after it (Node 22: jspi.ts workerJspiFlag, set by the
   * first spawn beyond the pool, never with hostThreads false).
   */
  private hosting(pool: number, mainSlots: number): WorkerInit['hosting'] {
    const bytes = this.program.threadBytes;
    if (this.options.hostThreads === false || !this.program.usesThreads || !bytes || !this.init.memory || !jspiForWorkers()) return undefined;
    if (workerJspiFlag() && !this.platform.setV8Flags) return undefined;
    if (typeof process === 'undefined' || !process.versions?.node) return undefined;
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    const max = this.ctl.words[MAX_SLOTS]! - 1; // maxThreads (the slots count the main worker's too)
    return { queue: HostQueue.create(max).buffer, after: pool + mainSlots, max, mainSlots, hosts: this.platform.cpuCount(), bytes: shared };
  }

  /** Pumps output until the exit, then ends every worker (and --save). Resolves with the status. */
  private async watch(fs: ProgramFs | null): Promise<number> {
    try {
      await this.pumpUntilExit();
      this.drainOutput();
      return this.ctl.exitCode;
    } finally {
      // Also when a user callback threw: the program ends with run()'s rejection.
      this.ctl.requestExit(1);
      this.stopStdin?.();
      // Not awaited: a worker blocked in a host syscall (a read of a terminal) only stops when
      // the syscall returns, and the program's exit must not wait for that. Only --save waits
      // for every thread to stop before it reads the memory mount (fs/program-fs.ts).
      const stopped = Promise.all(this.workers.map((w) => w.terminate().catch(() => undefined)));
      await fs?.finish(stopped);
    }
  }

  private startWorker(slot: number, cmd?: number): void {
    if (cmd !== undefined) { this.ctl.command(slot, cmd, 0, 0); this.ctl.noteStarted(); }
    this.platform.startWorker({ ...this.init, slot }, (m) => reportFailure(this.ownerStdio(), this.ctl, m));
  }

  /** Stdio for output written on this (the owner's) thread: it drains the rings in place, never waits. */
  private ownerStdio(): ThreadStdio {
    if (!this.stdio) {
      this.stdio = new ThreadStdio(this.init, this.platform);
      this.stdio.drainInline = () => this.drainOutput();
      this.stdio.ttyOf = (fd) => this.isTty(fd);
    }
    return this.stdio;
  }

  /**
   * Whether the program's fd 0, 1 or 2 is the host's terminal (only when it inherits the host's
   * stream), asked of the platform once, when first needed: in Node the answer can load node:tty
   * (~2 ms of CPU), which a program that never asks (and never starts a worker) does not pay.
   */
  private isTty(fd: number): boolean {
    const inherits = fd === 0 ? (this.options.stdin ?? 'inherit') === 'inherit' : this.sinks[fd - 1] === 'inherit';
    return (this.ttys[fd] ??= inherits && this.platform.isatty(fd));
  }

  private track(worker: WorkerHandle): WorkerHandle {
    this.workers.push(worker);
    return worker;
  }

  /** Node's calling-thread mode: `_start` runs right here, synchronously. */
  private runHere(): void {
    const stdio = this.ownerStdio();
    let thread;
    try {
      thread = new ThreadFactory(this.init, this.platform, stdio).instantiate();
    } catch (e) {
      if (e instanceof ExitSignal) return;
      throw new SpindleError('BAD_MODULE', `cannot instantiate ${this.program.name}: ${(e as Error).message}`);
    }
    // Another thread's exit must be able to end this thread's waits (wait-hook.ts).
    installWaitHook(thread.instance.exports, thread.host.memory, this.ctl);
    runThread(thread, this.ctl, stdio, 0, 0);
  }

  /** Delivers ring output to the callbacks until some thread records the exit status. */
  private async pumpUntilExit(): Promise<void> {
    const words = this.ctl.words;
    let exited = false;
    const exit = waitForExit(words).then(() => { exited = true; });
    while (!exited) {
      const seq = Atomics.load(words, OUT_SEQ);
      this.drainOutput();
      this.feedStdinOnDemand();
      if (Atomics.load(words, STATE) === STATE_EXITED) break;
      this.pool.topUp();
      const onOutput = Atomics.waitAsync(words, OUT_SEQ, seq);
      if (onOutput.async) await Promise.race([onOutput.value, exit]);
    }
    Atomics.notify(words, OUT_SEQ); // release the output waiter still pending
  }

  /** Starts copying the host's stdin into the pipe the first time a thread waits for input. */
  private feedStdinOnDemand(): void {
    const pipe = this.stdin;
    if (!pipe || this.stopStdin || pipe.closed || !pipe.wanted) return;
    this.stopStdin = this.platform.readStdin((bytes) => pipe.write(bytes), () => pipe.close());
  }

  private drainOutput(): void {
    for (const stream of [0, 1] as const) {
      const sink = this.sinks[stream];
      if (typeof sink !== 'function') continue;
      for (let chunk = this.rings.drain(stream); chunk; chunk = this.rings.drain(stream)) sink(chunk);
    }
  }
}

async function waitForExit(words: Int32Array): Promise<void> {
  for (;;) {
    const state = Atomics.load(words, STATE);
    if (state === STATE_EXITED) return;
    const w = Atomics.waitAsync(words, STATE, state);
    if (w.async) await w.value;
  }
}

function route(sink: OutputOption): StreamRoute {
  return sink === 'inherit' ? 'fd' : 'ring';
}

/** The stdin pipe, or null when threads read the host's fd 0 themselves (calling-thread mode). */
function stdinPipe(options: RunOptions): StdinPipe | null {
  const stdin = options.stdin ?? 'inherit';
  if (stdin !== 'inherit') return StdinPipe.create(typeof stdin === 'string' ? new TextEncoder().encode(stdin) : stdin);
  // With _start on the calling thread, the main thread cannot feed a pipe while wasm runs on it.
  return options.runOnCallingThread ? null : StdinPipe.create();
}

function envList(env: RunOptions['env']): string[] {
  if (!env) return [];
  if (Array.isArray(env)) return [...env];
  return Object.entries(env as Record<string, string>).map(([k, v]) => `${k}=${v}`);
}

function checkCount(option: string, n: number, min: number): number {
  if (!Number.isInteger(n) || n < min || n > 65536) {
    throw new SpindleError('BAD_OPTION', `${option} must be an integer between ${min} and 65536 (got ${n})`);
  }
  return n;
}

/** The memory every thread shares: null if the module defines its own or imports a non-shared one. */
function sharedMemory(program: LoadedProgram, options: RunOptions): WebAssembly.Memory | null {
  const given = options.memory;
  if (given) {
    if (!isSharedBuffer(given.buffer) && !options.runOnCallingThread) {
      throw new SpindleError('BAD_OPTION', 'the `memory` option is not shared, so it cannot reach the worker that runs _start; '
        + 'pass a shared WebAssembly.Memory, or set runOnCallingThread');
    }
    return given;
  }
  const m = program.memory;
  if (!m || !m.shared) return null;
  if (m.shared && m.maximum === undefined) {
    throw new SpindleError('BAD_MODULE', `${program.name} imports a shared memory without a maximum size, which WebAssembly does not allow; link with -Wl,--max-memory=N`);
  }
  return new WebAssembly.Memory({ initial: m.initial, maximum: m.maximum, shared: m.shared } as WebAssembly.MemoryDescriptor);
}
