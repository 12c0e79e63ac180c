/**
 * Writes a session's results: results.json (everything, samples included), results.csv (one row
 * per configuration x metric) and summary.md (tables, goals, notes, machine and load).
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const CSV_COLUMNS = ['experiment', 'variant', 'config', 'metric', 'unit', 'runs', 'min', 'median',
  'baseline', 'ratio_min', 'ratio_median', 'ok', 'error', 'samples', 'note'];

function csvCell(v) {
  if (Array.isArray(v)) v = v.map(num).join(';');
  else if (typeof v === 'number') v = num(v);
  const s = String(v ?? '');
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function num(x) {
  if (!Number.isFinite(x)) return '';
  return Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(4);
}

export function toCsv(rows) {
  return [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n';
}

function table(rows) {
  const lines = ['| variant | config | metric | min | median | ratio (median) | runs | status |',
    '|---|---|---|---:|---:|---:|---:|---|'];
  for (const r of rows) {
    const status = r.ok ? (r.config === r.baseline ? 'baseline' : 'ok') : `FAILED: ${r.error.slice(0, 120)}`;
    const ratio = r.config === r.baseline ? '1' : num(r.ratio_median);
    lines.push(`| ${r.variant} | ${r.config} | ${r.metric} (${r.unit}) | ${num(r.min)} | ${num(r.median)} | ${ratio} | ${r.runs} | ${status} |`);
  }
  return lines.join('\n');
}

export function writeResults(outDir, session, experiments) {
  mkdirSync(outDir, { recursive: true });
  const rows = session.results.flatMap((e) => e.rows);
  writeFileSync(join(outDir, 'results.json'), JSON.stringify(session, null, 2) + '\n');
  writeFileSync(join(outDir, 'results.csv'), toCsv(rows));
  const md = [];
  md.push('# spindle runtime benchmarks (issue 2)', '');
  md.push(`Command: \`${session.command}\`  `);
  md.push(`Date: ${session.started} · duration ${session.durationS.toFixed(0)} s · ${session.runs} runs per configuration (+1 warm-up)  `);
  const m = session.machine;
  md.push(`Machine: ${m.cpus} x ${m.cpuModel}, ${m.memGiB} GiB, ${m.platform}, Node ${m.node}  `);
  md.push(`Load average (1 min): ${m.loadBefore.toFixed(2)} before, ${m.loadAfter.toFixed(2)} after`);
  if (session.warnings.length) md.push('', ...session.warnings.map((w) => `> **Warning:** ${w}`));
  md.push('', 'Figures are min and median over runs; ratios are median / median of the baseline measured in this same run (< 1 = faster than the baseline).', '');
  md.push('## Goals', '', ...session.results.flatMap((e) => e.goals).map((g) => `- ${g}`), '');
  for (const e of session.results) {
    const exp = experiments.find((x) => x.id === e.id);
    md.push(`## ${exp.title}`, '', `Baseline: \`${e.rows[0]?.baseline ?? ''}\``, '', table(e.rows), '');
    const notes = [...new Map(e.rows.map((r) => [r.config, r.note])).entries()].filter(([, n]) => n);
    md.push('Configurations:', '', ...notes.map(([c, n]) => `- \`${c}\`: ${n}`), '');
    if (exp.notes) md.push(...exp.notes.map((n) => `- ${n}`), '');
  }
  writeFileSync(join(outDir, 'summary.md'), md.join('\n'));
}
