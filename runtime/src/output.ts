/**
 * Where a program's stdout and stderr bytes go.
 *
 * Two routes, chosen per stream when the program starts:
 * - `fd`: the writing thread itself writes to a host file descriptor with a synchronous write
 *   (Node's process fd 1/2). Nothing is buffered, so nothing can be lost at exit, and one thread's
 *   writes reach the fd in order.
 * - `ring`: the writing thread copies the bytes into a shared ring buffer and wakes the main
 *   thread, which drains the ring into the user's callback. Used for callbacks and in browsers.
 *   At exit the main thread drains the rings before it resolves, so bytes written before the end
 *   are delivered.
 *
 * Ring layout (per stream): Int32 header [LOCK, HEAD, TAIL, unused] then CAPACITY data bytes.
 * HEAD and TAIL are byte counters that wrap at 2^32; HEAD - TAIL is the number of unread bytes,
 * always <= CAPACITY. Writers (any thread) hold LOCK while they copy and advance HEAD; the single
 * reader (the main thread) advances TAIL without the lock. A writer that finds the ring full waits
 * on TAIL with a timeout (so a lost wake-up only costs time), or, on a thread that may not wait,
 * hands the ring to `drainInline`.
 */
import type { Control } from './control.js';
import { ringRead, ringWrite } from './ring.js';
import { newSharedBuffer } from './shared-buffer.js';

const CAPACITY = 1 << 18; // 256 KiB per stream; a power of two
const HEADER_BYTES = 16;
const RING_BYTES = HEADER_BYTES + CAPACITY;
const LOCK = 0, HEAD = 1, TAIL = 2;

export type StreamRoute = 'fd' | 'ring';

export class OutputRings {
  constructor(readonly buffer: SharedArrayBuffer) {}

  static create(): OutputRings {
    return new OutputRings(newSharedBuffer(2 * RING_BYTES));
  }

  private header(stream: 0 | 1): Int32Array {
    return new Int32Array(this.buffer, stream * RING_BYTES, 4);
  }
  private data(stream: 0 | 1): Uint8Array {
    return new Uint8Array(this.buffer, stream * RING_BYTES + HEADER_BYTES, CAPACITY);
  }

  /**
   * Appends all of `bytes` to `stream` (0 = stdout, 1 = stderr). Blocks while the ring is full,
   * unless `drainInline` is given (the caller is the main thread, which must drain itself).
   */
  write(stream: 0 | 1, bytes: Uint8Array, ctl: Control, drainInline?: () => void): void {
    const h = this.header(stream);
    const data = this.data(stream);
    let off = 0;
    while (off < bytes.length) {
      while (Atomics.compareExchange(h, LOCK, 0, 1) !== 0) { /* a copy is short: spin */ }
      const head = h[HEAD]!;
      const tail = Atomics.load(h, TAIL);
      const n = Math.min(CAPACITY - ((head - tail) | 0), bytes.length - off);
      ringWrite(data, head, bytes.subarray(off, off + n));
      Atomics.store(h, HEAD, (head + n) | 0);
      Atomics.store(h, LOCK, 0);
      off += n;
      ctl.wakeMain();
      if (off < bytes.length) {
        if (drainInline) drainInline();
        else Atomics.wait(h, TAIL, tail, 50);
      }
    }
  }

  /** Takes every unread byte of `stream` (main thread only). Returns null when empty. */
  drain(stream: 0 | 1): Uint8Array | null {
    const h = this.header(stream);
    const head = Atomics.load(h, HEAD);
    const tail = h[TAIL]!;
    const n = (head - tail) | 0;
    if (n === 0) return null;
    const out = ringRead(this.data(stream), tail, n);
    Atomics.store(h, TAIL, head);
    Atomics.notify(h, TAIL);
    return out;
  }
}
