/** Small statistics over run samples: min, median, nearest-rank percentiles, ratios. */

export function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

export function min(values) {
  return values.length ? Math.min(...values) : NaN;
}

export function median(values) {
  if (!values.length) return NaN;
  const s = sorted(values);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values, p) {
  if (!values.length) return NaN;
  const s = sorted(values);
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)));
  return s[rank - 1];
}

/**
 * value / baseline, rounded to 3 decimals, or to 3 significant digits below 0.1 (a ratio of
 * 1/1000 against a slow baseline keeps its digits); NaN when either is missing.
 */
export function ratio(value, baseline) {
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return NaN;
  const r = value / baseline;
  return r < 0.1 ? Number(r.toPrecision(3)) : Math.round(r * 1000) / 1000;
}
