/**
 * What a session leaves behind: the table on the terminal, results.json (everything, samples
 * included), results.csv (one row per experiment x variant x configuration x metric, the columns of
 * bench/runtime's CSV), charts/*.svg and summary.md (machine, load, V8 tier, failures, goals, one
 * table and its charts per experiment).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCharts } from './charts.mjs';
import { failures, status } from './rows.mjs';

const CSV_COLUMNS = ['experiment', 'variant', 'config', 'metric', 'unit', 'runs', 'min', 'median',
  'baseline', 'ratio_min', 'ratio_median', 'ok', 'error', 'samples', 'note'];

function csvCell(v) {
  if (Array.isArray(v)) v = v.map(num).join(';');
  else if (typeof v === 'number') v = num(v);
  const s = String(v ?? '');
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV row per configuration x metric (run counts written as integers). */
export function toCsv(rows) {
  const cells = (r) => CSV_COLUMNS.map((c) => (c === 'runs' ? String(r.runs) : csvCell(r[c]))).join(',');
  return [CSV_COLUMNS.join(','), ...rows.map(cells)].join('\n') + '\n';
}

export function num(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '';
  return Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(4);
}

/** A ratio to the baseline: two decimals (three significant digits below 0.1). */
export function ratioText(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '';
  return x >= 100 ? x.toFixed(0) : x >= 0.1 ? x.toFixed(2) : x.toPrecision(2);
}

const ratioCell = (r) => (r.config === r.baseline && r.ok ? '1' : ratioText(r.ratio_median));
const statusCell = (r) => {
  const s = status(r);
  return s === 'FAILED' || s === 'unavailable' ? `${s}: ${r.error.replace(/^unavailable: /, '').slice(0, 100)}` : s;
};

