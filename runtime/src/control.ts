/**
 * The control block: one SharedArrayBuffer, seen by the main thread and every worker of a program,
 * through which threads are spawned and the program is ended, without any message to the main
 * thread. Everything here is lock-free or behind a tiny spin lock, so it works from any thread,
 * including one that may not block.
 *
 * Layout (Int32 words):
 *   STATE      0 running, 1 an exit is being recorded, 2 exited (EXIT_CODE valid)
 *   EXIT_CODE  the program's exit status once STATE == 2
 *   NEXT_TID   next wasi-threads thread id (starts at 1; ids are 1..2^29-1)
 *   SLOTS_USED worker slots handed out so far (every worker owns one slot for its life)
 *   MAX_SLOTS  capacity of the slot table = the pool maximum (+1 for the main worker)
 *   IDLE_LOCK  spin lock protecting IDLE_COUNT and the idle stack
 *   IDLE_COUNT number of slot indices on the idle stack (ready or still booting)
 *   OUT_SEQ    bumped when a thread needs the main thread (output written, stdin wanted, the
 *              pool wants a top-up); the main thread waits on it
 *   PREPARING  workers between the end of a thread and their return to the idle stack
 *              (instantiating for the next thread)
 *   SPARE      idle workers the owner keeps ahead of demand once the pool has had to grow
 *              (pool.ts): a spawn that leaves fewer on the idle stack wakes the owner
 *   MONO_FLOOR two words (8-byte aligned), a BigInt64: the highest MONOTONIC clock reading handed
 *              out so far, in browsers (wasi/clock.ts): keeps the clock monotonic across workers
 *   READY_SEQ  bumped (and notified) whenever a worker becomes ready for a thread
 *   STARTED    workers started so far, by anyone (statistics: `Program.poolStats`)
 *   GROWN      spawns that found no idle worker at all and started one themselves; once it is
 *              non-zero the owner keeps SPARE workers ahead
 *   WAITED     spawns that took a worker still booting (statistics)
 *   YIELD_SLEEPERS threads sleeping in sched_yield now (wasi/proc.ts: a thread that sleeps while
 *              another one does backs off longer)
 *   BOOT_TIMEOUTS  the main worker's waits for the prewarmed pool (waitIdleBooted) that ran out of
 *              time with workers still booting (statistics)
 *   PEAK_BUSY  the most slots off the idle stack at once so far (raised when a spawn takes or
 *              reserves one): the program's demand for workers (napi: the next run's prewarm)
 *   IDLE_STACK MAX_SLOTS words: slots whose worker is waiting (or still booting) for work
 *   SLOT k     SLOT_WORDS words each: CMD, TID, ARG, READY (1 while its worker has an instance
 *              ready and waits for CMD, 2 if that instance has already run a thread: warm;
 *              written only by that worker), PAGES (the memory size, in 64 KiB pages, that the
 *              spawner saw: the new thread's stack and TLS lie below it)
 *
 * Invariants: a slot index is on the idle stack at most once, and only while its CMD is NONE;
 * only the thread that popped a slot writes its CMD (NONE -> RUN_THREAD or RUN_OWNER_THREAD: the
 * spawner, or a cold worker handing its thread over, `handOver`); only the slot's worker
 * resets it to NONE; once the exit is published, the exiting thread moves every NONE to EXIT. STATE only moves forward 0 -> 1 -> 2, and the thread that moved it 0 -> 1
 * is the only writer of EXIT_CODE. READY is a hint for choosing among idle slots: a slot taken
 * while its worker still boots is correct, its thread only starts later.
 */
import { newSharedBuffer } from './shared-buffer.js';

export const STATE = 0;
export const EXIT_CODE = 1;
export const NEXT_TID = 2;
export const SLOTS_USED = 3;
export const MAX_SLOTS = 4;
export const IDLE_LOCK = 5;
export const IDLE_COUNT = 6;
export const OUT_SEQ = 7;
export const PREPARING = 8;
export const SPARE = 9;
export const MONO_FLOOR = 10;
export const READY_SEQ = 12;
export const STARTED = 13;
export const GROWN = 14;
export const WAITED = 15;
export const YIELD_SLEEPERS = 16;
export const BOOT_TIMEOUTS = 17;
export const PEAK_BUSY = 18;
const HEADER_WORDS = 19;
const SLOT_WORDS = 5;

