/**
 * The result rows every experiment returns (the shape of bench/harness/lib/measure.mjs: one row
 * per experiment x variant x configuration x metric, with min/median over runs, the baseline's
 * name and the ratios against it), and the harness's rules about them:
 *
 * - A configuration whose output is wrong (a checksum that differs from the baseline's, a missing
 *   result line, a crash) is FAILED: it gets no time, its reason is in `error`, and the harness
 *   prints it in a banner and exits 1. Never silently dropped.
 * - A configuration that cannot run on this machine (a tool that could not be installed, an
 *   experiment that does not exist yet) is `unavailable`: `error` starts with "unavailable: ", it
 *   is listed in the table and the summary, and does not fail the run.
 */

export const UNAVAILABLE = 'unavailable: ';

/** Thrown by a configuration's check when its output does not match the reference. */
export class ChecksumMismatch extends Error {
  constructor(got, expected, reference) {
    super(`checksum mismatch: got ${got}, expected ${expected} (from ${reference})`);
    this.name = 'ChecksumMismatch';
  }
}

/** Throws ChecksumMismatch unless `got` equals `expected`. */
export function expectChecksum(got, expected, reference) {
  if (got !== expected) throw new ChecksumMismatch(got, expected, reference);
}

/** Rows for a configuration that cannot run here, one per metric, with the reason. */
export function unavailableRows({ experiment, variant, baseline, metrics, config, reason, note = '' }) {
  return metrics.map((m) => ({
    experiment, variant, config, metric: m.key, unit: m.unit, runs: 0, min: NaN, median: NaN,
    baseline, ratio_min: NaN, ratio_median: NaN, ok: false, error: UNAVAILABLE + reason, note, samples: [],
  }));
}

export const isUnavailable = (r) => !r.ok && String(r.error).startsWith(UNAVAILABLE);
export const isFailed = (r) => !r.ok && !isUnavailable(r);

/** 'baseline' | 'ok' | 'FAILED' | 'unavailable' */
export function status(r) {
  if (isUnavailable(r)) return 'unavailable';
  if (!r.ok) return 'FAILED';
  return r.config === r.baseline ? 'baseline' : 'ok';
}

/** The failed configurations of a session, one entry per experiment x variant x config. */
export function failures(results) {
  const seen = new Map();
  for (const e of results) {
    for (const r of e.rows) {
      if (!isFailed(r)) continue;
      const key = `${r.experiment} ${r.variant} ${r.config}`;
      if (!seen.has(key)) seen.set(key, { experiment: r.experiment, variant: r.variant, config: r.config, error: r.error });
    }
    if (e.error) seen.set(`${e.id} (experiment)`, { experiment: e.id, variant: '', config: '(whole experiment)', error: e.error });
  }
  return [...seen.values()];
}

/** The thread count of a row, from its variant ("T=4", "ring T=2"); NaN if it has none. */
export function threadsOf(row) {
  const m = /\bT=(\d+)\b/.exec(row.variant);
  return m ? Number(m[1]) : NaN;
}

/**
 * The thread counts a session's experiments ran (the T=N of their rows), sorted; `fallback` (the
 * --threads list or its default) when no row names one. An experiment may fix its own list
 * (malloc-web runs 1, 2, 4 unless --threads is given), so the header reports what ran.
 */
export function threadsRun(results, fallback) {
  const ran = new Set(results.flatMap((e) => e.rows.map(threadsOf)).filter(Number.isFinite));
  return ran.size ? [...ran].sort((a, b) => a - b) : fallback;
}
