/**
 * The fd table of a program with a filesystem: ONE table for all its threads, in a
 * SharedArrayBuffer, so fds are per process as in POSIX and wasmtime: an fd opened on one thread
 * is usable on every other, and a close or renumber is seen by all.
 *
 * What is shared: for each fd number an entry of ENTRY_WORDS Int32 words (kind, generation, a
 * per-entry lock, the handle: a host OS fd or a memory-FS module fd, fdflags, filetype, rights,
 * the file offset) and, for host directories, the directory's host path (kept only where the
 * platform cannot reach names through the directory's OS fd: see platform/node/host-path.ts).
 * What is per thread: the `Descriptor` objects, materialized from the entry on first use by the
 * `EntryKinds` of that thread and cached with the entry's generation.
 *
 * Invariants:
 *   - KIND == FREE  <=>  the fd number is not open. Entries change only under the table lock
 *     (TABLE_LOCK); every change bumps GEN, so a cached descriptor is valid iff its GEN matches.
 *   - A module fd (MEMFS) is released exactly once, by the thread that closed the WASI fd (or
 *     renumbered another fd over it), after the entry left the table.
 *   - An OS fd (HOST_FILE, HOST_DIR) is closed only when no one uses it: OS_REFS[os] counts the
 *     entry holding it (1 while it is in the table) plus every call in flight on it (`pinOs`, as a
 *     kernel holds a file reference for the duration of a syscall); whoever drops the count to 0
 *     closes it. A pin is taken under the table lock and only if the entry still has the
 *     generation the caller's descriptor was made from, so a call never reaches an OS fd number
 *     after it was closed and reused (by another open, or by Node itself).
 *   - fds 0-2 are stdio (kinds STDIN/STDOUT/STDERR, served by each thread's own stdio
 *     descriptors); preopens follow at 3, 4, ... in the order configured (wasmtime's numbering).
 *
 * Thread rules: any thread may call any method. The table lock is held for a few word copies,
 * never across a host call; the entry lock (`withEntryLock`) serializes offset updates of one
 * open file description (read/write/seek on the same fd from several threads). Lock order: a pin
 * (table lock, released at once) before the entry lock; never the table lock inside the entry lock.
 *
 * Memory ordering: entry words (GEN included) are written with plain stores under the table lock
 * and published by the unlock (`Atomics.store`, sequentially consistent). `get` reads GEN and KIND
 * with plain loads: a thread that uses an fd after another thread opened or closed it has
 * synchronized with that thread through the program's own atomics (else the program races on the
 * fd, as it would on Linux), and that edge orders the unlock before the read. Each Atomics call
 * is a builtin call in V8, not an instruction, and these run on every WASI file call.
 */
import { ERRNO_BADF, ERRNO_MFILE, ERRNO_NAMETOOLONG } from '../wasi/constants.js';
import { fail } from '../wasi/errno.js';
import type { Descriptor, FdTable } from '../wasi/fd-table.js';
import type { GuestMemory } from '../wasi/guest-memory.js';
import { newSharedBuffer } from '../shared-buffer.js';

/** Most fds open at once (Linux's default soft limit); past it path_open fails with EMFILE. */
export const MAX_FDS = 1024;
/** Longest host path of a directory fd, in UTF-8 bytes (Linux's PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/**
 * OS fd numbers the table can hold (OS_REFS has a counter per number). An open that the OS gives
 * a higher number is closed again and fails with EMFILE.
 */
export const OS_FD_LIMIT = 65536;

const HEADER_BYTES = 64;
const TABLE_LOCK = 0; // header word
export const ENTRY_WORDS = 16;
const ENTRY_BYTES = ENTRY_WORDS * 4;

