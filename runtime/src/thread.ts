/**
 * One wasm thread: an instance of the program's module on the program's shared memory, with
 * its WASI host, its `thread-spawn` import, and the code that runs `_start` or
 * `wasi_thread_start` and turns every way it can end into an exit status.
 *
 * Used by pool workers (pool-worker.ts) and, in Node's calling-thread mode and for reactors
 * (library modules, `Program.startReactor`), by the calling thread.
 * Thread rules: everything here runs on the thread that owns the instance; the only shared
 * state is the control block, the output rings, the stdin buffer and (with a filesystem) the fd
 * table, all in SharedArrayBuffers, plus the memory-FS module's shared memory.
 */
import { Control, CMD_RUN_OWNER_THREAD, CMD_RUN_THREAD, SLOTS_USED } from './control.js';
import { HostQueue } from './host-queue.js';
import { suspension, workerJspiFlag, type Signature, type Suspension } from './jspi.js';
import { ExitSignal } from './errors.js';
import { OutputRings } from './output.js';
import type { Platform } from './platform/types.js';
import type { WasiHost } from './wasi/host.js';
import { SUSPENDING, wasiPreview1 } from './wasi/preview1.js';
import { shareMonotonicFloor } from './wasi/clock.js';
import { shareYieldWords } from './wasi/proc.js';
import { StdinPipe } from './stdin.js';
import { threadFdTable } from './fs/runtime-fs.js';
import { opfsImports } from './fs/opfs-imports.js';
import type { WorkerInit } from './protocol.js';

/** The stdio side of a WasiHost, shared by all instances a worker creates. */
export class ThreadStdio {
  private readonly ctl: Control;
  private readonly rings: OutputRings;
  private readonly input: StdinPipe | null;
  /** Set on the main thread: the ring is drained in place instead of waiting for it. */
  drainInline: (() => void) | undefined;
  /**
   * Set by the owner (program.ts): whether fd 0, 1 or 2 is the host's terminal, asked at an fd's
   * first fdstat. Elsewhere the answers come in the WorkerInit (`stdioTty`).
   */
  ttyOf: ((fd: number) => boolean) | undefined;
  /**
   * Set in a host worker (host-worker.ts): a read of an empty stdin pipe returns EAGAIN at once
   * and leaves in `stdinWait` a Promise of the next write, which the hosted thread's fd_read (a
   * suspending import: jspi.ts) awaits before it reads again.
   */
  hosted = false;
  stdinWait: Promise<unknown> | undefined;

  constructor(private readonly init: WorkerInit, private readonly platform: Platform) {
    this.ctl = new Control(init.control);
    this.rings = new OutputRings(init.rings);
    this.input = init.stdin === 'fd' ? null : new StdinPipe(init.stdin);
  }

  write(fd: 1 | 2, bytes: Uint8Array): number {
    if ((fd === 1 ? this.init.stdout : this.init.stderr) === 'fd') return this.platform.writeFd(fd, bytes);
    this.rings.write(fd === 1 ? 0 : 1, bytes, this.ctl, this.drainInline);
    return 0;
  }

  read(max: number): Uint8Array | number {
    if (!this.input) return this.platform.readFd(0, max);
    if (this.hosted) {
      const wake = (): void => this.ctl.wakeMain();
      const bytes = this.input.read(max, wake, false);
      // Ask the owner for input (`ready` marks it wanted), then wait for it without blocking.
      if (!bytes) { this.stdinWait = this.input.written(); this.input.ready(wake); }
      return bytes ?? 6; /* EAGAIN, until stdinWait */
    }
    // On the main thread (calling-thread mode) nobody else can feed the pipe: do not wait.
    return this.input.read(max, () => this.ctl.wakeMain(), !this.drainInline) ?? 6 /* EAGAIN */;
  }

  ready(): boolean {
    // A host fd gives no readiness without blocking; report it ready, as a tty would be.
    return this.input ? this.input.ready(() => this.ctl.wakeMain()) : true;
  }
}

