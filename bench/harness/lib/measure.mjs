/**
 * The measuring loop shared by the experiments: every configuration of one comparison runs in
 * the same session, interleaved round by round (so slow drift of the machine hits all of them
 * alike), after one uncounted warm-up round; every other round runs them in the reverse order, so
 * no configuration always runs right after the same other one (a process's start-up depends on
 * what ran just before it: page cache, CPU caches, the kernel's scheduler). A run counts only if
 * its process exited 0 and its output passed the configuration's check; a configuration that
 * fails once is reported as failed with the reason and no time, never silently dropped.
 */
import { runCommand, describeFailure } from './proc.mjs';
import { min, median, ratio } from './stats.mjs';

/**
 * @param ctx      the run context (runs, log)
 * @param spec     { experiment, variant, baseline, metrics: [{ key, unit }], configs: [{ config,
 *                   cmd: [exe, args], check(result) -> { [metricKey]: number } (throws if wrong),
 *                   note?, variant? }], timeoutMs? }
 *                 A config's own `variant` (default spec.variant) lets one loop interleave several
 *                 variants, so that ratios ACROSS variants (T=2 / T=1) also compare runs of the
 *                 same moments of the machine.
 * @returns rows, one per configuration x metric
 */
export async function measure(ctx, spec) {
  const state = spec.configs.map((c) => ({ c, values: Object.fromEntries(spec.metrics.map((m) => [m.key, []])), error: undefined }));
  for (let round = -1; round < ctx.runs; round++) {
    const order = round % 2 === 0 ? [...state].reverse() : state;
    for (const s of order) {
      if (s.error) continue;
      const [exe, args] = s.c.cmd;
      let r;
      try {
        r = await runCommand(exe, args, { timeoutMs: spec.timeoutMs ?? 60_000 });
        if (r.code !== 0 || r.timedOut) throw new Error(describeFailure(r));
        const got = s.c.check(r);
        if (round < 0) continue; // warm-up
        for (const m of spec.metrics) {
          if (!Number.isFinite(got[m.key])) throw new Error(`no value for ${m.key} in the output`);
          s.values[m.key].push(got[m.key]);
        }
      } catch (e) {
        s.error = e instanceof Error ? e.message : String(e);
        ctx.log(`  FAILED ${spec.experiment} ${s.c.variant ?? spec.variant} ${s.c.config}: ${s.error}`);
      }
    }
  }
  const rows = [];
  for (const s of state) {
    for (const m of spec.metrics) {
      const v = s.error ? [] : s.values[m.key];
      rows.push({
        experiment: spec.experiment,
        variant: s.c.variant ?? spec.variant,
        config: s.c.config,
        metric: m.key,
        unit: m.unit,
        runs: v.length,
        min: min(v),
        median: median(v),
        baseline: spec.baseline,
        ratio_min: NaN,
        ratio_median: NaN,
        ok: !s.error,
        error: s.error ?? '',
        note: s.c.note ?? '',
        samples: v,
      });
    }
  }
  return withRatios(rows);
}

/** Fills ratio_min / ratio_median against the baseline row of the same experiment, variant and metric. */
export function withRatios(rows) {
  for (const r of rows) {
    const base = rows.find((b) => b.experiment === r.experiment && b.variant === r.variant
      && b.metric === r.metric && b.config === r.baseline);
    if (!base || !base.ok || !r.ok) continue;
    r.ratio_min = ratio(r.min, base.min);
    r.ratio_median = ratio(r.median, base.median);
  }
  return rows;
}

/** Parses `key=value` pairs from the first line of stdout that starts with `prefix`. */
export function parseLine(stdout, prefix) {
  const line = stdout.split('\n').find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`output has no line starting with '${prefix}': ${JSON.stringify(stdout.slice(0, 200))}`);
  const out = {};
  for (const m of line.matchAll(/(\w+)=(\S+)/g)) out[m[1]] = m[2];
  return out;
}