/** Entry fields (word index within the entry). */
export const KIND = 0;
export const GEN = 1;
const LOCK = 2;
/** Values of an entry's LOCK word: free, held, held with (maybe) a thread waiting for it. */
const UNLOCKED = 0, LOCKED = 1, CONTENDED = 2;
export const HANDLE = 3;
export const FDFLAGS = 4;
export const FILETYPE = 5;
/** Preopen number + 1 for a preopened directory, else 0. */
export const PREOPEN = 6;
/** Index of the mount (preopen) the fd was opened under: read-only-ness, backend. */
export const MOUNT = 7;
const RIGHTS_BASE = 8; // BigInt64 at byte 32
const RIGHTS_INHERITING = 10; // BigInt64 at byte 40
const OFFSET = 12; // BigInt64 at byte 48
const PATH_LEN = 14;
/** Kind-specific flags (e.g. the OS fd was opened with O_APPEND). */
export const AUX = 15;

/** Entry kinds. A kind names the per-thread code that materializes it (`EntryKinds`). */
export const FREE = 0;
export const STDIN = 1;
export const STDOUT = 2;
export const STDERR = 3;
export const HOST_FILE = 4;
export const HOST_DIR = 5;
export const MEMFS = 6;

/** The kinds whose HANDLE is an OS fd (reference-counted in OS_REFS). */
export function holdsOsFd(kind: number): boolean {
  return kind === HOST_FILE || kind === HOST_DIR;
}

/** What a new entry holds (everything but KIND/GEN/LOCK). */
export interface EntryInit {
  kind: number;
  handle?: number;
  fdflags?: number;
  filetype?: number;
  preopen?: number;
  mount?: number;
  rightsBase?: bigint;
  rightsInheriting?: bigint;
  aux?: number;
  path?: string;
}

/** A descriptor not yet in the table: `path_open`'s result, turned into an entry by `insert`. */
export interface PendingEntry extends Descriptor {
  readonly entry: EntryInit;
}

