/**
 * Thread-guard rewrites kept across runs (Node). thread-guards.ts walks every function body of a
 * threaded module before it compiles, in JavaScript that is still cold at start-up: ~35 ms of CPU
 * per MB of code (190 ms for the 5.4 MB module of bench/hosts, where every function has a
 * memcpy). Running the same large module again reads the rewrite instead.
 *
 * Entries: `<dir>/thread-guards/<key>.bin`, key = SHA-256 of the module's bytes and of what made
 * the rewrite (GUARD_VERSION, and the size and time of the runtime file that holds the rewrite,
 * so a rebuilt runtime never reads an older rewrite). Content: a u32 LE header length, the JSON
 * header (the GuardResult without its bytes: counts, `unchanged`; and the length of the module
 * that follows), then the rewritten module (nothing when the module was left unchanged).
 *
 * Bounds: at most GUARD_ENTRIES entries and GUARD_BYTES together (cache-dir.ts keepNewest, after
 * each write); an entry read is touched, so the entries dropped first are those least recently used.
 * (Unbounded before: a development machine's `thread-guards/` held 447 entries, 2.9 GB, each
 * rebuild of the runtime a new key for every large module run.)
 *
 * Invariants: an entry is written under a temporary name and renamed, so a reader never sees a
 * partial one; an entry that does not parse, or whose length is not the header's, is ignored
 * and written again. The cache only saves time: any I/O error means "compute it" and is never
 * reported. Only modules of CACHE_MIN_BYTES or more are cached (smaller ones rewrite in a few ms).
 *
 * Directory: cache-dir.ts (`thread-guards/` in it); SPINDLE_CACHE_DIR=none turns the cache off.
 */
import type { createHash as CreateHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUARD_VERSION, guardThreads, type GuardResult } from '../../thread-guards.js';
import { cacheDir, keepNewest, touch, writeEntryAtomic } from './cache-dir.js';

export { cacheDir };

// node:crypto is loaded only when a module is large enough to be cached: importing it costs every
// start of the CLI a few ms of CPU.
const lazyRequire = createRequire(import.meta.url);

/** Modules smaller than this are rewritten every time (1 MiB: ~35 ms of CPU at most). */
export const CACHE_MIN_BYTES = 1 << 20;

/** Most entries kept, and most bytes together (the newest entry is kept whatever its size). */
export const GUARD_ENTRIES = 64;
export const GUARD_BYTES = 256 << 20;

/** What made the rewrite: a rebuilt runtime (another size or time of this file) is another key. */
const maker = ((): string => {
  try {
    const st = statSync(fileURLToPath(import.meta.url));
    return `${GUARD_VERSION}:${st.size}:${st.mtimeMs}`;
  } catch {
    return `${GUARD_VERSION}`;
  }
})();

/**
 * `guardThreads(bytes)`, from the cache when an entry is there, else computed and stored.
 * `rewrite` is the rewrite to cache (guardThreads; a test passes a counting one).
 */
export function cachedGuardThreads(bytes: Uint8Array, dir = cacheDir(), rewrite = guardThreads): GuardResult {
  if (!dir || bytes.length < CACHE_MIN_BYTES) return rewrite(bytes);
  const { createHash } = lazyRequire('node:crypto') as { createHash: typeof CreateHash };
  const key = createHash('sha256').update(maker).update(bytes).digest('hex');
  const file = join(dir, 'thread-guards', `${key}.bin`);
  const hit = readEntry(file, bytes);
  if (hit) {
    touch(file);
    return { ...hit, key };
  }
  const result = rewrite(bytes);
  if (writeEntry(file, result)) keepNewest(dirname(file), GUARD_ENTRIES, GUARD_BYTES);
  return { ...result, key };
}

/** An entry's header: the GuardResult without its bytes, and the length of the module that follows. */
type Header = Omit<GuardResult, 'bytes'> & { length: number };

function readEntry(file: string, original: Uint8Array): GuardResult | undefined {
  try {
    const data = readFileSync(file);
    const headerLength = data.readUInt32LE(0);
    const { length, ...facts } = JSON.parse(data.subarray(4, 4 + headerLength).toString('utf8')) as Header;
    const module = new Uint8Array(data.buffer, data.byteOffset + 4 + headerLength, data.length - 4 - headerLength);
    if (typeof facts.bulk !== 'number' || module.length !== length) return undefined;
    return { ...facts, bytes: facts.unchanged === undefined ? module : original };
  } catch {
    return undefined; // no entry, or one that does not parse: compute it
  }
}

function writeEntry(file: string, r: GuardResult): boolean {
  const module = r.unchanged === undefined ? r.bytes : new Uint8Array(0);
  const { bytes: _, key: __, ...facts } = r;
  const header: Header = { ...facts, length: module.length };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length, 0);
  return writeEntryAtomic(file, [length, json, module]);
}