/** A WasiHost whose thread id is set when the instance is given a thread to run. */
class Host implements WasiHost {
  threadId = 0;
  constructor(
    readonly memory: WebAssembly.Memory,
    readonly args: readonly string[],
    readonly env: readonly string[],
    private readonly stdio: ThreadStdio,
    private readonly ctl: Control,
  ) {}
  writeOutput(fd: 1 | 2, bytes: Uint8Array): number { return this.stdio.write(fd, bytes); }
  readStdin(max: number): Uint8Array | number { return this.stdio.read(max); }
  stdinReady(): boolean { return this.stdio.ready(); }
  /** Runs before the exit is published, on the exiting thread: the OPFS exit flush (runtime's FS). */
  exitFlush: (() => void) | null = null;

  exit(code: number): never {
    this.flushBeforeExit();
    // 0-255: the status, as a native process gives it (wasmtime errors on >= 126). Above 255 no
    // process status can carry it: Linux would keep the low 8 bits (exit(256) a silent success);
    // like wasmtime, spindle makes it an error (status 1, said on stderr).
    const status = code > 255 ? 1 : code;
    this.ctl.requestExit(status, code > 255
      ? () => this.stdio.write(2, new TextEncoder().encode(`spindle: error: the program exited with status ${code}, outside of 0-255 (reported as status 1)\n`))
      : undefined);
    throw new ExitSignal(status);
  }

  /**
   * A normal exit (proc_exit, or `_start` returning): queue the OPFS write-back of files still
   * open, while the other threads still run (so they release any lock the flush needs). It only
   * spins or takes locks, never waits on the I/O worker. A failure is reported, not thrown: the
   * exit goes on.
   */
  flushBeforeExit(): void {
    if (!this.exitFlush) return;
    try {
      this.exitFlush();
    } catch (e) {
      this.stdio.write(2, new TextEncoder().encode(`spindle: error: writing back open OPFS files at exit failed: ${(e as Error).message}\n`));
    }
  }
}

/** What a thread runs: the instance's exports (`_start`, `wasi_thread_start`, `memory`). */
export interface ThreadInstance {
  readonly exports: WebAssembly.Exports;
}

export interface WasmThread {
  instance: ThreadInstance;
  host: Host;
}

/**
 * What an embedder adds to every instance of a program (napi/: Node-API through emnapi). It
 * instantiates the module itself, with the runtime's imports (`imports`: WASI preview1,
 * `wasi.thread-spawn`, the memory) merged into its own, and may wrap exports (e.g. to treat its
 * own unwinding as a normal end of `wasi_thread_start`). Called on the thread that will run the
 * instance, once per thread (once per worker with `reuseInstance`), before the thread is handed out.
 */
export interface InstanceHooks {
  instantiate(module: WebAssembly.Module, imports: WebAssembly.Imports): ThreadInstance;
  /**
   * The worker runs each next thread on the instance its previous thread ended on (pool-worker.ts
   * `serve`) instead of a fresh one. Sound for a wasi-libc program: `wasi_thread_start` sets the
   * stack pointer and the TLS base itself (wasi-libc's wasi_thread_start.s), and the inserted
   * globals stay true (thread-guards.ts: the memory size seen only grows; the wait hook is set only
   * on the calling thread's instance, which never runs a pool thread).
   */
  readonly reuseInstance?: boolean;
  /**
   * The program ended while this worker ran a thread (its trap or proc_exit, or another
   * thread's), with `status`. Called on the worker, before it stops serving.
   */
  programEnded?(status: number): void;
}

/**
 * Makes the instances of one worker (or of the main thread). The host and the import object are
 * built once: a worker runs one thread at a time, and only the instance (stack pointer, TLS) must
 * be new for each thread. Building the WASI import object costs about as much as instantiating.
 */
export class ThreadFactory {
  private readonly host: Host;
  private readonly imports: WebAssembly.Imports;
  private exported: WebAssembly.Memory | undefined;
  /** A hosted thread's JSPI (jspi.ts): its suspending imports, and the call of its start. */
  readonly suspension: Suspension | undefined;

