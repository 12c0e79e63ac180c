/**
 * Bounds-checked little-endian access to one instance's linear memory, and the one place strings
 * become UTF-8 (and back).
 *
 * Invariants:
 * - Every access goes through `range`, which fails the WASI call with EFAULT for any non-empty
 *   range outside memory: a guest never sees a RangeError, and never a partial write caused by
 *   a later out-of-bounds pointer when callers validate first (they do: see `iovecs`).
 * - Pointers and lengths arrive from wasm as signed i32; `range` reinterprets them as u32.
 * - The cached views are only a fast path. Memory only grows and a shared buffer never detaches,
 *   so a cached view is always correct for the bytes it covers; an access past its end re-reads
 *   `memory.buffer` (another thread may have grown the memory, or a non-shared memory may have been
 *   replaced), refreshed with `memory.grow(0)` if it is still short (`currentBuffer`), before
 *   deciding EFAULT. This saves re-reading `memory.buffer` (tens of ns on a
 *   growable shared memory) on every call.
 * - `range` may replace the cached views: always call it BEFORE reading `this.bytes`/`this.data`
 *   (never `this.data.getX(this.range(...))`, which would use the stale view).
 * - Views returned by `view` alias guest memory: use them before the next access, never keep them.
 *   `copy` returns bytes in a fresh, non-shared buffer (safe to keep, post, or decode in browsers).
 *
 * Thread rules: one `GuestMemory` per wasm instance, used only on that instance's thread.
 */
import {
  ERRNO_FAULT, ERRNO_ILSEQ, FDSTAT_FILETYPE, FDSTAT_FLAGS, FDSTAT_RIGHTS_BASE, FDSTAT_RIGHTS_INHERITING, FDSTAT_SIZE, FILESTAT_ATIM, FILESTAT_CTIM, FILESTAT_DEV, FILESTAT_FILETYPE, FILESTAT_INO, FILESTAT_MTIM,
  FILESTAT_NLINK, FILESTAT_SIZE, FILESTAT_SIZE_FIELD, IOVEC_SIZE,
} from './constants.js';
import { fail } from './errno.js';
import { isSharedBuffer } from '../shared-buffer.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Up to this many bytes, a copy is a plain loop: cheaper than `set` over a fresh `subarray` for
 * the paths and structs (filestat: 64 bytes) that cross on every file operation.
 */
const SHORT_COPY = 64;

/** UTF-8 bytes of `s`. Every size the guest sees is computed from these bytes. */
export function utf8(s: string): Uint8Array {
  return encoder.encode(s);
}

/** A list of guest buffers (an iovec array), validated in full. */
export interface IoVecs {
  readonly ptrs: number[];
  readonly lens: number[];
  /** Sum of `lens`. */
  readonly total: number;
}

export class GuestMemory {
  // Empty until the first access: `memory` may be a stand-in whose buffer exists only once the
  // instance that exports it has been created (the core builds imports before instantiating).
  private bytes = new Uint8Array(0);
  private data = new DataView(new ArrayBuffer(0));
  /** `view`'s last result, its start and the `bytes` it is a view of. */
  private lastView: Uint8Array = new Uint8Array(0);
  private lastStart = -1;
  private lastOf = this.bytes;
  /** `string`'s copy of the guest's bytes, reused (grown when a longer string comes). */
  private scratch = new Uint8Array(256);
  /** What `iovecs` returns, reused (see there). */
  private readonly iov: { ptrs: number[]; lens: number[]; total: number } = { ptrs: [], lens: [], total: 0 };

  constructor(private readonly memory: WebAssembly.Memory) {}

  /**
   * Checks that [ptr, ptr + len) lies in memory; returns ptr as u32. Fails with EFAULT. An empty
   * range is valid wherever it starts: nothing will be touched (as wasmtime, which never reads
   * through a pointer to zero items).
   */
  range(ptr: number, len: number): number {
    const start = ptr >>> 0;
    const end = start + (len >>> 0);
    if (end > this.bytes.length && end !== start) {
      this.refresh(end);
      if (end > this.bytes.length) fail(ERRNO_FAULT);
    }
    return start;
  }