/** A plain-text table of an experiment's rows (for the terminal). */
export function textTable(rows) {
  const head = ['variant', 'config', 'metric', 'min', 'median', 'ratio', 'runs', 'status'];
  const body = rows.map((r) => [r.variant, r.config, `${r.metric} (${r.unit})`, num(r.min), num(r.median), ratioCell(r), String(r.runs), statusCell(r)]);
  const width = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const right = new Set([3, 4, 5, 6]);
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? c : right.has(i) ? c.padStart(width[i]) : c.padEnd(width[i]))).join('  ');
  return [line(head), line(width.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/**
 * The headline table of one chart: configurations down, variants (T=1, T=2, ...) across, each
 * cell "median (ratio to the baseline)", FAILED or unavailable. Returns [header, ...lines] cells.
 */
export function pivot(rows, metric, filter = () => true) {
  const mine = rows.filter((r) => r.metric === metric && filter(r));
  if (!mine.length) return undefined;
  const variants = [...new Set(mine.map((r) => r.variant))];
  const configs = [...new Set(mine.map((r) => r.config))];
  const cell = (r) => {
    if (!r) return '';
    const st = status(r);
    if (st === 'FAILED' || st === 'unavailable') return st;
    return `${num(r.median)} (${ratioCell(r)})`;
  };
  const head = [`${metric} (${mine[0].unit}): median (ratio to ${mine[0].baseline})`, ...variants];
  return [head, ...configs.map((c) => [c, ...variants.map((v) => cell(mine.find((r) => r.config === c && r.variant === v)))])];
}

function pivotText(cells) {
  const width = cells[0].map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join('  ')).join('\n');
}

function pivotMarkdown(cells) {
  return [`| ${cells[0].join(' | ')} |`, `|---|${cells[0].slice(1).map(() => '---:').join('|')}|`,
    ...cells.slice(1).map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** The pivot tables of an experiment: one per chart declaration (or per metric when it has none). */
function pivots(entry, rows) {
  const decls = entry?.charts?.length ? entry.charts : [...new Set(rows.map((r) => r.metric))].map((metric) => ({ metric }));
  return decls.map((d) => ({ title: d.title, cells: pivot(rows, d.metric, d.filter) })).filter((p) => p.cells);
}

/** A markdown table of an experiment's rows. */
export function markdownTable(rows) {
  const out = ['| variant | config | metric | min | median | ratio (median) | runs | status |', '|---|---|---|---:|---:|---:|---:|---|'];
  for (const r of rows) {
    out.push(`| ${r.variant} | ${r.config} | ${r.metric} (${r.unit}) | ${num(r.min)} | ${num(r.median)} | ${ratioCell(r)} | ${r.runs} | ${statusCell(r).replace(/\|/g, '\\|')} |`);
  }
  return out.join('\n');
}

export function machineLines(session) {
  const m = session.machine, l = session.load;
  return [
    `Machine: ${m.cpus} x ${m.cpuModel}, ${m.memGiB} GiB, ${m.platform}, Node ${m.node} (V8 ${m.v8})`,
    `Load average (1 min): ${l.start.toFixed(2)} at the start, ${l.end.toFixed(2)} at the end, mean ${l.mean.toFixed(2)}, max ${l.max.toFixed(2)} (sampled every ${l.everyS} s) on ${m.cpus} cores`,
    ...(session.steal ? [`CPU steal (the hypervisor running other work on these CPUs): ${session.steal.percent}% of the CPU time, up to ${session.steal.maxPercent}% in a ${session.steal.everyS}-s interval`] : []),
    `V8 tier: ${session.v8Tier}`,
  ];
}

/** The terminal report: per experiment a title, its table, its goals. */
export function printReport(session, registry, write = (s) => process.stdout.write(s)) {
  const out = [''];
  out.push(`== spindle bench: \`${session.command}\`, ${session.durationS.toFixed(0)} s`, ...machineLines(session), ...session.warnings.map((w) => `WARNING: ${w}`), '');
  out.push('Cells: median over runs (ratio to the baseline measured in the same run; > 1 = slower). All rows: summary.md, results.csv.', '');
  for (const e of session.results) {
    const entry = registry.find((x) => x.id === e.id);
    out.push(`== ${entry?.title ?? e.id}${e.rows[0] ? ` (baseline: ${e.rows[0].baseline})` : ''}`);
    if (e.unavailable) out.push(`   not available: ${e.unavailable}`);
    if (e.error) out.push(`   FAILED: ${e.error}`);
    for (const p of pivots(entry, e.rows)) out.push(...(p.title ? [`-- ${p.title}`] : []), pivotText(p.cells), '');
    for (const g of e.goals ?? []) out.push(`   goal: ${g}`);
    out.push('');
  }
  write(out.join('\n') + '\n');
}

/** The banner that makes failed configurations impossible to miss. */
export function failureBanner(results) {
  const f = failures(results);
  if (!f.length) return '';
  const lines = [`${'!'.repeat(72)}`, `FAILED: ${f.length} configuration(s) produced wrong output or did not run; their times do not count:`];
  for (const x of f) lines.push(`  FAILED ${x.experiment} ${x.variant} ${x.config}: ${x.error}`);
  lines.push('!'.repeat(72));
  return lines.join('\n') + '\n';
}

export function summaryMarkdown(session, registry, charts) {
  const md = ['# spindle bench', ''];
  md.push(`Command: \`${session.command}\`  `);
  md.push(`Date: ${session.started} · duration ${session.durationS.toFixed(0)} s${session.prepareS === undefined ? '' : ` (set-up and builds ${session.prepareS.toFixed(0)} s)`} · ${session.runs} runs per configuration (+1 warm-up) · threads ${session.threads.join(', ')}  `);
  md.push(...machineLines(session).map((l) => `${l}  `));
  if (session.warnings.length) md.push('', ...session.warnings.map((w) => `> **Warning:** ${w}`));
  md.push('', 'Figures are min and median over runs, each run a fresh process. Ratios are median / median of the '
    + 'baseline measured in this same run (> 1 = slower than the baseline). A configuration counts only if its output '
    + 'passed its check (the same checksum as the baseline, where the program prints one).', '');
  const f = failures(session.results);
  if (f.length) {
    md.push('## FAILED configurations', '', ...f.map((x) => `- **${x.experiment} ${x.variant} ${x.config}**: ${x.error}`), '');
  }
  const goals = session.results.flatMap((e) => e.goals ?? []);
  if (goals.length) md.push('## Goals', '', ...goals.map((g) => `- ${g}`), '');
  for (const e of session.results) {
    const entry = registry.find((x) => x.id === e.id);
    md.push(`## ${entry?.title ?? e.id}`, '');
    if (e.unavailable) { md.push(`Not available: ${e.unavailable}`, ''); continue; }
    if (e.error) md.push(`**FAILED:** ${e.error}`, '');
    if (e.rows[0]) md.push(`Baseline: \`${e.rows[0].baseline}\` · ${e.durationS.toFixed(0)} s`, '');
    for (const c of charts.filter((c) => c.experiment === e.id)) md.push(`![${c.title}](${c.file})`, '');
    for (const p of pivots(entry, e.rows)) md.push(...(p.title ? [`**${p.title}**`, ''] : []), pivotMarkdown(p.cells), '');
    if (e.rows[0]) md.push('<details><summary>All rows (min, median, ratio, runs, status)</summary>', '', markdownTable(e.rows), '', '</details>', '');
    const notes = [...new Map(e.rows.map((r) => [r.config, r.note])).entries()].filter(([, n]) => n);
    if (notes.length) md.push('Configurations:', '', ...notes.map(([c, n]) => `- \`${c}\`: ${n}`), '');
    if (entry?.notes?.length) md.push(...entry.notes.map((n) => `- ${n}`), '');
  }
  return md.join('\n');
}

/** Writes results.json, results.csv, charts/*.svg and summary.md; returns the chart list. */
export function writeSession(outDir, session, registry) {
  mkdirSync(outDir, { recursive: true });
  const l = session.load;
  const subtitle = `${session.machine.cpus} cores, load average ${l.mean.toFixed(1)} (max ${l.max.toFixed(1)}), ${session.started.slice(0, 10)}`;
  const charts = writeCharts(outDir, session.results, registry, subtitle);
  session.charts = charts.map((c) => c.file);
  writeFileSync(join(outDir, 'results.json'), JSON.stringify(session, (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n');
  writeFileSync(join(outDir, 'results.csv'), toCsv(session.results.flatMap((e) => e.rows)));
  writeFileSync(join(outDir, 'summary.md'), summaryMarkdown(session, registry, charts));
  return charts;
}