  /** `hosted`: the instance runs on a host worker (host-worker.ts): its blocking imports suspend instead. */
  constructor(private readonly init: WorkerInit, platform: Platform, stdio: ThreadStdio, private readonly hooks?: InstanceHooks, hosted = false) {
    const ctl = new Control(init.control);
    shareMonotonicFloor(ctl.monotonicFloor());
    shareYieldWords(ctl.yieldWords());
    // A module that defines its own memory exports it only once instantiated: until then the
    // host holds a stand-in whose `buffer` forwards to the export.
    const imported = init.memory ?? (init.privateMemory ? new WebAssembly.Memory(init.privateMemory) : null);
    const memory = imported
      ?? (Object.defineProperty({}, 'buffer', { get: () => this.exported!.buffer }) as WebAssembly.Memory);
    this.host = new Host(memory, init.args, init.env, stdio, ctl);
    // With a filesystem, one fd table for all threads (fs/shared-fd-table.ts); without, each
    // instance keeps its own stdio table.
    const tty = stdio.ttyOf ?? init.stdioTty;
    const fds = init.fs ? threadFdTable(init.fs, this.host, tty, platform.hostFs, (f) => { this.host.exitFlush = f; }) : undefined;
    if (hosted) this.suspension = suspension();
    this.imports = {
      // Like wasmtime: stdio is a character device only when it really is a terminal.
      wasi_snapshot_preview1: this.suspension ? suspendingPreview1(wasiPreview1(this.host, { stdioIsTty: tty, fds, suspending: true }), stdio, this.suspension)
        : wasiPreview1(this.host, { stdioIsTty: tty, fds }),
      wasi: { 'thread-spawn': (arg: number) => spawnThread(init, platform, ctl, stdio, arg) },
    };
    if (init.opfs) this.imports.spindle_opfs = opfsImports(init.opfs, () => this.host.memory);
    if (imported && init.memoryImport) {
      const { module, name } = init.memoryImport;
      this.imports[module] = { ...(this.imports[module] ?? {}), [name]: imported };
    }
  }

  /**
   * The runtime's imports for this thread (the same object for every instance), for an embedder
   * that instantiates the calling thread's instance itself (napi/, `Program.startReactor`).
   */
  get importObject(): WebAssembly.Imports {
    return this.imports;
  }

  /** The thread's WASI host (a hosted thread's: host-worker.ts sets its thread id). */
  get wasiHost(): WasiHost & { threadId: number } {
    return this.host;
  }

  /** A fresh instance for the next thread (or, with InstanceHooks.reuseInstance, for all this worker's threads). */
  instantiate(): WasmThread {
    const instance = this.hooks
      ? this.hooks.instantiate(this.init.module, this.imports)
      : new WebAssembly.Instance(this.init.module, this.imports);
    this.exported = instance.exports.memory as WebAssembly.Memory | undefined;
    if (!this.init.memoryImport && !(this.exported instanceof WebAssembly.Memory)) {
      throw new Error('the module neither imports nor exports a memory; WASI programs must export "memory"');
    }
    return { instance, host: this.host };
  }
}

/**
 * The WASI imports of a hosted thread (host-worker.ts): poll_oneoff and sched_yield (built with
 * `suspending`: they return a Promise where they would block) and fd_read (a read of an empty
 * stdin pipe: ThreadStdio.hosted) become suspending imports (jspi.ts), so the thread suspends
 * there and its worker runs its other threads. Any other import that blocks does so only for a
 * moment, on another JS thread's progress (the output ring's room, a lock held by a synchronous
 * call on another worker): see docs/threads-beyond-the-pool.md.
 */
function suspendingPreview1(wasi: Record<string, (...args: any[]) => number>, stdio: ThreadStdio, jspi: Suspension): WebAssembly.ModuleImports {
  const read = wasi.fd_read!;
  const readAgain = (fd: number, iovs: number, n: number, nread: number): number | Promise<number> => {
    const errno = read(fd, iovs, n, nread);
    const wait = stdio.stdinWait;
    stdio.stdinWait = undefined;
    return wait ? wait.then(() => readAgain(fd, iovs, n, nread)) : errno;
  };
  const imports: WebAssembly.ModuleImports = { ...wasi, fd_read: jspi.suspending(readAgain, WASI_TYPES.fd_read!) };
  for (const name of SUSPENDING) imports[name] = jspi.suspending(wasi[name]!, WASI_TYPES[name]!);
  return imports;
}

