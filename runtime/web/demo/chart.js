/**
 * The demo's charts: plain SVG drawn into an <svg> element, redrawn whole after every new point.
 *
 *   drawChart(svg, { xs, yLabel, xLabel, log, series: [{ id, label, points: Map<x, value> }] })
 *
 * `xs` are the x positions in order (thread counts or category names). Numeric xs give a line
 * chart (one polyline and one circle per point per series); category xs give grouped bars.
 * The DOM is the contract the tests check: each series is a <g class="series" data-series=ID>
 * holding its <path class="line"> / <rect class="bar"> and <circle class="point"> elements, each
 * point with data-x and data-value; the legend is <g class="legend">, the axes <g class="axis">.
 */
const NS = 'http://www.w3.org/2000/svg';
const W = 640;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

function el(parent, name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}

/** The next multiple of half a power of ten (round tick labels: 0, 50000, 100000, ...). */
function niceCeil(v) {
  const mag = 10 ** Math.floor(Math.log10(v));
  return (Math.ceil((v / mag) * 2) / 2) * mag;
}

const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toPrecision(2));

export function drawChart(svg, spec) {
  svg.replaceChildren();
  // One legend row per series under the plot.
  const M = { left: 72, right: 16, top: 16, bottom: 40 + 14 * spec.series.length };
  const H = 250 + M.bottom;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('height', String(H));
  svg.setAttribute('role', 'img');
  const values = spec.series.flatMap((s) => [...s.points.values()]).filter((v) => Number.isFinite(v) && v > 0);
  const numeric = spec.xs.every((x) => typeof x === 'number');
  const plotW = W - M.left - M.right, plotH = H - M.top - M.bottom;
  let lo = values.length ? Math.min(...values) : 1, hi = values.length ? Math.max(...values) : 10;
  const log = spec.log && hi / lo > 20;
  if (log) { lo = 10 ** Math.floor(Math.log10(lo)); hi = 10 ** Math.ceil(Math.log10(hi)); } else { lo = 0; hi = niceCeil(hi * 1.05); }
  const y = (v) => M.top + plotH - (log ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo)) * plotH;
  const band = plotW / spec.xs.length;
  const xCenter = (i) => M.left + band * (i + 0.5);

  // Axes, ticks and labels.
  const axis = el(svg, 'g', { class: 'axis' });
  el(axis, 'line', { x1: M.left, y1: M.top, x2: M.left, y2: M.top + plotH, stroke: '#333' });
  el(axis, 'line', { x1: M.left, y1: M.top + plotH, x2: M.left + plotW, y2: M.top + plotH, stroke: '#333' });
  const ticks = log
    ? Array.from({ length: Math.round(Math.log10(hi / lo)) + 1 }, (_, i) => lo * 10 ** i)
    : Array.from({ length: 5 }, (_, i) => lo + ((hi - lo) * i) / 4);
  for (const t of ticks) {
    el(axis, 'line', { x1: M.left, y1: y(t), x2: M.left + plotW, y2: y(t), stroke: '#e4e4e4' });
    el(axis, 'text', { x: M.left - 6, y: y(t) + 4, 'text-anchor': 'end', 'font-size': 11 }, fmt(t));
  }
  spec.xs.forEach((x, i) => el(axis, 'text', { x: xCenter(i), y: M.top + plotH + 16, 'text-anchor': 'middle', 'font-size': 11 },
    numeric ? `T=${x}` : x));
  el(axis, 'text', { x: 14, y: M.top + plotH / 2, transform: `rotate(-90 14 ${M.top + plotH / 2})`, 'text-anchor': 'middle', 'font-size': 12 },
    spec.yLabel + (log ? ' (log)' : ''));

  // Series.
  const n = spec.series.length;
  spec.series.forEach((s, si) => {
    const color = COLORS[si % COLORS.length];
    const g = el(svg, 'g', { class: 'series', 'data-series': s.id, fill: color, stroke: color });
    const pts = spec.xs.map((x, i) => [i, x, s.points.get(x)]).filter(([, , v]) => Number.isFinite(v) && v > 0);
    if (numeric) {
      if (pts.length > 1) {
        el(g, 'path', { class: 'line', fill: 'none', 'stroke-width': 2, d: pts.map(([i, , v], k) => `${k ? 'L' : 'M'}${xCenter(i).toFixed(1)},${y(v).toFixed(1)}`).join('') });
      }
      for (const [i, x, v] of pts) {
        el(g, 'circle', { class: 'point', cx: xCenter(i), cy: y(v), r: 4, 'data-x': x, 'data-value': v }, undefined);
      }
    } else {
      const bw = (band * 0.8) / n;
      for (const [i, x, v] of pts) {
        const left = M.left + band * i + band * 0.1 + bw * si;
        const r = el(g, 'rect', { class: 'bar point', x: left, y: y(v), width: bw - 2, height: M.top + plotH - y(v), 'data-x': x, 'data-value': v, stroke: 'none' });
        el(r, 'title', {}, `${s.label}: ${fmt(v)}`);
        el(g, 'text', { x: left + (bw - 2) / 2, y: y(v) - 3, 'text-anchor': 'middle', 'font-size': 10, stroke: 'none' }, fmt(v));
      }
    }
  });

  // Legend, under the plot.
  const legend = el(svg, 'g', { class: 'legend' });
  spec.series.forEach((s, si) => {
    const lx = M.left, ly = M.top + plotH + 36 + si * 14;
    el(legend, 'rect', { x: lx, y: ly - 9, width: 10, height: 10, fill: COLORS[si % COLORS.length] });
    el(legend, 'text', { x: lx + 14, y: ly, 'font-size': 11 }, s.label);
  });
}
