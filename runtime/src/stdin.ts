/**
 * A program's stdin as a shared pipe: any thread reads, one producer writes.
 *
 * Why: a synchronous read of the host's fd 0 on a worker cannot be interrupted, and Node joins
 * every worker thread at exit, so a thread blocked in read(0) would hang the exit forever. So
 * the host's stdin is read asynchronously by the main thread (Node: process.stdin), only once a
 * thread first asks for input, and copied into this pipe; readers wait on Atomics in their own
 * threads. Fixed input (a string or bytes) is written once at creation and closed.
 *
 * Layout: Int32 [HEAD, TAIL, CLOSED, WANT] then CAPACITY bytes. HEAD/TAIL are byte counters
 * (wrapping at 2^32); HEAD - TAIL bytes are unread. Readers claim bytes with a CAS on TAIL, so
 * two threads never get the same byte. WANT is set by a reader that found the pipe empty; the
 * producer clears nothing and simply keeps it full when it can. CLOSED = 1 after end of input.
 */
import { ringRead, ringWrite } from './ring.js';
import { newSharedBuffer } from './shared-buffer.js';

const HEAD = 0, TAIL = 1, CLOSED = 2, WANT = 3;
const HEADER_BYTES = 16;
const PIPE_CAPACITY = 1 << 16;

export class StdinPipe {
  private readonly header: Int32Array;
  private readonly data: Uint8Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.header = new Int32Array(buffer, 0, 4);
    this.data = new Uint8Array(buffer, HEADER_BYTES);
  }

  /** An open pipe to be fed by the main thread, or a closed one holding `fixed`. */
  static create(fixed?: Uint8Array): StdinPipe {
    const capacity = fixed ? Math.max(1, fixed.length) : PIPE_CAPACITY;
    const pipe = new StdinPipe(newSharedBuffer(HEADER_BYTES + capacity));
    if (fixed) {
      pipe.data.set(fixed);
      pipe.header[HEAD] = fixed.length;
      pipe.header[CLOSED] = 1;
    }
    return pipe;
  }

  get capacity(): number { return this.data.length; }

  /** True once a reader has asked for input (the producer starts reading the host only then). */
  get wanted(): boolean { return Atomics.load(this.header, WANT) === 1; }
  get closed(): boolean { return Atomics.load(this.header, CLOSED) === 1; }

  /**
   * Bytes are ready, or the end is (poll_oneoff readiness). Asking counts as wanting input:
   * the producer is woken so that a poll on stdin eventually sees data.
   */
  ready(wake: () => void): boolean {
    if (this.closed || ((Atomics.load(this.header, HEAD) - Atomics.load(this.header, TAIL)) | 0) > 0) return true;
    if (Atomics.exchange(this.header, WANT, 1) === 0) wake();
    return false;
  }

  /**
   * Up to `max` bytes, waiting until at least one byte or the end is there; empty = end of input.
   * `wake` tells the producer a reader is waiting. Returns null instead of waiting when `wait` is
   * false and the pipe is empty.
   */
  read(max: number, wake: () => void, wait = true): Uint8Array | null {
    for (;;) {
      const tail = Atomics.load(this.header, TAIL);
      const head = Atomics.load(this.header, HEAD);
      const n = Math.min(max, (head - tail) | 0);
      if (n > 0) {
        // Copy before claiming: bytes in [TAIL, HEAD) are stable until TAIL moves past them,
        // and the producer may reuse them the moment it does.
        const out = ringRead(this.data, tail, n);
        if (Atomics.compareExchange(this.header, TAIL, tail, (tail + n) | 0) !== tail) continue;
        Atomics.notify(this.header, TAIL); // the producer may be waiting for room
        return out;
      }
      if (this.closed) return new Uint8Array(0);
      if (!wait) return null;
      if (Atomics.exchange(this.header, WANT, 1) === 0) wake();
      // Timed, so a wake-up that raced with this wait only costs a moment.
      Atomics.wait(this.header, HEAD, head, 100);
    }
  }

  /**
   * Resolves once a producer has written (or closed) after this call, or after 100 ms (a write
   * that raced with the call): the asynchronous form of `read`'s wait, for a hosted thread.
   */
  written(): Promise<unknown> {
    const w = Atomics.waitAsync(this.header, HEAD, Atomics.load(this.header, HEAD), 100);
    return w.async ? w.value : Promise.resolve();
  }

  /** Producer: appends as much of `bytes` as fits; returns how many were taken. */
  write(bytes: Uint8Array): number {
    const head = this.header[HEAD]!;
    const tail = Atomics.load(this.header, TAIL);
    const n = Math.min(bytes.length, this.capacity - ((head - tail) | 0));
    ringWrite(this.data, head, bytes.subarray(0, n));
    Atomics.store(this.header, HEAD, (head + n) | 0);
    Atomics.notify(this.header, HEAD);
    return n;
  }

  /** Producer: end of input. */
  close(): void {
    Atomics.store(this.header, CLOSED, 1);
    Atomics.notify(this.header, HEAD);
  }
}
