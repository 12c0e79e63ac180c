/**
 * Hand-written SVG charts, no dependency: a line chart (a value against thread count, one line per
 * configuration) and a grouped bar chart (categories such as "main thread" / "worker", one bar per
 * configuration in each group). Every series is one `<g class="series" data-series="NAME">`, so a
 * reader (or a test) can find each configuration's marks. Missing values (a failed or unavailable
 * configuration) leave a gap and are named in the legend, never drawn as zero.
 */

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
const W = 720, H = 420;
const M = { left: 70, right: 210, top: 48, bottom: 56 };
const PW = W - M.left - M.right, PH = H - M.top - M.bottom;

/** Escapes text for XML content and attribute values. */
export function esc(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const fmt = (v) => (Number.isInteger(v) || Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : Number(v.toPrecision(3)).toString());
const finite = (v) => typeof v === 'number' && Number.isFinite(v);

/** About five round tick values covering [0, max]. */
export function ticks(max) {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw);
  const out = [];
  for (let v = 0; v < max + step * 0.999; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/**
 * The y axis: linear from 0 with round ticks, or (log: true) logarithmic over the decades that
 * hold the values, for charts whose configurations differ by orders of magnitude.
 */
export function yAxis(values, log = false) {
  const pos = values.filter((v) => finite(v) && (!log || v > 0));
  if (log && pos.length) {
    const lo = Math.floor(Math.log10(Math.min(...pos))), hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...pos))));
    const yTicks = Array.from({ length: hi - lo + 1 }, (_, i) => 10 ** (lo + i));
    const yScale = (y) => Number((M.top + PH - ((Math.log10(y) - lo) / (hi - lo)) * PH).toFixed(2));
    return { yTicks, yScale, bottom: 10 ** lo };
  }
  const yTicks = ticks(Math.max(0, ...pos) * 1.05);
  const yTop = yTicks[yTicks.length - 1];
  return { yTicks, yScale: (y) => Number((M.top + PH - (y / yTop) * PH).toFixed(2)), bottom: 0 };
}

function frame({ title, subtitle, yLabel, xLabel, yTicks, yScale }) {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(title)}</title>`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${W / 2 - M.right / 2 + M.left / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`,
  ];
  if (subtitle) out.push(`<text x="${W / 2 - M.right / 2 + M.left / 2}" y="37" text-anchor="middle" fill="#555">${esc(subtitle)}</text>`);
  out.push('<g class="axes" stroke="#999" fill="none">');
  for (const t of yTicks) {
    const y = yScale(t);
    out.push(`<line x1="${M.left}" y1="${y}" x2="${M.left + PW}" y2="${y}" stroke="#e5e5e5"/>`);
  }
  out.push(`<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + PH}"/>`,
    `<line x1="${M.left}" y1="${M.top + PH}" x2="${M.left + PW}" y2="${M.top + PH}"/>`, '</g>');
  out.push('<g class="y-ticks" text-anchor="end" fill="#333">');
  for (const t of yTicks) out.push(`<text x="${M.left - 6}" y="${yScale(t) + 4}">${esc(fmt(t))}</text>`);
  out.push('</g>');
  out.push(`<text x="16" y="${M.top + PH / 2}" text-anchor="middle" transform="rotate(-90 16 ${M.top + PH / 2})">${esc(yLabel)}</text>`);
  out.push(`<text x="${M.left + PW / 2}" y="${H - 12}" text-anchor="middle">${esc(xLabel)}</text>`);
  return out;
}

function legend(series) {
  const out = ['<g class="legend">'];
  series.forEach((s, i) => {
    const y = M.top + 8 + i * 20;
    const x = M.left + PW + 16;
    const missing = s.missing ? ` (${s.missing})` : '';
    out.push(`<rect x="${x}" y="${y - 9}" width="14" height="10" fill="${s.color}"/>`,
      `<text x="${x + 20}" y="${y}">${esc(s.name + missing)}</text>`);
  });
  out.push('</g>');
  return out;
}

