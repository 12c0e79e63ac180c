/**
 * The request channel between a program's threads and the OPFS I/O worker: one
 * SharedArrayBuffer per program holding a byte ring of requests, the sequence counters, a
 * response area (for loading a mount) and a table of deferred write-back errors.
 *
 * Producers are the program's threads (opfs-imports.ts), always on workers (they may block in
 * Atomics.wait), and the program's owner while it sets up OPFS mounts of the runtime's shared FS
 * (opfs-owner.ts: before any program thread exists, never blocking); the one consumer is the
 * I/O worker (opfs-io-worker.ts), which never blocks (Atomics.waitAsync) because OPFS calls are
 * promises.
 *
 * Invariants:
 * - `HEAD <= TAIL` (as byte counts mod 2^32) and `TAIL - HEAD <= RING_BYTES`; the bytes between
 *   them are complete records; a producer publishes a record by storing TAIL after writing it.
 * - Records are 8-byte aligned; a record never wraps: a producer fills the rest of the ring with
 *   a PAD record (or, if fewer than a header's bytes remain, with nothing: the consumer skips
 *   such a tail).
 * - Every record has a sequence number, given under the producer lock in ring order, so `DONE`
 *   (the last record the consumer finished) only grows and "DONE >= s" means every record up to
 *   s is done.
 * - The producer lock (`LOCK`) also makes a multi-record request (a file's BEGIN, DATA..., END)
 *   contiguous, and serialises users of the response area.
 *
 * Record header, 8 little-endian u32: size (whole record), seq, op, mount, aLen, bLen, dataLen,
 * arg; then a's bytes, b's bytes, data.
 */
import { newSharedBuffer } from '../shared-buffer.js';

export const OP = {
  PAD: 0,
  WRITE_BEGIN: 1,
  MKDIR: 2,
  UNLINK: 3,
  RMDIR: 4,
  RENAME: 5,
  BARRIER: 6,
  WRITE_DATA: 7,
  WRITE_END: 8,
  LOAD: 9,
  LOAD_CHUNK: 10,
  /** A whole file in one record (up to CHUNK_BYTES): BEGIN + DATA + END in one. */
  WRITE: 11,
} as const;

/** WASI errno values the channel carries. */
export const ERRNO = { IO: 29, INVAL: 28, NOENT: 44, NOSPC: 51, NOTSUP: 58 } as const;

const W_LOCK = 0;
const W_TAIL = 1;
const W_HEAD = 2;
const W_SEQ = 3;
const W_DONE = 4;
const W_RESP_STATUS = 5;
const W_RESP_MOUNT = 6;
const W_RESP_LEN = 7;
/** 1 while the consumer sleeps on TAIL (producers notify only then). */
const W_SLEEPING = 8;
/** Bumped by a producer that waits (fsync, load): the consumer stops gathering and serves now. */
const W_URGENT = 9;
/** How long the consumer gathers records after the first one before it writes (idle delay). */
export const GATHER_MS = 10;
/** How many errors were ever stored (0: takeError need not look). */
const W_ERRORS = 10;
const ERR_BASE = 16;
const ERR_SLOTS = 64;
const RING_OFF = 1024;
/** Ring size; a file larger than a chunk goes as several DATA records. */
export const RING_BYTES = 4 << 20;
export const CHUNK_BYTES = 1 << 20;
const RESP_OFF = RING_OFF + RING_BYTES;
export const RESP_BYTES = 1 << 20;
const HEADER = 32;

/** A record as the consumer sees it (its byte fields copied out of the ring). */
export interface OpfsRecord {
  seq: number;
  op: number;
  mount: number;
  a: string;
  b: string;
  data: Uint8Array;
  arg: number;
}

export function createChannel(): SharedArrayBuffer {
  return newSharedBuffer(RESP_OFF + RESP_BYTES);
}

const align8 = (n: number): number => (n + 7) & ~7;

/** FNV-1a over the mount and the path: the key of a file's deferred error (never 0). */
export function errorKey(mount: number, path: Uint8Array | string): number {
  const bytes = typeof path === 'string' ? new TextEncoder().encode(path) : path;
  let h = (0x811c9dc5 ^ mount) >>> 0;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return (h | 1) >>> 0;
}