/** The wasm types of the WASI calls that suspend (witx: every pointer and size an i32, errno the i32 result). */
const WASI_TYPES: Record<string, Signature> = {
  fd_read: [['i32', 'i32', 'i32', 'i32'], ['i32']],
  poll_oneoff: [['i32', 'i32', 'i32', 'i32'], ['i32']],
  sched_yield: [[], ['i32']],
};

/**
 * wasi-threads `thread-spawn`: a thread id > 0, or a negative value when no thread can start.
 * Takes an idle worker (control.ts `takeIdle`), or, when none is idle, reserves a new slot,
 * writes the command into it and starts its worker (Node: on this thread; browsers: the owner);
 * at the pool's maximum, waits for a worker to come back idle (AT_MAX_WAIT_MS). Once the pool has had to grow, a spawn that leaves fewer than SPARE workers idle wakes the
 * owner, which starts more ahead of the next spawns (pool.ts).
 */
function spawnThread(init: WorkerInit, platform: Platform, ctl: Control, stdio: ThreadStdio, arg: number): number {
  if (!init.hasThreadStart) {
    reportFailure(stdio, ctl, 'the program called thread-spawn but does not export wasi_thread_start; '
      + 'build it for wasm32-wasip1-threads with the toolchain\'s thread support (e.g. -pthread)');
    throw new ExitSignal(1);
  }
  if (ctl.exited) return -1;
  const idle = ctl.takeIdle(2);
  if (idle >= 0) return startOn(init, platform, ctl, stdio, arg, idle, false);
  if (init.hosting && Atomics.load(ctl.words, SLOTS_USED) >= init.hosting.after) return hostThread(init, platform, ctl, stdio, arg);
  const fresh = ctl.reserveSlot();
  if (fresh >= 0) return startOn(init, platform, ctl, stdio, arg, fresh, true);
  const freed = ctl.awaitIdle(AT_MAX_WAIT_MS); // the pool is at its maximum
  return freed >= 0 ? startOn(init, platform, ctl, stdio, arg, freed, false) : -6;
}

const WASM_PAGE = 65536;

/**
 * How long a spawn at the thread maximum (`maxThreads`) waits for a thread to end before it
 * fails with EAGAIN. The wait ends as soon as a worker or a hosted thread is free: a thread
 * the program has just joined frees its place a little after the join returns (its worker must
 * first return from `wasi_thread_start`), so a program that keeps at most `maxThreads` threads
 * alive never sees EAGAIN. Only a program that does have `maxThreads` threads alive waits this
 * long. A thread that may not block (a page's thread in browsers) does not wait.
 */
const AT_MAX_WAIT_MS = 1000;

/**
 * Starts thread `arg` on the worker of `slot`: one this spawn took off the idle stack, or (`grow`)
 * a new slot it reserved, whose worker it then starts. Returns the thread id, or -6 (EAGAIN).
 */
function startOn(init: WorkerInit, platform: Platform, ctl: Control, stdio: ThreadStdio, arg: number, slot: number, grow: boolean): number {
  const tid = ctl.nextThreadId();
  if (tid < 0) { if (!grow) ctl.pushIdle(slot); return -6; }
  // The new thread's stack and TLS were allocated (and the TLS written, by a bulk copy that
  // checks bounds) on this thread: this thread's view of the memory covers them.
  ctl.command(slot, init.slot < 0 && !init.hostWorker ? CMD_RUN_OWNER_THREAD : CMD_RUN_THREAD, tid, arg, init.memory ? init.memory.buffer.byteLength / WASM_PAGE : 0);
  if (grow) {
    ctl.noteStarted();
    ctl.noteGrown();
    platform.startWorker({ ...init, slot }, (message) => reportFailure(stdio, ctl, message));
  }
  if (ctl.wantsTopUp) ctl.wakeMain();
  return tid;
}

