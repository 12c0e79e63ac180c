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
 *   IDLE_COUNT number of slot indices on the idle stack
 *   PREPARING  workers between the end of a thread and their return to the idle stack
 *              (instantiating for the next thread)
 *   OUT_SEQ    bumped when a thread needs the main thread (output written, stdin wanted);
 *              the main thread waits on it
 *   MONO_FLOOR two words (8-byte aligned), a BigInt64: the highest MONOTONIC clock reading handed
 *              out so far, in browsers (wasi/clock.ts): keeps the clock monotonic across workers
 *   IDLE_STACK MAX_SLOTS words: slots whose worker is waiting (or still booting) for work
 *   SLOT k     SLOT_WORDS words each: CMD, TID, ARG
 *
 * Invariants: a slot index is on the idle stack at most once, and only while its CMD is NONE;
 * only the thread that popped a slot writes its CMD (NONE -> RUN_THREAD); only the slot's worker
 * resets it to NONE. STATE only moves forward 0 -> 1 -> 2, and the thread that moved it 0 -> 1
 * is the only writer of EXIT_CODE.
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
export const MONO_FLOOR = 10;
const HEADER_WORDS = 16;
const SLOT_WORDS = 4;

export const CMD_NONE = 0;
export const CMD_RUN_THREAD = 1;
export const CMD_RUN_MAIN = 2;

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

  static create(maxSlots: number): Control {
    const words = HEADER_WORDS + maxSlots + maxSlots * SLOT_WORDS;
    const c = new Control(newSharedBuffer(words * 4));
    c.words[NEXT_TID] = 1;
    c.words[MAX_SLOTS] = maxSlots;
    return c;
  }

  /** The MONO_FLOOR words as a BigInt64Array of length 1. */
  monotonicFloor(): BigInt64Array {
    return new BigInt64Array(this.buffer, MONO_FLOOR * 4, 1);
  }

  private idle(i: number): number { return HEADER_WORDS + i; }
  slotWord(slot: number, field: 0 | 1 | 2): number {
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
    }
    return true;
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
   * Takes a slot off the idle stack; if none is idle but a worker is about to be (it is
   * instantiating for its next thread, ~0.1-0.3 ms), waits up to `waitMs` for it rather than
   * growing the pool by a new worker (tens of ms to boot). Returns -1 when none came.
   */
  popIdleOrSoon(waitMs: number): number {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const slot = this.popIdle();
      if (slot >= 0 || Atomics.load(this.words, PREPARING) === 0 || Date.now() >= deadline) return slot;
      Atomics.wait(this.words, IDLE_COUNT, 0, 0.5);
    }
  }

  /** A worker's thread ended: it is preparing its next instance (undone by pushIdle's caller). */
  beginPreparing(): void { Atomics.add(this.words, PREPARING, 1); }
  endPreparing(): void { Atomics.sub(this.words, PREPARING, 1); }

  /** Takes a slot off the idle stack, or returns -1 when none is idle. */
  popIdle(): number {
    this.lock();
    const n = this.words[IDLE_COUNT]!;
    let slot = -1;
    if (n > 0) {
      slot = this.words[this.idle(n - 1)]!;
      this.words[IDLE_COUNT] = n - 1;
    }
    this.unlock();
    return slot;
  }

  /** Hands a thread to `slot`'s worker and wakes it. The slot must have been popped or reserved. */
  command(slot: number, cmd: number, tid: number, arg: number): void {
    this.words[this.slotWord(slot, 1)] = tid;
    this.words[this.slotWord(slot, 2)] = arg;
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