  getU8(ptr: number): number {
    const at = this.range(ptr, 1);
    return this.data.getUint8(at);
  }
  getU16(ptr: number): number {
    const at = this.range(ptr, 2);
    return this.data.getUint16(at, true);
  }
  getU32(ptr: number): number {
    const at = this.range(ptr, 4);
    return this.data.getUint32(at, true);
  }
  getU64(ptr: number): bigint {
    const at = this.range(ptr, 8);
    return this.data.getBigUint64(at, true);
  }

  setU8(ptr: number, value: number): void {
    const at = this.range(ptr, 1);
    this.data.setUint8(at, value);
  }
  setU16(ptr: number, value: number): void {
    const at = this.range(ptr, 2);
    this.data.setUint16(at, value, true);
  }
  setU32(ptr: number, value: number): void {
    const at = this.range(ptr, 4);
    this.data.setUint32(at, value, true);
  }
  setU64(ptr: number, value: bigint): void {
    const at = this.range(ptr, 8);
    this.data.setBigUint64(at, BigInt.asUintN(64, value), true);
  }

  /** Writes a u64 known to be in [0, 2^64) (no wrap-around conversion). */
  setU64Unsigned(ptr: number, value: bigint): void {
    const at = this.range(ptr, 8);
    this.data.setBigUint64(at, value, true);
  }

  /** Writes a non-negative integer-valued double < 2^64 as a u64 without going through BigInt. */
  setU64FromNumber(ptr: number, value: number): void {
    const at = this.range(ptr, 8);
    this.data.setUint32(at, value % 4294967296, true);
    this.data.setUint32(at + 4, Math.floor(value / 4294967296), true);
  }

  /**
   * A view of guest bytes [ptr, ptr + len). Aliases memory: use at once, never keep. The last
   * view is returned again for the same range (a program that writes from one buffer in a loop):
   * a view is an allocation and a builtin call, a good part of a small file write.
   */
  view(ptr: number, len: number): Uint8Array {
    const start = this.range(ptr, len);
    const n = len >>> 0;
    const last = this.lastView;
    if (start === this.lastStart && last.length === n && this.lastOf === this.bytes) return last;
    const v = this.bytes.subarray(start, start + n);
    this.lastView = v;
    this.lastStart = start;
    this.lastOf = this.bytes;
    return v;
  }

  /**
   * All of memory, after checking [ptr, ptr + len) (EFAULT), for a host call that takes a buffer
   * and an offset in it (`ptr >>> 0`): no view made per call. Aliases memory as `view` does.
   */
  whole(ptr: number, len: number): Uint8Array {
    this.range(ptr, len);
    return this.bytes;
  }

  /** A copy of guest bytes [ptr, ptr + len) in a fresh non-shared buffer. */
  copy(ptr: number, len: number): Uint8Array {
    return this.view(ptr, len).slice();
  }

  /** Writes all of `src` at `ptr`. */
  write(ptr: number, src: Uint8Array): void {
    const start = this.range(ptr, src.length);
    this.bytes.set(src, start);
  }

  /**
   * Writes a filestat (witx layout) at `ptr` after one bounds check: its padding zeroed, each u64
   * as `setBigUint64` converts it (modulo 2^64: a host's signed 64-bit value, such as an inode
   * number Node read as an int64, lands as its unsigned bits).
   */
  setFilestat(ptr: number, dev: bigint, ino: bigint, filetype: number, nlink: bigint, size: bigint, atim: bigint, mtim: bigint, ctim: bigint): void {
    const at = this.range(ptr, FILESTAT_SIZE);
    const d = this.data;
    d.setBigUint64(at + FILESTAT_DEV, dev, true);
    d.setBigUint64(at + FILESTAT_INO, ino, true);
    // The filetype's u8 and its 7 bytes of padding.
    d.setUint32(at + FILESTAT_FILETYPE, filetype & 0xff, true);
    d.setUint32(at + FILESTAT_FILETYPE + 4, 0, true);
    d.setBigUint64(at + FILESTAT_NLINK, nlink, true);
    d.setBigUint64(at + FILESTAT_SIZE_FIELD, size, true);
    d.setBigUint64(at + FILESTAT_ATIM, atim, true);
    d.setBigUint64(at + FILESTAT_MTIM, mtim, true);
    d.setBigUint64(at + FILESTAT_CTIM, ctim, true);
  }