/** What the control block tells about the pool (`Program.poolStats`). */
export interface PoolStats {
  /** Workers started so far (the main worker, prewarm, top-ups and growth). */
  started: number;
  /** Spawns that found no idle worker and started one (the thread waited for it to boot). */
  grown: number;
  /** Spawns that took a worker that was still booting. */
  waited: number;
  /** Waits of the main worker for the prewarmed pool that ran out of time (a slow boot). */
  bootTimeouts: number;
  /** The most workers off the idle stack at once so far (running, handing over or preparing a thread). */
  peakBusy: number;
  /** Workers on the idle stack now, ready or booting. */
  idle: number;
  /** Idle workers kept ahead of demand once the pool has grown. */
  spare: number;
}

/** A slot's READY word: its worker is booting, instantiating or running a thread; ready with an instance that never ran a thread; ready with one that did. */
const READY_NOT = 0;
const READY_COLD = 1;
const READY_WARM = 2;

export const CMD_NONE = 0;
export const CMD_RUN_THREAD = 1;
export const CMD_RUN_MAIN = 2;
export const CMD_EXIT = 3;
/** CMD_RUN_THREAD for a thread spawned by the owner's own thread (napi: a call of the addon from JavaScript). */
export const CMD_RUN_OWNER_THREAD = 4;

export const STATE_RUNNING = 0;
export const STATE_EXITING = 1;
export const STATE_EXITED = 2;

/** Largest thread id wasi-threads allows (the top bits are reserved). */
const MAX_TID = 0x1fffffff;