/** The per-thread side: makes descriptors of an entry, and releases an entry's resource. */
export interface EntryKinds {
  /** `gen`: the entry's generation, for `pinOs` (a descriptor is valid only for it). */
  materialize(table: SharedFdTable, fd: number, kind: number, gen: number): Descriptor;
  /**
   * Releases a resource that is not an OS fd (MEMFS). `d`: this thread's descriptor of that very
   * entry, when it has one (it may release through it).
   */
  release(table: SharedFdTable, kind: number, handle: number, aux: number, d?: Descriptor): void;
  /** Closes an OS fd whose last user is gone. */
  closeOs(os: number): void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Which Int32 word of a BigInt64 field holds its low 32 bits (typed arrays use the platform's byte
 * order): 0 on little-endian platforms, 1 on big-endian ones.
 */
const LOW = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;

export class SharedFdTable implements FdTable {
  readonly words: Int32Array;
  private readonly big: BigInt64Array;
  private readonly bytes: Uint8Array;
  private readonly pathBase: number;
  /** OS_REFS: users of each OS fd number (see the invariants). */
  private readonly osRefs: Int32Array;
  /**
   * This thread's descriptors by fd number, each valid while the entry's GEN equals
   * `cachedGen[fd]` (two flat arrays: no object per open).
   */
  private readonly cached: (Descriptor | undefined)[] = new Array(MAX_FDS).fill(undefined);
  private readonly cachedGen = new Int32Array(MAX_FDS);
  private kinds: EntryKinds | undefined;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer);
    this.big = new BigInt64Array(buffer);
    this.bytes = new Uint8Array(buffer);
    this.pathBase = HEADER_BYTES + MAX_FDS * ENTRY_BYTES;
    this.osRefs = new Int32Array(buffer, this.pathBase + MAX_FDS * MAX_PATH_BYTES, OS_FD_LIMIT);
  }

  /** A new table with stdio at 0-2 (made on the thread that sets the program up). */
  static create(): SharedFdTable {
    // The path area is MAX_FDS * 4 KiB of virtual memory; only pages written are ever touched.
    const t = new SharedFdTable(newSharedBuffer(HEADER_BYTES + MAX_FDS * (ENTRY_BYTES + MAX_PATH_BYTES) + OS_FD_LIMIT * 4));
    t.insertEntry({ kind: STDIN });
    t.insertEntry({ kind: STDOUT });
    t.insertEntry({ kind: STDERR });
    return t;
  }

  /** Sets this thread's materializer (once per thread, before the first `get`). */
  bind(kinds: EntryKinds): this {
    this.kinds = kinds;
    return this;
  }

  // --- FdTable ---------------------------------------------------------------------------

  get(fd: number): Descriptor {
    const i = fd >>> 0;
    if (i >= MAX_FDS) fail(ERRNO_BADF);
    const base = this.at(i);
    const w = this.words;
    for (;;) {
      // Plain loads (see "Memory ordering" above).
      const gen = w[base + GEN]!;
      const cached = this.cached[i];
      if (cached !== undefined && this.cachedGen[i] === gen) return cached;
      const kind = w[base + KIND]!;
      if (kind === FREE) fail(ERRNO_BADF);
      const d = this.kinds!.materialize(this, i, kind, gen);
      // Seqlock-style: if the entry changed while we read it, read it again.
      if (Atomics.load(w, base + GEN) !== gen) continue;
      this.remember(i, gen, d);
      return d;
    }
  }

  insert(d: Descriptor): number {
    // A host fd opened by path_open (PendingEntry), or a memory-FS descriptor (memfs.ts).
    const memFd = (d as { memFd?: number }).memFd;
    if (memFd !== undefined) return this.insertMemFs(memFd, d);
    const entry = (d as Partial<PendingEntry>).entry;
    if (!entry) throw new Error('spindle: only descriptors opened by the runtime filesystem can enter the shared fd table');
    try {
      return this.insertEntry(entry);
    } catch (e) {
      // Never in the table: nobody else can hold its OS fd.
      if (holdsOsFd(entry.kind)) this.kinds!.closeOs(entry.handle ?? -1);
      else this.kinds!.release(this, entry.kind, entry.handle ?? -1, entry.aux ?? 0);
      throw e;
    }
  }

  /**
   * `insertEntry({ kind: MEMFS, handle: memFd }, d)` without the entry object (a memory-FS open
   * is the hot case: one per file opened). `d` is valid on this thread as it is: cached, never
   * materialized a second time. On EMFILE the module fd is closed (through `d`), as `insert` does.
   */
  private insertMemFs(memFd: number, d: Descriptor): number {
    this.lock();
    const i = this.lowestFree();
    if (i === MAX_FDS) {
      this.unlock();
      d.close();
      return fail(ERRNO_MFILE);
    }
    const base = this.at(i);
    const w = this.words;
    w[base + HANDLE] = memFd;
    w[base + FDFLAGS] = 0;
    w[base + FILETYPE] = 0;
    w[base + PREOPEN] = 0;
    w[base + MOUNT] = -1;
    w[base + AUX] = 0;
    // Rights and offset: zero, word by word (no BigInt conversion).
    for (let k = RIGHTS_BASE; k < OFFSET + 2; k++) w[base + k] = 0;
    w[base + PATH_LEN] = 0;
    w[base + KIND] = MEMFS;
    // A plain bump under the lock, published by the unlock (see "Memory ordering").
    const gen = (w[base + GEN]! + 1) | 0;
    w[base + GEN] = gen;
    this.unlock();
    this.remember(i, gen, d);
    return i;
  }

  close(fd: number): void {
    const i = fd >>> 0;
    if (i >= MAX_FDS) fail(ERRNO_BADF);
    this.lock();
    const base = this.at(i);
    const w = this.words;
    const kind = w[base + KIND]!;
    if (kind === FREE) { this.unlock(); fail(ERRNO_BADF); }
    const handle = w[base + HANDLE]!, aux = w[base + AUX]!;
    w[base + KIND] = FREE;
    // A plain bump under the lock, published by the unlock (see "Memory ordering").
    const gen = w[base + GEN]!;
    w[base + GEN] = (gen + 1) | 0;
    this.unlock();
    const cached = this.cachedGen[i] === gen ? this.cached[i] : undefined;
    this.cached[i] = undefined;
    // This thread's descriptor of the entry just closed, if it has one (no second materialization).
    this.releaseResource(kind, handle, aux, cached);
  }

  /** As wasmtime: both fds must be open; `to` is closed and `from` takes its number. */
  renumber(from: number, to: number): void {
    const f = from >>> 0, t = to >>> 0;
    if (f >= MAX_FDS || t >= MAX_FDS) fail(ERRNO_BADF);
    this.lock();
    const fb = this.at(f), tb = this.at(t);
    if (this.words[fb + KIND] === FREE || this.words[tb + KIND] === FREE) { this.unlock(); fail(ERRNO_BADF); }
    if (f === t) { this.unlock(); return; }
    const kind = this.words[tb + KIND]!, handle = this.words[tb + HANDLE]!, aux = this.words[tb + AUX]!;
    for (let w = HANDLE; w < ENTRY_WORDS; w++) if (w !== LOCK) this.words[tb + w] = this.words[fb + w]!;
    const len = this.words[fb + PATH_LEN]!;
    this.bytes.copyWithin(this.pathAt(t), this.pathAt(f), this.pathAt(f) + len);
    this.words[tb + KIND] = this.words[fb + KIND]!;
    this.words[fb + KIND] = FREE;
    Atomics.add(this.words, fb + GEN, 1);
    Atomics.add(this.words, tb + GEN, 1);
    this.unlock();
    this.cached[f] = this.cached[t] = undefined;
    this.releaseResource(kind, handle, aux);
  }

  // --- entries -----------------------------------------------------------------------------

  /**
   * Opens `e` at the lowest free fd number (EMFILE when none is left). `d`: this thread's
   * descriptor for it, cached with the entry's new generation.
   */
  insertEntry(e: EntryInit, d?: Descriptor): number {
    const path = e.path === undefined ? undefined : encoder.encode(e.path);
    if (path && path.length > MAX_PATH_BYTES) fail(ERRNO_NAMETOOLONG);
    const os = holdsOsFd(e.kind) ? e.handle ?? -1 : -1;
    if (holdsOsFd(e.kind)) {
      if (os < 0 || os >= OS_FD_LIMIT) fail(ERRNO_MFILE);
      // The OS just gave this number out, so no entry or call of ours can still hold it.
      if (Atomics.compareExchange(this.osRefs, os, 0, 1) !== 0) {
        throw new Error(`spindle: OS fd ${os} was handed out while the fd table still holds it`);
      }
    }
    this.lock();
    const i = this.lowestFree();
    if (i === MAX_FDS) {
      this.unlock();
      if (os >= 0) Atomics.store(this.osRefs, os, 0);
      fail(ERRNO_MFILE);
    }
    const base = this.at(i);
    this.words[base + HANDLE] = e.handle ?? -1;
    this.words[base + FDFLAGS] = e.fdflags ?? 0;
    this.words[base + FILETYPE] = e.filetype ?? 0;
    this.words[base + PREOPEN] = e.preopen ?? 0;
    this.words[base + MOUNT] = e.mount ?? -1;
    this.words[base + AUX] = e.aux ?? 0;
    this.big[(base + RIGHTS_BASE) / 2] = BigInt.asIntN(64, e.rightsBase ?? 0n);
    this.big[(base + RIGHTS_INHERITING) / 2] = BigInt.asIntN(64, e.rightsInheriting ?? 0n);
    this.big[(base + OFFSET) / 2] = 0n;
    this.words[base + PATH_LEN] = path?.length ?? 0;
    if (path) this.bytes.set(path, this.pathAt(i));
    this.words[base + KIND] = e.kind;
    const gen = Atomics.add(this.words, base + GEN, 1) + 1;
    this.unlock();
    if (d) this.remember(i, gen, d);
    else this.cached[i] = undefined;
    return i;
  }

  /** A field of an open entry (read without the lock: single words are atomic). */
  field(fd: number, w: number): number {
    return Atomics.load(this.words, this.at(fd) + w);
  }
  setField(fd: number, w: number, value: number): void {
    Atomics.store(this.words, this.at(fd) + w, value);
  }
  rights(fd: number): { base: bigint; inheriting: bigint } {
    const b = this.at(fd);
    return {
      base: BigInt.asUintN(64, this.big[(b + RIGHTS_BASE) / 2]!),
      inheriting: BigInt.asUintN(64, this.big[(b + RIGHTS_INHERITING) / 2]!),
    };
  }
  /**
   * fd_fdstat_get's struct of entry `fd` at guest `ptr` (EFAULT as `GuestMemory.setFdstat`), the
   * flags and rights read from the entry's words as `field` and `rights` read them, with no BigInt
   * or object in between (a bundler asks its directory's fdstat before every open).
   */
  fdstatInto(fd: number, filetype: number, mem: GuestMemory, ptr: number): void {
    const b = this.at(fd);
    const w = this.words;
    mem.setFdstatWords(ptr, filetype, Atomics.load(w, b + FDFLAGS),
      w[b + RIGHTS_BASE + LOW]!, w[b + RIGHTS_BASE + 1 - LOW]!, w[b + RIGHTS_INHERITING + LOW]!, w[b + RIGHTS_INHERITING + 1 - LOW]!);
  }
  setRights(fd: number, base: bigint, inheriting: bigint): void {
    const b = this.at(fd);
    this.big[(b + RIGHTS_BASE) / 2] = BigInt.asIntN(64, base);
    this.big[(b + RIGHTS_INHERITING) / 2] = BigInt.asIntN(64, inheriting);
  }
  /** The file offset; read and written only inside `withEntryLock`. */
  offset(fd: number): bigint {
    return this.big[(this.at(fd) + OFFSET) / 2]!;
  }
  setOffset(fd: number, offset: bigint): void {
    this.big[(this.at(fd) + OFFSET) / 2] = offset;
  }
  /**
   * `offset` as a number when it is below 2^52 (an offset plus one read's length then stays an
   * exact integer), else -1 (use `offset`): the same words, with no BigInt. Inside `withEntryLock`.
   */
  offsetNumber(fd: number): number {
    const b = this.at(fd) + OFFSET;
    const high = this.words[b + 1 - LOW]!;
    return high >= 0 && high < 0x100000 ? high * 0x100000000 + (this.words[b + LOW]! >>> 0) : -1;
  }
  /** `setOffset` for an integer offset in [0, 2^53), with no BigInt. Inside `withEntryLock`. */
  setOffsetNumber(fd: number, offset: number): void {
    const b = this.at(fd) + OFFSET;
    this.words[b + LOW] = offset % 0x100000000 | 0;
    this.words[b + 1 - LOW] = Math.floor(offset / 0x100000000);
  }
  /** The host path of a directory entry. */
  path(fd: number): string {
    const len = this.words[this.at(fd) + PATH_LEN]!;
    // TextDecoder does not accept views of a SharedArrayBuffer: copy first.
    return decoder.decode(this.bytes.slice(this.pathAt(fd), this.pathAt(fd) + len));
  }

  /**
   * Runs `f` holding `fd`'s entry lock (waits, so never on a browser main thread), if the entry
   * still has generation `gen`; else the fd was closed (and its number maybe reused) since the
   * caller's descriptor was made: EBADF, as if the close came first.
   */
  withEntryLock<T>(fd: number, gen: number, f: () => T): T {
    const w = this.at(fd) + LOCK;
    if (Atomics.compareExchange(this.words, w, UNLOCKED, LOCKED) !== UNLOCKED) this.waitEntryLock(w);
    try {
      if (Atomics.load(this.words, this.at(fd) + GEN) !== gen) fail(ERRNO_BADF);
      return f();
    } finally {
      // Only a lock someone waited for is notified: Atomics.notify takes V8's one process-wide
      // futex mutex, which every wait and notify of the program's own threads (wasm atomics
      // included) also takes, so an unconditional notify per read or write could stall behind them.
      if (Atomics.exchange(this.words, w, UNLOCKED) === CONTENDED) Atomics.notify(this.words, w, 1);
    }
  }

  /**
   * The entry lock's slow path (Drepper's "Futexes are tricky", mutex 2): mark it CONTENDED and
   * sleep until it is released; the thread that gets it keeps it marked CONTENDED, so its release
   * wakes the next waiter, if any (a spurious notify at worst, never a lost one).
   */
  private waitEntryLock(w: number): void {
    while (Atomics.exchange(this.words, w, CONTENDED) !== UNLOCKED) Atomics.wait(this.words, w, CONTENDED);
  }

  /**
   * Takes a reference on the OS fd of entry `fd` for one call, if the entry still has generation
   * `gen` (the one the caller's descriptor was made from); returns the OS fd, or -1 when the fd
   * was closed or renumbered since. Every successful pin is followed by one `unpinOs`.
   */
  pinOs(fd: number, gen: number): number {
    const base = this.at(fd);
    this.lock();
    if (this.words[base + GEN] !== gen || !holdsOsFd(this.words[base + KIND]!)) {
      this.unlock();
      return -1;
    }
    const os = this.words[base + HANDLE]!;
    Atomics.add(this.osRefs, os, 1);
    this.unlock();
    return os;
  }

  /**
   * Puts OS fd `os` (just opened, on the same file) in place of entry `fd`'s, with `aux`, if the
   * entry still has generation `gen`; the old OS fd loses the entry's reference (calls in flight
   * on it finish on it). The generation stays: descriptors read the OS fd through `pinOs`.
   * Returns false (and holds no reference on `os`) when the entry changed.
   */
  replaceOs(fd: number, gen: number, os: number, aux: number): boolean {
    if (os < 0 || os >= OS_FD_LIMIT) fail(ERRNO_MFILE);
    if (Atomics.compareExchange(this.osRefs, os, 0, 1) !== 0) {
      throw new Error(`spindle: OS fd ${os} was handed out while the fd table still holds it`);
    }
    const base = this.at(fd);
    this.lock();
    if (this.words[base + GEN] !== gen || !holdsOsFd(this.words[base + KIND]!)) {
      this.unlock();
      Atomics.store(this.osRefs, os, 0);
      return false;
    }
    const old = this.words[base + HANDLE]!;
    this.words[base + HANDLE] = os;
    this.words[base + AUX] = aux;
    this.unlock();
    this.unpinOs(old);
    return true;
  }

  /** Drops one reference on OS fd `os`; the last one closes it. */
  unpinOs(os: number): void {
    if (Atomics.sub(this.osRefs, os, 1) === 1) this.kinds!.closeOs(os);
  }

  /**
   * The end of the program (every thread stopped): frees every entry and drops the table's
   * reference on each OS fd, closing those no call holds (`closeOs`). A call left pinned by a
   * worker that was stopped inside it keeps its OS fd open: leaked rather than reused under it.
   */
  closeAll(closeOs: (os: number) => void): void {
    for (let i = 0; i < MAX_FDS; i++) {
      this.lock();
      const b = this.at(i);
      const kind = this.words[b + KIND]!, handle = this.words[b + HANDLE]!;
      if (kind !== FREE) {
        this.words[b + KIND] = FREE;
        this.words[b + GEN] = (this.words[b + GEN]! + 1) | 0;
      }
      this.unlock();
      if (holdsOsFd(kind) && Atomics.sub(this.osRefs, handle, 1) === 1) closeOs(handle);
    }
  }

  /** Releases the resource of an entry that just left the table. */
  private releaseResource(kind: number, handle: number, aux: number, d?: Descriptor): void {
    if (holdsOsFd(kind)) this.unpinOs(handle);
    else this.kinds!.release(this, kind, handle, aux, d);
  }

  private remember(fd: number, gen: number, d: Descriptor): void {
    this.cached[fd] = d;
    this.cachedGen[fd] = gen;
  }

  /** The lowest free fd number, or MAX_FDS; under the table lock. */
  private lowestFree(): number {
    let i = 0;
    while (i < MAX_FDS && this.words[this.at(i) + KIND] !== FREE) i++;
    return i;
  }

  private at(fd: number): number {
    return (HEADER_BYTES >> 2) + fd * ENTRY_WORDS;
  }
  private pathAt(fd: number): number {
    return this.pathBase + fd * MAX_PATH_BYTES;
  }
  // Held for a few word copies, never across a call that can block or throw: spinning is fine.
  private lock(): void {
    while (Atomics.compareExchange(this.words, TABLE_LOCK, 0, 1) !== 0) { /* spin */ }
  }
  private unlock(): void {
    Atomics.store(this.words, TABLE_LOCK, 0);
  }
}
