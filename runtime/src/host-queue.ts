/**
 * The queue of hosted threads (docs/threads-beyond-the-pool.md): spawns beyond the pool, on a
 * Node with JSPI, are not given a worker of their own but queued here for the program's host
 * workers (host-worker.ts, one per core), each of which runs many of them on its one JS thread,
 * each suspended (not blocked) while it waits. Whichever host worker is in its event loop takes
 * the next one.
 *
 * Layout (Int32 words of one SharedArrayBuffer, created by the owner with the control block):
 *   LOCK   spin lock over HEAD, TAIL and the entries (held for a few instructions, never across
 *          a call that can block or throw)
 *   HEAD   entries taken so far;  TAIL  entries queued so far (TAIL - HEAD <= CAPACITY)
 *   SEQ    bumped (and notified) after each push: the host worker waits on it asynchronously
 *   HOSTS  host workers started so far (each by the spawner that moved it from k to k + 1)
 *   LIVE   hosted threads queued or running (counted against the program's maxThreads)
 *   CAPACITY entries in the ring
 *   ENTRY k  ENTRY_WORDS words each: TID, ARG, PAGES (as a pool slot's command: control.ts)
 *
 * Thread rules: push from any thread that spawns (pool workers, host workers, the owner in
 * calling-thread mode); pop from host workers only.
 */
import { newSharedBuffer } from './shared-buffer.js';

const LOCK = 0, HEAD = 1, TAIL = 2, SEQ = 3, HOSTS = 4, LIVE = 5, CAPACITY = 6;
const HEADER_WORDS = 8;
const ENTRY_WORDS = 3;

/** A thread handed to the host worker: what a pool slot's command carries. */
export interface HostedThread { tid: number; arg: number; pages: number }

export class HostQueue {
  readonly words: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer);
  }

  /** A queue for up to `capacity` hosted threads at once. */
  static create(capacity: number): HostQueue {
    const q = new HostQueue(newSharedBuffer((HEADER_WORDS + capacity * ENTRY_WORDS) * 4));
    q.words[CAPACITY] = capacity;
    return q;
  }

  /** Counts a new hosted thread against `max` live ones; false when `max` are live (thread.ts waits, then EAGAIN). */
  tryReserve(max: number): boolean {
    for (;;) {
      const live = Atomics.load(this.words, LIVE);
      if (live >= Math.min(max, this.words[CAPACITY]!)) return false;
      if (Atomics.compareExchange(this.words, LIVE, live, live + 1) === live) return true;
    }
  }

  /**
   * Waits up to `ms` for a hosted thread to be released (`release`). False on a thread that may
   * not block (Atomics.wait throws there), which must not wait.
   */
  waitRelease(ms: number): boolean {
    try {
      Atomics.wait(this.words, LIVE, Atomics.load(this.words, LIVE), ms);
      return true;
    } catch {
      return false;
    }
  }

  /** A hosted thread ended (host worker). */
  release(): void {
    Atomics.sub(this.words, LIVE, 1);
    Atomics.notify(this.words, LIVE);
  }

  /** True when the caller must start a host worker: fewer than `max` have been started. */
  claimHost(max: number): boolean {
    for (;;) {
      const n = Atomics.load(this.words, HOSTS);
      if (n >= max) return false;
      if (Atomics.compareExchange(this.words, HOSTS, n, n + 1) === n) return true;
    }
  }

  /** Queues a thread (after `reserve`) and wakes the host worker. */
  push(t: HostedThread): void {
    this.lock();
    const tail = this.words[TAIL]!;
    const at = HEADER_WORDS + (tail % this.words[CAPACITY]!) * ENTRY_WORDS;
    this.words[at] = t.tid;
    this.words[at + 1] = t.arg;
    this.words[at + 2] = t.pages;
    this.words[TAIL] = tail + 1;
    this.unlock();
    Atomics.add(this.words, SEQ, 1);
    Atomics.notify(this.words, SEQ);
  }

  /** The oldest queued thread, or undefined (host workers). */
  pop(): HostedThread | undefined {
    this.lock();
    const head = this.words[HEAD]!;
    let t: HostedThread | undefined;
    if (head !== this.words[TAIL]) {
      const at = HEADER_WORDS + (head % this.words[CAPACITY]!) * ENTRY_WORDS;
      t = { tid: this.words[at]!, arg: this.words[at + 1]!, pages: this.words[at + 2]! };
      this.words[HEAD] = head + 1;
    }
    this.unlock();
    return t;
  }

  /** Whether threads are queued that no host worker took yet (a racy read: a hint). */
  get waiting(): boolean { return Atomics.load(this.words, HEAD) !== Atomics.load(this.words, TAIL); }

  /** The push counter, read before `pop` so that a push after it ends the wait on it (`changed`). */
  get seq(): number { return Atomics.load(this.words, SEQ); }

  /** Resolves once a push has followed the `seq` read (without blocking the calling thread). */
  changed(seq: number): Promise<unknown> {
    const w = Atomics.waitAsync(this.words, SEQ, seq);
    return w.async ? w.value : Promise.resolve();
  }

  private lock(): void {
    while (Atomics.compareExchange(this.words, LOCK, 0, 1) !== 0) { /* spin: held for a few instructions */ }
  }
  private unlock(): void { Atomics.store(this.words, LOCK, 0); }
}