/**
 * @param spec { title, subtitle?, xLabel, yLabel, log?, series: [{ name, points: [[x, y], ...], missing? }] }
 *   points with a non-finite y are gaps; `missing` (e.g. "FAILED", "unavailable") is shown in the legend.
 */
export function lineChart(spec) {
  const series = spec.series.map((s, i) => ({ ...s, color: PALETTE[i % PALETTE.length] }));
  const ok = (x, y) => finite(x) && finite(y) && (!spec.log || y > 0);
  const xs = [...new Set(series.flatMap((s) => s.points.map(([x]) => x)).filter(finite))].sort((a, b) => a - b);
  const xMin = xs.length ? xs[0] : 0, xMax = xs.length ? xs[xs.length - 1] : 1;
  const { yTicks, yScale } = yAxis(series.flatMap((s) => s.points.filter(([x, y]) => ok(x, y)).map(([, y]) => y)), spec.log);
  const xScale = (x) => M.left + (xMax === xMin ? PW / 2 : ((x - xMin) / (xMax - xMin)) * PW);
  const out = frame({ ...spec, yTicks, yScale });
  out.push('<g class="x-ticks" text-anchor="middle" fill="#333">');
  for (const x of xs) out.push(`<text x="${xScale(x)}" y="${M.top + PH + 18}">${esc(fmt(x))}</text>`);
  out.push('</g>');
  for (const s of series) {
    out.push(`<g class="series" data-series="${esc(s.name)}" stroke="${s.color}" fill="${s.color}">`);
    // Consecutive finite points form one polyline; a gap starts a new one.
    let run = [];
    const flush = () => {
      if (run.length > 1) out.push(`<polyline fill="none" stroke-width="2" points="${run.map(([x, y]) => `${xScale(x).toFixed(2)},${yScale(y)}`).join(' ')}"/>`);
      run = [];
    };
    for (const [x, y] of [...s.points].sort((a, b) => a[0] - b[0])) {
      if (!ok(x, y)) { flush(); continue; }
      run.push([x, y]);
      out.push(`<circle cx="${xScale(x).toFixed(2)}" cy="${yScale(y)}" r="3.5"><title>${esc(`${s.name}: ${fmt(y)} at ${fmt(x)}`)}</title></circle>`);
    }
    flush();
    out.push('</g>');
  }
  out.push(...legend(series), '</svg>');
  return out.join('\n') + '\n';
}

/**
 * @param spec { title, subtitle?, xLabel, yLabel, log?, categories: [name], series: [{ name, values: [y per category], missing? }] }
 */
export function barChart(spec) {
  const series = spec.series.map((s, i) => ({ ...s, color: PALETTE[i % PALETTE.length] }));
  const ok = (v) => finite(v) && (!spec.log || v > 0);
  const { yTicks, yScale } = yAxis(series.flatMap((s) => s.values.filter(ok)), spec.log);
  const out = frame({ ...spec, yTicks, yScale });
  const groupW = PW / Math.max(1, spec.categories.length);
  const barW = (groupW * 0.8) / Math.max(1, series.length);
  out.push('<g class="x-ticks" text-anchor="middle" fill="#333">');
  spec.categories.forEach((c, i) => out.push(`<text x="${(M.left + groupW * (i + 0.5)).toFixed(2)}" y="${M.top + PH + 18}">${esc(c)}</text>`));
  out.push('</g>');
  series.forEach((s, si) => {
    out.push(`<g class="series" data-series="${esc(s.name)}" fill="${s.color}">`);
    spec.categories.forEach((c, ci) => {
      const v = s.values[ci];
      if (!ok(v)) return;
      const x = M.left + groupW * ci + groupW * 0.1 + barW * si;
      const y = yScale(v);
      out.push(`<rect x="${x.toFixed(2)}" y="${y}" width="${barW.toFixed(2)}" height="${(M.top + PH - y).toFixed(2)}"><title>${esc(`${s.name}, ${c}: ${fmt(v)}`)}</title></rect>`);
    });
    out.push('</g>');
  });
  out.push(...legend(series), '</svg>');
  return out.join('\n') + '\n';
}