export class Control {
  readonly words: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer);
  }

  /** `spare`: idle workers the owner keeps ahead of demand (0: the pool only grows on a spawn). */
  static create(maxSlots: number, spare = 0): Control {
    const words = HEADER_WORDS + maxSlots + maxSlots * SLOT_WORDS;
    const c = new Control(newSharedBuffer(words * 4));
    c.words[NEXT_TID] = 1;
    c.words[MAX_SLOTS] = maxSlots;
    c.words[SPARE] = spare;
    return c;
  }

  /** The YIELD_SLEEPERS word as an Int32Array of length 1 (wasi/proc.ts `shareYieldWords`). */
  yieldWords(): Int32Array {
    return new Int32Array(this.buffer, YIELD_SLEEPERS * 4, 1);
  }

  /** The MONO_FLOOR words as a BigInt64Array of length 1. */
  monotonicFloor(): BigInt64Array {
    return new BigInt64Array(this.buffer, MONO_FLOOR * 4, 1);
  }

  private idle(i: number): number { return HEADER_WORDS + i; }
  slotWord(slot: number, field: 0 | 1 | 2 | 3 | 4): number {
    return HEADER_WORDS + this.words[MAX_SLOTS]! + slot * SLOT_WORDS + field;
  }

  get exited(): boolean { return Atomics.load(this.words, STATE) !== STATE_RUNNING; }
  get exitCode(): number { return Atomics.load(this.words, EXIT_CODE); }

  /**
   * The exit status once the exit is published (an exit being recorded is published right after
   * its last words). Blocks: only where waiting is allowed (a worker), and only once `exited`.
   */
  waitExitCode(): number {
    for (let s = Atomics.load(this.words, STATE); s !== STATE_EXITED; s = Atomics.load(this.words, STATE)) {
      Atomics.wait(this.words, STATE, s);
    }
    return this.exitCode;
  }

  /**
   * Records the program's exit status; the first caller wins, later calls change nothing.
   * `lastWords` (e.g. writing a trap message) runs after this call has won but before the exit
   * is published, so the main thread cannot end the program before those bytes are written.
   * Returns true if this call decided the exit status.
   */
  requestExit(code: number, lastWords?: () => void): boolean {
    if (Atomics.compareExchange(this.words, STATE, STATE_RUNNING, STATE_EXITING) !== STATE_RUNNING) return false;
    try {
      lastWords?.();
    } finally {
      Atomics.store(this.words, EXIT_CODE, code);
      Atomics.store(this.words, STATE, STATE_EXITED);
      Atomics.notify(this.words, STATE);
      this.releaseIdle();
    }
    return true;
  }

  /**
   * After the exit: every worker waiting for a command gets CMD_EXIT and returns from its loop,
   * so the workers end on their own threads, all at once, instead of one after another when
   * their owner terminates them (Node joins a worker's children in turn).
   */
  private releaseIdle(): void {
    const used = Math.min(Atomics.load(this.words, SLOTS_USED), this.words[MAX_SLOTS]!);
    for (let s = 0; s < used; s++) {
      const cmd = this.slotWord(s, 0);
      Atomics.compareExchange(this.words, cmd, CMD_NONE, CMD_EXIT);
      Atomics.notify(this.words, cmd);
    }
  }

  /** Reserves a never-used slot, or returns -1 when the pool is at its maximum. */
  reserveSlot(): number {
    for (;;) {
      const used = Atomics.load(this.words, SLOTS_USED);
      if (used >= this.words[MAX_SLOTS]!) return -1;
      if (Atomics.compareExchange(this.words, SLOTS_USED, used, used + 1) === used) return used;
    }
  }

  /** Puts `slot` on the idle stack: its worker is (or soon will be) waiting for a command. */
  pushIdle(slot: number): void {
    this.lock();
    const n = this.words[IDLE_COUNT]!;
    this.words[this.idle(n)] = slot;
    this.words[IDLE_COUNT] = n + 1;
    this.unlock();
    Atomics.notify(this.words, IDLE_COUNT);
  }

  /**
   * Takes an idle worker for a new thread: a ready one if there is one; else, when a worker is
   * about to be ready (instantiating for its next thread, ~0.1-0.3 ms), waits up to `waitMs` for
   * it; else one that is still booting (its thread starts once it has booted: counted in
   * WAITED). Returns -1 when no worker is idle. A thread that may not block (a page's thread,
   * where Atomics.wait throws: it runs a napi addon's calls in browsers) does not wait.
   */
  takeIdle(waitMs: number): number {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const seq = Atomics.load(this.words, READY_SEQ);
      const slot = this.popIdle(true);
      if (slot >= 0) return slot;
      if (Atomics.load(this.words, PREPARING) === 0 || Date.now() >= deadline) break;
      try {
        Atomics.wait(this.words, READY_SEQ, seq, 0.5);
      } catch {
        break; // a thread that may not block
      }
    }
    const slot = this.popIdle(false);
    if (slot >= 0) this.noteWaited();
    return slot;
  }

  /**
   * At the pool's maximum: waits up to `waitMs` for a worker to come back on the idle stack and
   * takes it. A thread the program has joined still holds its worker until that worker has its
   * next instance (`beginPreparing` follows the end of `wasi_thread_start`, after the join was
   * woken; on a loaded machine that can take milliseconds), so a spawn at the maximum right after
   * a join must wait for it instead of failing. Returns -1 after `waitMs` (the program does have
   * that many threads alive: EAGAIN), after the exit, or at once on a thread that may not block.
   */
  awaitIdle(waitMs: number): number {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const slot = this.popIdle(false);
      if (slot >= 0) return slot;
      const left = deadline - Date.now();
      if (left <= 0 || this.exited) return -1;
      try {
        Atomics.wait(this.words, IDLE_COUNT, 0, Math.min(left, 5)); // pushIdle notifies; the slice sees an exit
      } catch {
        return -1; // a thread that may not block
      }
    }
  }

  /**
   * Waits until no worker on the idle stack is still booting (each has its instance), the program
   * ended, or `maxMs` passed. The main worker calls it before `_start` (pool-worker.ts).
   */
  waitIdleBooted(maxMs: number): void {
    const deadline = Date.now() + maxMs;
    for (;;) {
      const seq = Atomics.load(this.words, READY_SEQ);
      const left = deadline - Date.now();
      if (this.idleBooting() === 0 || this.exited) return;
      if (left <= 0) { Atomics.add(this.words, BOOT_TIMEOUTS, 1); return; }
      Atomics.wait(this.words, READY_SEQ, seq, Math.min(left, 5)); // markReady notifies; the slice sees an exit
    }
  }

  /** A worker's thread ended: it is preparing its next instance (undone by pushIdle's caller). */
  beginPreparing(): void { Atomics.add(this.words, PREPARING, 1); }
  endPreparing(): void { Atomics.sub(this.words, PREPARING, 1); }

  /**
   * `slot`'s worker has an instance ready and waits for a command (called by that worker).
   * `warm`: the instance has run a thread before (InstanceHooks.reuseInstance), so the JavaScript
   * its threads call (the WASI layer) has been optimized in that worker (READY 2 instead of 1).
   */
  markReady(slot: number, warm = false): void {
    Atomics.store(this.words, this.slotWord(slot, 3), warm ? READY_WARM : READY_COLD);
    Atomics.add(this.words, READY_SEQ, 1);
    Atomics.notify(this.words, READY_SEQ);
  }

  /** Idle workers (on the idle stack) that are still booting: not ready for a thread yet. */
  idleBooting(): number {
    this.lock();
    let booting = 0;
    for (let i = 0; i < this.words[IDLE_COUNT]!; i++) {
      if (this.readyOf(this.words[this.idle(i)]!) === READY_NOT) booting++;
    }
    this.unlock();
    return booting;
  }

  /** `slot`'s worker took its command (called by that worker). */
  markBusy(slot: number): void { Atomics.store(this.words, this.slotWord(slot, 3), READY_NOT); }

  private readyOf(slot: number): number { return Atomics.load(this.words, this.slotWord(slot, 3)); }

  /**
   * Called by a worker that has never run a thread, with the thread it was just given
   * (its CMD already reset): hands that thread to a warm idle worker (markReady) if one is idle or
   * becomes idle within `waitMs`, while another worker runs a thread (it may be about to end).
   * Returns true if it did; the caller then goes back on the idle stack. A thread started on a
   * worker whose JavaScript V8 has not optimized yet costs more CPU (rolldown: a bundle ~25-30 ms
   * more on a cold worker, ~100 ms on a warm one), and rolldown starts each bundle's thread just
   * before the previous bundle's thread has ended (0.5-5 ms).
   */
  handOver(tid: number, arg: number, pages: number, waitMs: number): boolean {
    // Workers running a thread now, besides this one (popped by the spawner, not yet idle).
    if (Math.min(Atomics.load(this.words, SLOTS_USED), this.words[MAX_SLOTS]!) - Atomics.load(this.words, IDLE_COUNT) - 1 <= 0) return false;
    const deadline = performance.now() + waitMs;
    for (;;) {
      const seq = Atomics.load(this.words, READY_SEQ);
      const warm = this.popIdle(false, true);
      if (warm >= 0) {
        this.command(warm, CMD_RUN_OWNER_THREAD, tid, arg, pages);
        return true;
      }
      const left = deadline - performance.now();
      if (left <= 0 || this.exited) return false;
      Atomics.wait(this.words, READY_SEQ, seq, left);
    }
  }

  /**
   * Takes a slot off the idle stack: the most recently pushed one; with `readyOnly` the most
   * recently pushed warm one (markReady), else the most recently pushed ready one; with `warmOnly`
   * only a warm one. Returns -1 when there is none.
   */
  popIdle(readyOnly = false, warmOnly = false): number {
    this.lock();
    const n = this.words[IDLE_COUNT]!;
    let i = n - 1;
    if (readyOnly || warmOnly) {
      while (i >= 0 && this.readyOf(this.words[this.idle(i)]!) !== READY_WARM) i--;
      if (i < 0 && !warmOnly) for (i = n - 1; i >= 0 && this.readyOf(this.words[this.idle(i)]!) === READY_NOT;) i--;
    }
    let slot = -1;
    if (i >= 0) {
      slot = this.words[this.idle(i)]!;
      this.words.copyWithin(this.idle(i), this.idle(i + 1), this.idle(n));
      this.words[IDLE_COUNT] = n - 1;
      this.notePeak();
    }
    this.unlock();
    return slot;
  }

  /**
   * The owner should start workers ahead of demand: the pool has had to grow during a spawn (the
   * program runs more threads than the pool held), fewer than SPARE workers are idle, and a slot
   * is left. Before the first growth the prewarmed pool covers the demand, and a worker booting
   * ahead would only take CPU time from the program's threads.
   */
  get wantsTopUp(): boolean {
    return Atomics.load(this.words, GROWN) > 0 && Atomics.load(this.words, IDLE_COUNT) < this.words[SPARE]!
      && Atomics.load(this.words, SLOTS_USED) < this.words[MAX_SLOTS]!;
  }

  /**
   * Raises PEAK_BUSY to the slots not on the idle stack now (under the idle lock, or after a spawn
   * reserved a slot for itself): workers running a thread, handing one over or preparing their
   * next instance.
   */
  private notePeak(): void {
    const busy = Math.min(Atomics.load(this.words, SLOTS_USED), this.words[MAX_SLOTS]!) - Atomics.load(this.words, IDLE_COUNT);
    for (let peak = Atomics.load(this.words, PEAK_BUSY); busy > peak;) {
      const was = Atomics.compareExchange(this.words, PEAK_BUSY, peak, busy);
      if (was === peak) break;
      peak = was;
    }
  }

  /** Statistics (and the top-up trigger): a worker was started; a spawn grew the pool; a spawn took a booting worker. */
  noteStarted(): void { Atomics.add(this.words, STARTED, 1); }
  noteGrown(): void { Atomics.add(this.words, GROWN, 1); this.notePeak(); }
  noteWaited(): void { Atomics.add(this.words, WAITED, 1); }

  /** The pool's counters, for `Program.poolStats`. */
  stats(): PoolStats {
    const w = this.words;
    return {
      started: Atomics.load(w, STARTED),
      grown: Atomics.load(w, GROWN),
      waited: Atomics.load(w, WAITED),
      bootTimeouts: Atomics.load(w, BOOT_TIMEOUTS),
      peakBusy: Atomics.load(w, PEAK_BUSY),
      idle: Atomics.load(w, IDLE_COUNT),
      spare: w[SPARE]!,
    };
  }

  /** Hands a thread to `slot`'s worker and wakes it. The slot must have been popped or reserved. */
  command(slot: number, cmd: number, tid: number, arg: number, pages = 0): void {
    this.words[this.slotWord(slot, 1)] = tid;
    this.words[this.slotWord(slot, 2)] = arg;
    this.words[this.slotWord(slot, 4)] = pages;
    Atomics.store(this.words, this.slotWord(slot, 0), cmd);
    Atomics.notify(this.words, this.slotWord(slot, 0));
  }

  /** Allocates a thread id, or -1 when ids are exhausted. */
  nextThreadId(): number {
    const tid = Atomics.add(this.words, NEXT_TID, 1);
    return tid > MAX_TID ? -1 : tid;
  }

  /** Bumps OUT_SEQ and wakes the main thread's pump (output to deliver, stdin wanted). */
  wakeMain(): void {
    Atomics.add(this.words, OUT_SEQ, 1);
    Atomics.notify(this.words, OUT_SEQ);
  }

  // The idle-stack lock is held for a handful of instructions and never across a call that can
  // block or throw, so spinning is cheaper than waiting and safe on a thread that may not wait.
  private lock(): void {
    while (Atomics.compareExchange(this.words, IDLE_LOCK, 0, 1) !== 0) { /* spin */ }
  }
  private unlock(): void {
    Atomics.store(this.words, IDLE_LOCK, 0);
  }
}