  /** Writes an fdstat (witx layout) at `ptr` after one bounds check, its padding zeroed. */
  setFdstat(ptr: number, filetype: number, flags: number, rightsBase: bigint, rightsInheriting: bigint): void {
    const at = this.fdstatHead(ptr, filetype, flags);
    this.data.setBigUint64(at + FDSTAT_RIGHTS_BASE, rightsBase, true);
    this.data.setBigUint64(at + FDSTAT_RIGHTS_INHERITING, rightsInheriting, true);
  }

  /**
   * `setFdstat` with each right as two u32 words (low, high: the bits of its u64), for a caller
   * that holds them so (the shared fd table): the same bytes, no BigInt.
   */
  setFdstatWords(ptr: number, filetype: number, flags: number, baseLow: number, baseHigh: number, inheritingLow: number, inheritingHigh: number): void {
    const at = this.fdstatHead(ptr, filetype, flags);
    const d = this.data;
    d.setUint32(at + FDSTAT_RIGHTS_BASE, baseLow, true);
    d.setUint32(at + FDSTAT_RIGHTS_BASE + 4, baseHigh, true);
    d.setUint32(at + FDSTAT_RIGHTS_INHERITING, inheritingLow, true);
    d.setUint32(at + FDSTAT_RIGHTS_INHERITING + 4, inheritingHigh, true);
  }

  /**
   * An fdstat's first 8 bytes at `ptr` after one bounds check of the whole struct: the filetype's
   * u8 and its padding byte, the flags' u16, then 4 bytes of padding. Returns where it starts.
   */
  private fdstatHead(ptr: number, filetype: number, flags: number): number {
    const at = this.range(ptr, FDSTAT_SIZE);
    this.data.setUint32(at + FDSTAT_FILETYPE, filetype & 0xff, true);
    this.data.setUint16(at + FDSTAT_FLAGS, flags, true);
    this.data.setUint32(at + FDSTAT_FILETYPE + 4, 0, true);
    return at;
  }

  /** Zeroes `len` bytes at `ptr` (struct results start from zero padding). */
  zero(ptr: number, len: number): void {
    const start = this.range(ptr, len);
    this.bytes.fill(0, start, start + len);
  }

  /**
   * Decodes the UTF-8 string at [ptr, ptr + len). Fails with EFAULT, or EILSEQ if not UTF-8. The
   * bytes are copied (TextDecoder refuses views of a SharedArrayBuffer in browsers) into this
   * memory's reused scratch buffer, not a fresh one: a path crosses on every file call, and a
   * fresh ArrayBuffer each time is an allocation outside the heap for the GC to track and free.
   */
  string(ptr: number, len: number): string {
    const start = this.range(ptr, len);
    const n = len >>> 0;
    if (n > this.scratch.length) this.scratch = new Uint8Array(Math.max(n, 2 * this.scratch.length));
    const s = this.scratch;
    const b = this.bytes;
    if (n <= SHORT_COPY) {
      for (let i = 0; i < n; i++) s[i] = b[start + i]!;
    } else {
      s.set(b.subarray(start, start + n));
    }
    try {
      return decoder.decode(s.subarray(0, n));
    } catch {
      return fail(ERRNO_ILSEQ);
    }
  }

  /**
   * Checks what `string` checks (EFAULT, then EILSEQ unless valid UTF-8) without decoding: for a
   * caller that passes the bytes on as they are (fd-table.ts, `RawPathDirectory`). An ASCII path
   * (the usual case) is one scan; anything else is decoded once to validate it.
   */
  checkUtf8(ptr: number, len: number): void {
    const start = this.range(ptr, len);
    const end = start + (len >>> 0);
    const b = this.bytes;
    for (let i = start; i < end; i++) {
      if (b[i]! >= 0x80) {
        this.string(ptr, len);
        return;
      }
    }
  }