/**
 * A spawn beyond the pool where threads are hosted (WorkerInit.hosting): queued for the host
 * workers (host-queue.ts), which the first such spawn starts. EAGAIN past maxThreads hosted threads.
 */
function hostThread(init: WorkerInit, platform: Platform, ctl: Control, stdio: ThreadStdio, arg: number): number {
  const { queue: buffer, max, mainSlots, hosts } = init.hosting!;
  const queue = new HostQueue(buffer);
  // maxThreads counts every thread alive: those of the pool's slots (all busy: no slot was idle) too.
  // At the maximum, the first place to free up: a hosted thread released, or a pool worker idle.
  const deadline = Date.now() + AT_MAX_WAIT_MS;
  while (!queue.tryReserve(max - (Atomics.load(ctl.words, SLOTS_USED) - mainSlots))) {
    const slot = ctl.takeIdle(0);
    if (slot >= 0) return startOn(init, platform, ctl, stdio, arg, slot, false);
    if (Date.now() >= deadline || ctl.exited || !queue.waitRelease(1)) return -6;
  }
  const tid = ctl.nextThreadId();
  if (tid < 0) { queue.release(); return -6; }
  queue.push({ tid, arg, pages: init.memory ? init.memory.buffer.byteLength / WASM_PAGE : 0 });
  // All host workers at the first hosted spawn: a hosted thread that computes then shares its
  // worker with fewer others. Where the engine has JSPI only behind a flag (Node 22), the flag
  // first: the host workers, started after it, have it (jspi.ts).
  while (queue.claimHost(hosts)) {
    enableWorkerJspi(platform);
    ctl.noteStarted();
    platform.startWorker({ ...init, slot: -1, hostWorker: true }, (message) => reportFailure(stdio, ctl, message));
  }
  return tid;
}

let jspiFlagSet = false;

/** Sets jspi.ts's workerJspiFlag, once per thread that starts host workers, where there is one. */
function enableWorkerJspi(platform: Platform): void {
  if (jspiFlagSet) return;
  jspiFlagSet = true;
  const flag = workerJspiFlag();
  if (flag) platform.setV8Flags!(flag);
}

export function reportFailure(stdio: ThreadStdio, ctl: Control, message: string): void {
  ctl.requestExit(1, () => stdio.write(2, new TextEncoder().encode(`spindle: error: ${message}\n`)));
}

/**
 * Runs `_start` (tid 0) or `wasi_thread_start(tid, arg)` to its end. Returns true if the thread
 * returned normally and its worker may take more work; false if the program is ending.
 */
export function runThread(thread: WasmThread, ctl: Control, stdio: ThreadStdio, tid: number, arg: number): boolean {
  thread.host.threadId = tid;
  const exports = thread.instance.exports;
  try {
    if (tid === 0) {
      (exports._start as () => void)();
      thread.host.flushBeforeExit();
      ctl.requestExit(0); // POSIX: main returning ends the program, whatever other threads do
      return false;
    }
    (exports.wasi_thread_start as (tid: number, arg: number) => void)(tid, arg);
    return !ctl.exited;
  } catch (e) {
    if (!(e instanceof ExitSignal)) reportTrap(stdio, ctl, tid, e);
    return false;
  }
}

/** A trap ends the program with 134 (like wasmtime) and a message naming the thread. */
export function reportTrap(stdio: ThreadStdio, ctl: Control, tid: number, e: unknown): void {
  // If the program was already ending, this thread was merely cut short: nothing to report.
  const who = tid === 0 ? 'main thread (thread 0)' : `thread ${tid}`;
  ctl.requestExit(134, () => stdio.write(2, new TextEncoder().encode(`spindle: ${who} trapped: ${describeTrap(e)}\n`)));
}

function describeTrap(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const kind = e instanceof WebAssembly.RuntimeError ? 'wasm trap' : e.name;
  // Keep the wasm frames of the stack (they name the functions); drop the runtime's JS frames.
  const frames = (e.stack ?? '').split('\n').filter((l) => /wasm:\/\/|wasm-function/.test(l));
  return `${kind}: ${e.message}` + (frames.length ? `\nwasm backtrace:\n${frames.join('\n')}` : '');
}
