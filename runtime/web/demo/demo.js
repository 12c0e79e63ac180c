/**
 * The demo page: the isolation status, the controls (thread counts, size, runs per point), and
 * for each experiment of experiments.js a chart and a table that fill in as points arrive.
 *
 * Query parameters (all optional): threads=1,2,4  size=small|medium|full  runs=N
 * programs=/URL/PATH/ (where bench/browser/build.sh's output is served; default
 * /build/bench/browser/, i.e. `spindle serve` run at the repository root)  run=all|math,fs
 * (start those experiments at once).
 *
 * For tests and the browser benchmarks the page exposes window.spindleDemo: { runExperiment,
 * measure, spawnLatency, results, EXPERIMENTS, SIZES }. Experiments run one at a time.
 */
import { drawChart } from './chart.js';
import { EXPERIMENTS, measure, PROGRAMS, programUrl, setProgramsBase, SIZES, spawnLatency } from './experiments.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
if (params.has('programs')) setProgramsBase(params.get('programs'));

/** results[chartId][seriesId] = Map<x, number[]> (one value per run). */
const results = {};
let busy = false;

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function xsOf(chart, threads) {
  return chart.x === 'threads' ? threads : chart.x;
}

function redraw(chart, threads) {
  const byChart = results[chart.id] ?? {};
  drawChart($(`chart-${chart.id}`), {
    xs: xsOf(chart, threads),
    yLabel: chart.yLabel,
    log: chart.log,
    series: chart.series.map((s) => ({
      id: s.id, label: s.label,
      points: new Map([...(byChart[s.id] ?? new Map())].map(([x, v]) => [x, median(v)])),
    })),
  });
  const rows = chart.series.flatMap((s) => [...(byChart[s.id] ?? new Map())].map(([x, v]) => {
    const tr = document.createElement('tr');
    for (const cell of [s.label, chart.x === 'threads' ? `T=${x}` : x, fmt(Math.min(...v)), fmt(median(v)), String(v.length)]) {
      tr.appendChild(document.createElement('td')).textContent = cell;
    }
    return tr;
  }));
  $(`table-${chart.id}`).tBodies[0].replaceChildren(...rows);
  $(`ratios-${chart.id}`).replaceChildren(...ratios(chart, byChart, threads).map((t) => Object.assign(document.createElement('li'), { textContent: t })));
}

/**
 * Ratios of medians measured in this page: with one series, each x against the first x (time
 * at T / time at T=1); with several, each series against the first one at the same x.
 */
function ratios(chart, byChart, threads) {
  const med = (s, x) => (byChart[s.id]?.get(x) ? median(byChart[s.id].get(x)) : undefined);
  const where = (x) => (chart.x === 'threads' ? `T=${x}` : x);
  const xs = xsOf(chart, threads);
  const out = [];
  const [first, ...others] = chart.series;
  if (!others.length) {
    for (const x of xs.slice(1)) {
      const a = med(first, x), b = med(first, xs[0]);
      if (a && b) out.push(`${first.label}: time at ${where(x)} / at ${where(xs[0])} = ${(a / b).toFixed(2)}`);
    }
  }
  for (const s of others) {
    for (const x of xs) {
      const a = med(s, x), b = med(first, x);
      if (a && b) out.push(`${where(x)}: ${s.label} / ${first.label} = ${(a / b).toFixed(2)}x`);
    }
  }
  return out;
}

const fmt = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(2));

function setStatus(id, state, text) {
  const s = $(`status-${id}`);
  s.dataset.state = state;
  s.textContent = text;
}

/** The controls' values (or the given overrides). */
function settings(overrides = {}) {
  const threads = (overrides.threads ?? $('threads').value.split(',').map((t) => Number(t.trim())))
    .filter((t) => Number.isInteger(t) && t >= 1 && t <= 64);
  const size = overrides.size ?? $('size').value;
  const runs = overrides.runs ?? Math.max(1, Number($('runs').value) || 1);
  if (!threads.length) throw new Error('give at least one thread count between 1 and 64, e.g. 1,2,4');
  if (!SIZES[size]) throw new Error(`unknown size ${size}`);
  return { threads, size, runs };
}

/** Runs experiment `id` at every x of each of its charts, `runs` times, the series interleaved. */
async function runExperiment(id, overrides) {
  const exp = EXPERIMENTS.find((e) => e.id === id);
  if (!exp) throw new Error(`no experiment ${id}`);
  if (busy) throw new Error('another experiment is running');
  busy = true;
  document.body.dataset.busy = 'true';
  const { threads, size, runs } = settings(overrides);
  try {
    for (const chart of exp.charts) {
      results[chart.id] = {};
      redraw(chart, threads);
    }
    setStatus(id, 'running', 'running…');
    for (const chart of exp.charts) {
      for (const x of xsOf(chart, threads)) {
        for (let r = 0; r < runs; r++) {
          for (const s of chart.series) {
            if (s.only && !s.only.includes(x)) continue;
            setStatus(id, 'running', `running ${s.label}, ${chart.x === 'threads' ? `T=${x}` : x}, run ${r + 1}/${runs}`);
            const { value } = await s.run(x, SIZES[size]);
            const byX = (results[chart.id][s.id] ??= new Map());
            byX.set(x, [...(byX.get(x) ?? []), value]);
            redraw(chart, threads);
          }
        }
      }
    }
    setStatus(id, 'done', `done (size ${size}, ${runs} run${runs > 1 ? 's' : ''} per point; medians drawn)`);
    return snapshot(exp);
  } catch (e) {
    setStatus(id, 'error', `failed: ${e.message}`);
    throw e;
  } finally {
    busy = false;
    delete document.body.dataset.busy;
  }
}