  /** Copies guest bytes [ptr, ptr + len) into `dst` at `at` (which must have room). */
  copyInto(ptr: number, len: number, dst: Uint8Array, at: number): void {
    const start = this.range(ptr, len);
    const n = len >>> 0;
    if (n <= SHORT_COPY) {
      const b = this.bytes;
      for (let i = 0; i < n; i++) dst[at + i] = b[start + i]!;
    } else {
      dst.set(this.bytes.subarray(start, start + n), at);
    }
  }

  /**
   * Writes `count` u32 words of `src` from word `from` at guest `ptr` (EFAULT if they do not fit),
   * little-endian: a struct another wasm memory wrote in witx layout (the memory FS's filestat).
   * A word loop costs a fraction of a byte loop or a `set` over a fresh subarray at this size.
   */
  writeWords(ptr: number, src: Uint32Array, from: number, count: number): void {
    const start = this.range(ptr, count * 4);
    const d = this.data;
    for (let i = 0; i < count; i++) d.setUint32(start + 4 * i, src[from + i]!, true);
  }

  /**
   * Reads and validates `count` iovecs at `ptr` (and every buffer they name). The result is this
   * memory's one reusable `IoVecs`: valid until the next `iovecs` call, so use it within the WASI
   * call (no call re-enters another on the same instance) and never keep it.
   */
  iovecs(ptr: number, count: number): IoVecs {
    const n = count >>> 0;
    const base = this.range(ptr, n * IOVEC_SIZE);
    const v = this.iov;
    if (v.ptrs.length !== n) v.ptrs.length = v.lens.length = n;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const buf = this.getU32(base + i * IOVEC_SIZE);
      const len = this.getU32(base + i * IOVEC_SIZE + 4);
      this.range(buf, len);
      v.ptrs[i] = buf;
      v.lens[i] = len;
      total += len;
    }
    v.total = total;
    return v;
  }

  /** Copies all bytes named by `iovs` into one fresh buffer, in order. */
  gather(iovs: IoVecs): Uint8Array {
    const out = new Uint8Array(iovs.total);
    let at = 0;
    for (let i = 0; i < iovs.ptrs.length; i++) {
      out.set(this.view(iovs.ptrs[i], iovs.lens[i]), at);
      at += iovs.lens[i];
    }
    return out;
  }

  /** Copies `src` into the buffers named by `iovs`, in order; returns the bytes placed. */
  scatter(iovs: IoVecs, src: Uint8Array): number {
    let at = 0;
    for (let i = 0; i < iovs.ptrs.length && at < src.length; i++) {
      const n = Math.min(iovs.lens[i], src.length - at);
      this.write(iovs.ptrs[i], src.subarray(at, at + n));
      at += n;
    }
    return at;
  }

  private refresh(end: number): void {
    const buffer = currentBuffer(this.memory, end);
    this.bytes = new Uint8Array(buffer);
    this.data = new DataView(buffer);
  }
}

/**
 * The memory's buffer, made to reach `end` if the memory does. V8 refreshes a thread's view of a
 * shared memory that another thread grew lazily, in wasm (growth-guard.ts) and, since Chrome 149
 * (crbug 492128992), in JS `memory.buffer` too: a buffer shorter than `end` is refreshed with
 * `memory.grow(0)` (as emnapi #217 does) before the caller concludes that `end` is out of bounds.
 * Only for a shared memory: on an unshared one, grow(0) would detach every view of the old buffer,
 * and no other thread can have grown it.
 */
export function currentBuffer(memory: WebAssembly.Memory, end: number): ArrayBuffer {
  const buffer = memory.buffer;
  if (buffer.byteLength >= end || !isSharedBuffer(buffer) || typeof memory.grow !== 'function') return buffer;
  memory.grow(0);
  return memory.buffer;
}