/** The view both sides use. */
export class Channel {
  readonly words: Int32Array;
  readonly bytes: Uint8Array;

  constructor(readonly sab: SharedArrayBuffer) {
    this.words = new Int32Array(sab, 0, RING_OFF / 4);
    this.bytes = new Uint8Array(sab);
  }

  // ---- producer side (program threads; may block) ------------------------------------------

  lock(): void {
    while (Atomics.compareExchange(this.words, W_LOCK, 0, 1) !== 0) Atomics.wait(this.words, W_LOCK, 1, 5);
  }

  unlock(): void {
    Atomics.store(this.words, W_LOCK, 0);
    Atomics.notify(this.words, W_LOCK, 1);
  }

  /**
   * Appends one record (under the lock); `a`/`b`/`data` are copied into the ring before this
   * returns. Blocks while the ring is full. Returns its sequence number.
   */
  put(op: number, mount: number, a: Uint8Array, b: Uint8Array, data: Uint8Array, arg = 0): number {
    const size = align8(HEADER + a.length + b.length + data.length);
    if (size > RING_BYTES / 2) throw new RangeError('opfs channel: record too large');
    let tail = Atomics.load(this.words, W_TAIL) >>> 0;
    const rest = RING_BYTES - (tail % RING_BYTES);
    const pad = rest < size ? rest : 0;
    this.waitForRoom(tail, pad + size);
    if (pad >= HEADER) this.header(tail % RING_BYTES, [pad, 0, OP.PAD, 0, 0, 0, 0, 0]);
    tail = (tail + pad) >>> 0;
    const seq = (Atomics.load(this.words, W_SEQ) + 1) | 0;
    Atomics.store(this.words, W_SEQ, seq);
    const at = tail % RING_BYTES;
    this.header(at, [size, seq, op, mount, a.length, b.length, data.length, arg]);
    let p = RING_OFF + at + HEADER;
    this.bytes.set(a, p); p += a.length;
    this.bytes.set(b, p); p += b.length;
    this.bytes.set(data, p);
    Atomics.store(this.words, W_TAIL, (tail + size) | 0);
    if (Atomics.load(this.words, W_SLEEPING)) Atomics.notify(this.words, W_TAIL);
    return seq;
  }

  private waitForRoom(tail: number, need: number): void {
    for (;;) {
      const head = Atomics.load(this.words, W_HEAD);
      if (RING_BYTES - ((tail - (head >>> 0)) >>> 0) >= need) return;
      Atomics.wait(this.words, W_HEAD, head, 100);
    }
  }

  private header(at: number, fields: number[]): void {
    const view = new DataView(this.sab, RING_OFF + at, HEADER);
    fields.forEach((v, i) => view.setUint32(i * 4, v >>> 0, true));
  }

  /** Tells the I/O worker someone waits: counts an urgent request and wakes it wherever it sleeps. */
  private hurry(): void {
    Atomics.add(this.words, W_URGENT, 1);
    Atomics.notify(this.words, W_URGENT);
    Atomics.notify(this.words, W_TAIL);
  }

  /** Blocks until every record up to `seq` is done. */
  waitDone(seq: number): void {
    if (Atomics.load(this.words, W_DONE) - seq < 0) this.hurry();
    for (;;) {
      const done = Atomics.load(this.words, W_DONE);
      if (done - seq >= 0) return;
      Atomics.wait(this.words, W_DONE, done, 1000);
    }
  }

  // ---- the owner's side (program setup on the page: never blocks) ------------------------------

  /** `lock` without blocking: the owner may be a page's main thread, where Atomics.wait throws. */
  async lockAsync(): Promise<void> {
    while (Atomics.compareExchange(this.words, W_LOCK, 0, 1) !== 0) {
      const w = Atomics.waitAsync(this.words, W_LOCK, 1, 5);
      if (w.async) await w.value;
    }
  }

  /** `waitDone` without blocking. */
  async waitDoneAsync(seq: number): Promise<void> {
    this.hurry();
    for (;;) {
      const done = Atomics.load(this.words, W_DONE);
      if (done - seq >= 0) return;
      const w = Atomics.waitAsync(this.words, W_DONE, done, 1000);
      if (w.async) await w.value;
    }
  }

