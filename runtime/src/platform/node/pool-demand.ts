/**
 * How many pool workers an addon's runs needed at once, kept across runs (Node, the napi host).
 *
 * The napi host prewarms 2 x cores workers by default, booted beside the addon's compile: a
 * worker costs ~30-40 ms of CPU to boot, and on 2 cores the boots an addon never uses take CPU
 * from its load and its first call. Addons differ: rolldown's bundles keep at most 3 workers busy
 * at once, oxc-parser's `parse()` 4 (its async work pool), and nothing in a binding says which
 * (bench/results/napi-2026-11-27-load: 3 prewarmed cut rolldown's load + first bundle by
 * 85-100 ms, and cost oxc 10-20% of its job, whose fourth spawn then grew the pool). So a run
 * records the most workers it had busy at once (control.ts PEAK_BUSY), and the next run of the
 * same addon prewarms that many (never more than the default). A run that needs more grows the
 * pool as any program does, and raises the record for the runs after it.
 *
 * Entries: `<dir>/pool-demand/<key>`, key = the addon's thread-guard cache key (guard-cache.ts: a
 * hash of its bytes and of the runtime, so a new build of either starts over), content the count
 * in decimal. The record only grows (the highest of all runs): a run that used fewer workers
 * (a short one, or one that only loaded the addon) never makes the next one start with too few.
 *
 * Invariants: an entry is written whole or not at all (writeEntryAtomic); one that does not
 * parse as a count in [1, MAX_DEMAND] is ignored (and replaced at the next run's end). Like every
 * cache here it only saves time: an I/O error means "no record" and is never reported.
 * Directory: cache-dir.ts; SPINDLE_CACHE_DIR=none turns it off.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, keepNewest, touch, writeEntryAtomic } from './cache-dir.js';

/** The largest count a record may hold (Program's maxThreads default). */
const MAX_DEMAND = 512;

/**
 * Records kept (cache-dir.ts keepNewest, after each write; a record read is touched, so the least
 * recently used go first): a key is a module's thread-guard key, new with each version of the addon
 * or of spindle.
 */
export const DEMAND_ENTRIES = 256;

function entryOf(key: string, dir: string): string {
  return join(dir, 'pool-demand', key);
}

/** The recorded demand of the addon with cache key `key`, or undefined when there is none. */
export function rememberedDemand(key: string, dir = cacheDir()): number | undefined {
  if (!dir) return undefined;
  try {
    const file = entryOf(key, dir);
    const text = readFileSync(file, 'latin1');
    if (!/^[0-9]{1,4}$/.test(text)) return undefined;
    const n = Number(text);
    if (n < 1 || n > MAX_DEMAND) return undefined;
    touch(file);
    return n;
  } catch {
    return undefined;
  }
}

/** Records that a run of `key` had `peak` workers busy at once, if that is more than recorded. */
export function rememberDemand(key: string, peak: number, dir = cacheDir()): void {
  if (!dir || !Number.isInteger(peak) || peak < 1) return;
  const n = Math.min(peak, MAX_DEMAND);
  const old = rememberedDemand(key, dir);
  if (old !== undefined && old >= n) return;
  if (writeEntryAtomic(entryOf(key, dir), Buffer.from(String(n), 'latin1'))) keepNewest(join(dir, 'pool-demand'), DEMAND_ENTRIES);
}

/**
 * Peaks to record at exit, by key: the highest settled so far and the programs still running
 * (their `peak()` is read at exit). One 'exit' listener for the whole process, however many
 * addons it loads (a listener each made Node warn of a leak past ten).
 */
const atExit = new Map<string, { settled: number; running: Set<() => number> }>();
let listening = false;

/**
 * Records `key`'s peak when this process exits, reading `peak()` then (Node runs 'exit'
 * listeners synchronously; the addon's workers never keep the process alive). Returns what the
 * program's end calls (disposeNapi): its peak is taken at once and `peak` is not kept.
 */
export function rememberDemandAtExit(key: string, peak: () => number): () => void {
  const e = atExit.get(key) ?? { settled: 0, running: new Set<() => number>() };
  atExit.set(key, e);
  e.running.add(peak);
  if (!listening) {
    listening = true;
    process.once('exit', recordAll);
  }
  return () => {
    if (!e.running.delete(peak)) return;
    e.settled = Math.max(e.settled, readPeak(peak));
  };
}

function recordAll(): void {
  for (const [key, e] of atExit) {
    let peak = e.settled;
    for (const p of e.running) peak = Math.max(peak, readPeak(p));
    try { rememberDemand(key, peak); } catch { /* only a cache */ }
  }
}

function readPeak(peak: () => number): number {
  try { return peak(); } catch { return 0; }
}
