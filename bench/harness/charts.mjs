/**
 * Turns an experiment's rows into its SVG charts, from the chart declarations of its registry
 * entry:
 *
 *   { file, kind: 'lines', title, metric, filter?(row), yLabel?, log? }   median of `metric` against T (from the
 *                                                          variant "T=n"), one line per configuration
 *   { file, kind: 'bars',  title, metric, filter?(row) }   median of `metric` per variant (e.g. main
 *                                                          thread / worker), one bar per configuration
 *
 * Every configuration present in the rows gets a series, also when it failed or is unavailable
 * (then it has no marks and the legend says why), so a chart always has one series per configuration.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { barChart, lineChart } from './svg.mjs';
import { status, threadsOf } from './rows.mjs';

function missing(rows) {
  const s = rows.map(status);
  if (s.every((x) => x === 'unavailable')) return 'unavailable';
  if (s.some((x) => x === 'FAILED')) return 'FAILED';
  return undefined;
}

function configsOf(rows) {
  return [...new Set(rows.map((r) => r.config))];
}

/** @returns the SVG text of one chart declaration over an experiment's rows (undefined if no rows). */
export function renderChart(decl, rows) {
  const mine = rows.filter((r) => r.metric === decl.metric && (!decl.filter || decl.filter(r)));
  if (!mine.length) return undefined;
  const unit = mine[0].unit;
  const yLabel = `${decl.yLabel ?? `${decl.metric} (${unit})`}, median of ${Math.max(...mine.map((r) => r.runs), 0)} runs`;
  if (decl.kind === 'lines') {
    return lineChart({
      title: decl.title, subtitle: decl.subtitle, xLabel: 'threads (T)', yLabel: decl.log ? `${yLabel}, log scale` : yLabel, log: decl.log,
      series: configsOf(mine).map((config) => {
        const rs = mine.filter((r) => r.config === config);
        return { name: config, missing: missing(rs), points: rs.map((r) => [threadsOf(r), r.ok ? r.median : NaN]) };
      }),
    });
  }
  if (decl.kind === 'bars') {
    const categories = [...new Set(mine.map((r) => r.variant))];
    return barChart({
      title: decl.title, subtitle: decl.subtitle, xLabel: decl.xLabel ?? '', yLabel: decl.log ? `${yLabel}, log scale` : yLabel, log: decl.log, categories,
      series: configsOf(mine).map((config) => {
        const rs = mine.filter((r) => r.config === config);
        return {
          name: config, missing: missing(rs),
          values: categories.map((c) => { const r = rs.find((x) => x.variant === c); return r?.ok ? r.median : NaN; }),
        };
      }),
    });
  }
  throw new Error(`unknown chart kind ${decl.kind}`);
}

/** Writes every chart of every experiment to DIR/charts; returns [{ experiment, file, title }]. */
export function writeCharts(outDir, results, registry, subtitle) {
  const dir = join(outDir, 'charts');
  mkdirSync(dir, { recursive: true });
  const written = [];
  for (const e of results) {
    const entry = registry.find((x) => x.id === e.id);
    for (const decl of entry?.charts ?? []) {
      const svg = renderChart({ subtitle, ...decl }, e.rows);
      if (!svg) continue;
      writeFileSync(join(dir, decl.file), svg);
      written.push({ experiment: e.id, file: join('charts', decl.file), title: decl.title });
    }
  }
  return written;
}