  /** The deferred error stored for `key`, cleared (0: none). */
  takeError(key: number): number {
    if (Atomics.load(this.words, W_ERRORS) === 0) return 0;
    for (let i = 0; i < ERR_SLOTS; i++) {
      const w = ERR_BASE + 2 * i;
      if (Atomics.load(this.words, w) >>> 0 === key) return Atomics.exchange(this.words, w + 1, 0);
    }
    return 0;
  }

  response(): { status: number; mount: number; length: number } {
    return {
      status: Atomics.load(this.words, W_RESP_STATUS),
      mount: Atomics.load(this.words, W_RESP_MOUNT),
      length: Atomics.load(this.words, W_RESP_LEN) >>> 0,
    };
  }

  responseBytes(length: number): Uint8Array {
    return this.bytes.subarray(RESP_OFF, RESP_OFF + length);
  }

  // ---- consumer side (the I/O worker; never blocks) ------------------------------------------

  /** The next record, copied out of the ring (and the ring space freed), or null if none. */
  take(): OpfsRecord | null {
    for (;;) {
      const head = Atomics.load(this.words, W_HEAD) >>> 0;
      const tail = Atomics.load(this.words, W_TAIL) >>> 0;
      if (head === tail) return null;
      const at = head % RING_BYTES;
      if (RING_BYTES - at < HEADER) { this.advance(head, RING_BYTES - at); continue; }
      const v = new DataView(this.sab, RING_OFF + at, HEADER);
      const f = (i: number): number => v.getUint32(i * 4, true);
      if (f(2) === OP.PAD) { this.advance(head, f(0)); continue; }
      const dec = new TextDecoder();
      let p = RING_OFF + at + HEADER;
      const a = dec.decode(this.bytes.slice(p, p + f(4))); p += f(4);
      const b = dec.decode(this.bytes.slice(p, p + f(5))); p += f(5);
      const data = this.bytes.slice(p, p + f(6));
      const rec = { seq: f(1) | 0, op: f(2), mount: f(3), a, b, data, arg: f(7) };
      this.advance(head, f(0));
      return rec;
    }
  }

  private advance(head: number, by: number): void {
    Atomics.store(this.words, W_HEAD, (head + by) | 0);
    Atomics.notify(this.words, W_HEAD);
  }

  /** Resolves when a producer may have published a record (or after half a second). */
  async waitForWork(): Promise<void> {
    Atomics.store(this.words, W_SLEEPING, 1);
    const tail = Atomics.load(this.words, W_TAIL);
    if (tail === Atomics.load(this.words, W_HEAD)) {
      // With a timeout, so the I/O worker notices the end of the program while idle.
      const w = Atomics.waitAsync(this.words, W_TAIL, tail, 500);
      if (w.async) await w.value;
    }
    Atomics.store(this.words, W_SLEEPING, 0);
  }

  /**
   * After waking for a first record: lets producers add more for up to GATHER_MS (so rewrites
   * of the same file coalesce and the program's bursts of closes are not each followed by OPFS
   * work on the other core), unless a producer is waiting for the result.
   */
  async gather(): Promise<void> {
    const urgent = Atomics.load(this.words, W_URGENT);
    const w = Atomics.waitAsync(this.words, W_URGENT, urgent, GATHER_MS);
    if (w.async) await w.value;
  }

  finished(seq: number): void {
    Atomics.store(this.words, W_DONE, seq);
    Atomics.notify(this.words, W_DONE);
  }

  /** Records a write-back error for a file, for its next fsync or close. */
  setError(key: number, errno: number): void {
    for (let i = 0; i < ERR_SLOTS; i++) {
      const w = ERR_BASE + 2 * i;
      const k = Atomics.load(this.words, w) >>> 0;
      if (k === key || k === 0 || Atomics.load(this.words, w + 1) === 0) {
        Atomics.store(this.words, w, key | 0);
        Atomics.store(this.words, w + 1, errno);
        Atomics.add(this.words, W_ERRORS, 1);
        return;
      }
    }
  }

  respond(status: number, mount: number, length: number, bytes?: Uint8Array): void {
    if (bytes) this.bytes.set(bytes, RESP_OFF);
    Atomics.store(this.words, W_RESP_STATUS, status);
    Atomics.store(this.words, W_RESP_MOUNT, mount);
    Atomics.store(this.words, W_RESP_LEN, length);
  }
}