/** Plain data of an experiment's results: { chartId: { seriesId: { x: [values] } } }. */
function snapshot(exp) {
  return Object.fromEntries(exp.charts.map((c) => [c.id, Object.fromEntries(Object.entries(results[c.id] ?? {})
    .map(([s, m]) => [s, Object.fromEntries(m)]))]));
}

/** Checks that the programs are served; returns the missing ones. */
async function missingPrograms() {
  const missing = [];
  await Promise.all(PROGRAMS.map(async (f) => {
    const r = await fetch(programUrl(f), { method: 'HEAD' }).catch(() => null);
    if (!r?.ok) missing.push(f);
  }));
  return missing;
}

function buildSections() {
  for (const exp of EXPERIMENTS) {
    const sec = document.createElement('section');
    sec.id = `exp-${exp.id}`;
    sec.innerHTML = `<h2></h2><p class="note"></p><p><button data-run="${exp.id}">Run</button>
      <span class="status" id="status-${exp.id}" data-state="idle">not run yet</span></p><div class="charts"></div>`;
    sec.querySelector('h2').textContent = exp.title;
    sec.querySelector('.note').textContent = exp.note;
    for (const chart of exp.charts) {
      const fig = document.createElement('figure');
      fig.innerHTML = `<svg class="chart" id="chart-${chart.id}" data-chart="${chart.id}" xmlns="http://www.w3.org/2000/svg"></svg>
        <table id="table-${chart.id}"><thead><tr><th>configuration</th><th>where</th><th>min</th><th>median</th><th>runs</th></tr></thead><tbody></tbody></table>
        <ul class="ratios" id="ratios-${chart.id}"></ul>`;
      sec.querySelector('.charts').appendChild(fig);
    }
    $('experiments').appendChild(sec);
  }
}

async function main() {
  buildSections();
  $('threads').value = params.get('threads') ?? '1,2,4';
  $('size').value = params.get('size') ?? 'small';
  $('runs').value = params.get('runs') ?? '1';
  const isolated = globalThis.crossOriginIsolated === true;
  $('isolation').textContent = isolated
    ? 'cross-origin isolated: SharedArrayBuffer and shared wasm memory are available'
    : 'NOT cross-origin isolated: threads cannot share memory';
  $('isolation').className = isolated ? 'ok' : 'bad';
  $('cores').textContent = String(navigator.hardwareConcurrency ?? '?');
  for (const exp of EXPERIMENTS) redrawEmpty(exp);
  const buttons = () => document.querySelectorAll('button[data-run]');
  if (!isolated) {
    // The runtime's own error names the headers to send.
    try { await import('/spindle/browser.js').then((m) => m.load(programUrl('math.wasm'))); } catch (e) {
      $('error').textContent = `${e.code ?? e.name}: ${e.message}`;
    }
    for (const b of buttons()) b.disabled = true;
    return;
  }
  const missing = await missingPrograms();
  if (missing.length) {
    $('error').textContent = `programs not found under ${programUrl('')}: ${missing.join(', ')}. Build them with `
      + '`bash bench/browser/build.sh` and run `spindle serve` at the repository root, or pass ?programs=/PATH/ to where they are served.';
  }
  const runIds = async (ids) => {
    $('error').textContent = '';
    for (const id of ids) {
      try { await runExperiment(id); } catch (e) { $('error').textContent = `${id}: ${e.message}`; return; }
    }
  };
  for (const b of buttons()) {
    b.onclick = () => {
      if (busy) return;
      const ids = b.dataset.run === 'all' ? EXPERIMENTS.map((e) => e.id) : [b.dataset.run];
      for (const x of buttons()) x.disabled = true;
      void runIds(ids).finally(() => { for (const x of buttons()) x.disabled = false; });
    };
  }
  window.spindleDemo = { runExperiment, measure, spawnLatency, results: () => Object.fromEntries(EXPERIMENTS.map((e) => [e.id, snapshot(e)])), EXPERIMENTS, SIZES };
  document.body.dataset.ready = 'true';
  if (params.has('run')) {
    const ids = params.get('run') === 'all' ? EXPERIMENTS.map((e) => e.id) : params.get('run').split(',');
    for (const x of buttons()) x.disabled = true;
    void runIds(ids).finally(() => { for (const x of buttons()) x.disabled = false; });
  }
}

/** Empty charts (axes and legend) until the first point; bad thread counts show once run. */
function redrawEmpty(exp) {
  let threads = [1, 2, 4];
  try { ({ threads } = settings()); } catch { /* settings() reports it when an experiment starts */ }
  for (const chart of exp.charts) redraw(chart, threads);
}

void main();
