/**
 * A program's stdin when it is given as bytes (not a host fd): one SharedArrayBuffer read by
 * any thread. Layout: Int32 [CURSOR, LENGTH] then LENGTH bytes. Reads claim a range with a CAS
 * on CURSOR, so concurrent readers never get the same byte twice.
 */
export class SharedInput {
  private readonly header: Int32Array;
  private readonly data: Uint8Array;

  constructor(buffer: SharedArrayBuffer) {
    this.header = new Int32Array(buffer, 0, 2);
    this.data = new Uint8Array(buffer, 8);
  }

  static create(bytes: Uint8Array): SharedArrayBuffer {
    const buffer = new SharedArrayBuffer(8 + bytes.length);
    new Int32Array(buffer, 0, 2)[1] = bytes.length;
    new Uint8Array(buffer, 8).set(bytes);
    return buffer;
  }

  /** Up to `max` bytes; an empty array at the end. Never blocks. */
  read(max: number): Uint8Array {
    const length = this.header[1]!;
    for (;;) {
      const at = Atomics.load(this.header, 0);
      const n = Math.min(max, length - at);
      if (n <= 0) return new Uint8Array(0);
      if (Atomics.compareExchange(this.header, 0, at, at + n) === at) return this.data.slice(at, at + n);
    }
  }
}
