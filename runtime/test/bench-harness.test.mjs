// Tests of the `spindle bench` harness (bench/harness, issue 7): parsing of the programs' result
// lines, the checksum check that makes a configuration FAIL loudly, the SVG charts (well-formed
// XML, one series per configuration), the shape of results.json / results.csv, and `spindle bench`
// end to end on a fake registry whose "programs" are `node -e` one-liners. No test looks at a
// timing: the figures only have to be numbers.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { repoRoot } from './helpers.mjs';

const harness = join(repoRoot, 'bench', 'harness');
const imp = (rel) => import(pathToFileURL(join(repoRoot, 'bench', rel)).href);
const { lineChart, barChart, ticks } = await imp('harness/svg.mjs');
const { renderChart } = await imp('harness/charts.mjs');
const { ChecksumMismatch, unavailableRows, status, failures, threadsOf, threadsRun } = await imp('harness/rows.mjs');
const { parseArgs } = await imp('harness/main.mjs');
const { mathCheck, wasmtimeCommand } = await imp('math/experiment.mjs');
const { toCsv, textTable, pivot } = await imp('harness/report.mjs');
const { mallocCheck } = await imp('alloc/experiment.mjs');
const fsExperiment = await imp('fs/experiment.mjs');

const tmp = mkdtempSync(join(tmpdir(), 'spindle-bench-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * A small XML well-formedness check (no dependency): every tag closes in order, attributes are
 * quoted and unique, entities are known, one root element. Returns the root's name and the
 * elements as { name, attrs, parent }.
 */
function parseXml(text) {
  const elements = [], stack = [];
  let roots = 0, i = 0;
  const entity = /&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const chunk = lt < 0 ? text.slice(i) : text.slice(i, lt);
    assert.ok(!entity.test(chunk), `bad entity in text near ${JSON.stringify(chunk.slice(0, 40))}`);
    if (lt < 0) { assert.equal(chunk.trim(), '', 'text after the root element'); break; }
    if (stack.length === 0) assert.equal(chunk.trim(), '', `text outside the root: ${JSON.stringify(chunk.slice(0, 40))}`);
    if (text.startsWith('<?', lt)) { i = text.indexOf('?>', lt) + 2; continue; }
    if (text.startsWith('<!--', lt)) { i = text.indexOf('-->', lt) + 3; continue; }
    const gt = text.indexOf('>', lt);
    assert.ok(gt > 0, 'unterminated tag');
    const tag = text.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith('/')) {
      const open = stack.pop();
      assert.ok(open, `close tag </${tag.slice(1)}> without an open tag`);
      assert.equal(tag.slice(1).trim(), open.name, `</${tag.slice(1)}> closes <${open.name}>`);
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const m = /^([A-Za-z_][\w:.-]*)/.exec(body);
    assert.ok(m, `bad tag <${tag.slice(0, 30)}>`);
    const attrs = {};
    let rest = body.slice(m[1].length);
    const attr = /^\s+([A-Za-z_][\w:.-]*)="([^"<]*)"/;
    for (let a; (a = attr.exec(rest)); rest = rest.slice(a[0].length)) {
      assert.ok(!(a[1] in attrs), `duplicate attribute ${a[1]} on <${m[1]}>`);
      assert.ok(!entity.test(a[2]), `bad entity in attribute ${a[1]}`);
      attrs[a[1]] = a[2];
    }
    assert.equal(rest.trim(), '', `bad attributes on <${m[1]}>: ${JSON.stringify(rest.slice(0, 40))}`);
    const el = { name: m[1], attrs, parent: stack[stack.length - 1] };
    if (!el.parent) roots++;
    elements.push(el);
    if (!selfClosing) stack.push(el);
  }
  assert.equal(stack.length, 0, `unclosed <${stack[stack.length - 1]?.name}>`);
  assert.equal(roots, 1, 'exactly one root element');
  return { root: elements[0], elements };
}

function assertSvg(text, expectedSeries) {
  const { root, elements } = parseXml(text);
  assert.equal(root.name, 'svg');
  assert.equal(root.attrs.xmlns, 'http://www.w3.org/2000/svg');
  assert.ok(Number(root.attrs.width) > 0 && Number(root.attrs.height) > 0);
  const series = elements.filter((e) => e.name === 'g' && e.attrs.class === 'series').map((e) => e.attrs['data-series']);
  assert.deepEqual(series, expectedSeries.map((s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')));
  return elements;
}

/** A row as bench/harness/lib/measure.mjs makes it. */
function row(config, variant, median, { metric = 'compute', ok = true, error = '', baseline = 'native' } = {}) {
  return {
    experiment: 'math', variant, config, metric, unit: 'ms', runs: 3, min: median * 0.9, median, baseline,
    ratio_min: NaN, ratio_median: NaN, ok, error, note: '', samples: ok ? [median, median * 0.9, median * 1.1] : [],
  };
}

describe('bench harness: result parsing and verification', () => {
  const line = 'math threads=2 iters=1000 checksum=00ff00ff00ff00ff:12.500000 elapsed_ms=42.125\n';

  test('a math line with the reference checksum gives compute (in-program) and exit (wall) times', () => {
    const got = mathCheck('00ff00ff00ff00ff:12.500000', 'native, T=2')({ stdout: line, wallMs: 99.5 });
    assert.deepEqual(got, { compute: 42.125, exit: 99.5 });
  });

  test('a different checksum throws ChecksumMismatch naming both values and the reference', () => {
    assert.throws(() => mathCheck('00ff00ff00ff00ff:12.500001', 'native, T=2')({ stdout: line, wallMs: 1 }), (e) => {
      assert.ok(e instanceof ChecksumMismatch);
      assert.match(e.message, /checksum mismatch: got 00ff00ff00ff00ff:12\.500000, expected 00ff00ff00ff00ff:12\.500001 \(from native, T=2\)/);
      return true;
    });
  });

  test('output without a result line is an error, not a missing figure', () => {
    assert.throws(() => mathCheck('x', 'native')({ stdout: 'hello\n', wallMs: 1 }), /no line starting with 'math '/);
  });

  test('a malloc result line must name the workload, threads and pairs asked for', () => {
    const out = 'RESULT workload=ring threads=2 ops=500000 ms=25.2 mem_kb=1152\n';
    assert.deepEqual(mallocCheck('ring', 2, 500000)({ stdout: out }), { ms: 25.2, mem_kb: 1152 });
    assert.throws(() => mallocCheck('ring', 4, 500000)({ stdout: out }), /result line does not match the request \(ring 4 500000\)/);
    assert.throws(() => mallocCheck('article', 2, 500000)({ stdout: out }), /does not match/);
    assert.throws(() => mallocCheck('ring', 2, 500000)({ stdout: 'oops\n' }), /no line starting with 'RESULT '/);
  });

  test('a malloc run whose checksum differs from the native run fails the configuration', () => {
    const line = (sum) => `RESULT workload=ring threads=2 ops=500000 ms=25.2 mem_kb=1152 checksum=${sum}\n`;
    assert.deepEqual(mallocCheck('ring', 2, 500000, '0000abcd', 'native')({ stdout: line('0000abcd') }), { ms: 25.2, mem_kb: 1152 });
    assert.throws(() => mallocCheck('ring', 2, 500000, '0000abcd', 'native')({ stdout: line('0000abce') }), /checksum mismatch/);
    assert.throws(() => mallocCheck('ring', 2, 500000, '0000abcd', 'native')({ stdout: 'RESULT workload=ring threads=2 ops=500000 ms=1 mem_kb=1\n' }), /checksum/);
  });

  test('thread counts come from the variant; statuses tell failed from unavailable', () => {
    assert.equal(threadsOf({ variant: 'T=4' }), 4);
    assert.equal(threadsOf({ variant: 'ring T=2' }), 2);
    assert.ok(Number.isNaN(threadsOf({ variant: 'main' })));
    // The header reports the thread counts that ran (malloc-web: 1, 2, 4), not the default list.
    const results = [{ rows: [{ variant: 'job T=4' }, { variant: 'job T=1' }, { variant: 'job T=2' }, { variant: 'job T=1' }] }, { rows: [] }];
    assert.deepEqual(threadsRun(results, [1, 2, 3, 4]), [1, 2, 4]);
    assert.deepEqual(threadsRun([{ rows: [{ variant: 'main' }] }], [1, 2, 3, 4]), [1, 2, 3, 4]);
    const un = unavailableRows({ experiment: 'math', variant: 'T=1', baseline: 'native', metrics: [{ key: 'compute', unit: 'ms' }], config: 'wasmtime-46', reason: 'no pip' });
    assert.equal(un.length, 1);
    assert.equal(status(un[0]), 'unavailable');
    assert.equal(status(row('native', 'T=1', 10)), 'baseline');
    assert.equal(status(row('spindle', 'T=1', 10)), 'ok');
    assert.equal(status(row('spindle', 'T=2', NaN, { ok: false, error: 'checksum mismatch: got a, expected b' })), 'FAILED');
    const f = failures([{ id: 'math', rows: [...un, row('spindle', 'T=2', NaN, { ok: false, error: 'checksum mismatch' }), row('spindle', 'T=2', NaN, { ok: false, error: 'checksum mismatch', metric: 'exit' })] }]);
    assert.deepEqual(f, [{ experiment: 'math', variant: 'T=2', config: 'spindle', error: 'checksum mismatch' }]);
  });

  test('option parsing: --quick means 3 runs and T = 1, cores, 2 x cores; --threads and --runs override', () => {
    const q = parseArgs(['--quick'], 2);
    assert.equal(q.runs, 3);
    assert.deepEqual(q.threads, [1, 2, 4]);
    const full = parseArgs([], 2);
    assert.equal(full.runs, 5);
    assert.deepEqual(full.threads, [1, 2, 3, 4]);
    const o = parseArgs(['--threads', '4,1,2,2', '--runs', '7', '--only', 'math,malloc'], 8);
    assert.deepEqual(o.threads, [1, 2, 4]);
    assert.equal(o.runs, 7);
    assert.deepEqual(o.only, ['math', 'malloc']);
    assert.throws(() => parseArgs(['--threads', '1,x']), /--threads takes a list/);
    assert.throws(() => parseArgs(['--runs', '0']), /--runs takes a whole number/);
    assert.throws(() => parseArgs(['--frobnicate']), /unknown option --frobnicate/);
  });

  test('wasmtime runs with threads and shared memory enabled', () => {
    assert.deepEqual(wasmtimeCommand('/w', 'p.wasm', ['2']), ['/w', ['run', '-W', 'threads=y,shared-memory=y', '-S', 'threads=y', 'p.wasm', '2']]);
  });

  test('CPU steal: /proc/stat parsing, the share of all CPU time, the worst interval and the warning above 5%', async () => {
    const { readCpuTimes, sampleSteal, stealWarning } = await imp('harness/machine.mjs');
    assert.deepEqual(readCpuTimes('cpu  10 0 5 80 1 1 1 2 0 0\ncpu0 5 0 2 40 0 0 0 1 0 0\n'), { total: 100, steal: 2 });
    assert.equal(readCpuTimes('no cpu line'), undefined);
    // Readings every 10 ms: 0% steal over the first interval, 50% over the second, then none.
    const readings = [{ total: 0, steal: 0 }, { total: 100, steal: 0 }, { total: 200, steal: 50 }];
    const s = sampleSteal(0.01, () => (readings.length > 1 ? readings.shift() : readings[0]));
    await new Promise((r) => setTimeout(r, 150));
    assert.deepEqual(s.stop(), { percent: 25, maxPercent: 50, everyS: 0.01 });
    assert.equal(sampleSteal(5, () => undefined).stop(), undefined);
    assert.equal(stealWarning({ percent: 5, maxPercent: 9, everyS: 5 }), undefined);
    assert.match(stealWarning({ percent: 12.5, maxPercent: 30, everyS: 5 }), /12\.5% of the CPU time \(steal; up to 30% in a 5-s interval\)/);
  });
});

describe('bench harness: SVG charts', () => {
  test('a line chart is well-formed SVG with one series per configuration, gaps for missing values', () => {
    const svg = lineChart({
      title: 'math <T> & co', xLabel: 'threads', yLabel: 'ms',
      series: [
        { name: 'native', points: [[1, 300], [2, 310], [4, 450]] },
        { name: 'spindle', points: [[1, 240], [2, NaN], [4, 1500]] },
        { name: 'a<b>&c', points: [[1, NaN]], missing: 'unavailable' },
      ],
    });
    const els = assertSvg(svg, ['native', 'spindle', 'a<b>&c']);
    const inSeries = (name, tag) => els.filter((e) => e.name === tag && e.parent?.attrs['data-series'] === name);
    assert.equal(inSeries('native', 'circle').length, 3);
    assert.equal(inSeries('native', 'polyline').length, 1);
    assert.equal(inSeries('spindle', 'circle').length, 2, 'a NaN point is a gap, not a zero');
    assert.equal(inSeries('spindle', 'polyline').length, 0, 'no line across a gap');
    assert.equal(inSeries('a&amp;lt;b&amp;gt;&amp;amp;c', 'circle').length, 0);
    assert.match(svg, /a&lt;b&gt;&amp;c \(unavailable\)/, 'the legend says why a series has no marks');
  });

  test('a bar chart is well-formed SVG with one series per configuration and one bar per category', () => {
    const svg = barChart({
      title: 'fs', xLabel: '', yLabel: 'ns/op', categories: ['main', 'worker'],
      series: [{ name: 'js-fs-proxied', values: [130, 13800] }, { name: 'spindle-fs', values: [44, 46] }, { name: 'native', values: [NaN, NaN], missing: 'FAILED' }],
    });
    const els = assertSvg(svg, ['js-fs-proxied', 'spindle-fs', 'native']);
    const bars = (name) => els.filter((e) => e.name === 'rect' && e.parent?.attrs['data-series'] === name);
    assert.equal(bars('js-fs-proxied').length, 2);
    assert.equal(bars('native').length, 0);
    for (const b of bars('spindle-fs')) assert.ok(Number(b.attrs.height) > 0);
  });

  test('a log-scale chart has decade ticks and draws values across orders of magnitude', () => {
    const svg = barChart({
      title: 'spawn p50', xLabel: '', yLabel: 'us', log: true, categories: ['k=1'],
      series: [{ name: 'spindle', values: [13] }, { name: 'emnapi-nopool', values: [114000] }, { name: 'zero', values: [0] }],
    });
    const els = assertSvg(svg, ['spindle', 'emnapi-nopool', 'zero']);
    const labels = els.filter((e) => e.name === 'text' && e.parent?.attrs.class === 'y-ticks');
    assert.equal(labels.length, 6, '10 .. 1000000: six decades');
    const bars = (name) => els.filter((e) => e.name === 'rect' && e.parent?.attrs['data-series'] === name);
    assert.ok(Number(bars('spindle')[0].attrs.height) > 0);
    assert.ok(Number(bars('emnapi-nopool')[0].attrs.height) > Number(bars('spindle')[0].attrs.height));
    assert.equal(bars('zero').length, 0, 'a zero has no place on a log scale: a gap, not a bar');
    assert.match(svg, />1000000</);
  });

  test('charts from rows: every configuration of the rows is a series, failed and unavailable ones included', () => {
    const rows = [
      row('native', 'T=1', 300), row('native', 'T=2', 310),
      row('spindle', 'T=1', 240), row('spindle', 'T=2', NaN, { ok: false, error: 'checksum mismatch: got a, expected b' }),
      ...unavailableRows({ experiment: 'math', variant: 'T=1', baseline: 'native', metrics: [{ key: 'compute', unit: 'ms' }], config: 'wasmtime-46', reason: 'x' }),
      row('native', 'T=1', 999, { metric: 'exit' }),
    ];
    const svg = renderChart({ kind: 'lines', title: 'math', metric: 'compute' }, rows);
    assertSvg(svg, ['native', 'spindle', 'wasmtime-46']);
    assert.match(svg, /spindle \(FAILED\)/);
    assert.match(svg, /wasmtime-46 \(unavailable\)/);
    const bars = renderChart({ kind: 'bars', title: 'by T', metric: 'compute' }, rows);
    assertSvg(bars, ['native', 'spindle', 'wasmtime-46']);
    assert.equal(renderChart({ kind: 'lines', title: 'none', metric: 'nothing' }, rows), undefined);
  });

  test('axis ticks are round and cover the maximum', () => {
    assert.deepEqual(ticks(1000), [0, 200, 400, 600, 800, 1000]);
    const t = ticks(1234.5);
    assert.ok(t[t.length - 1] >= 1234.5 && t[0] === 0 && t.length <= 8);
    assert.deepEqual(ticks(0), [0, 1]);
  });
});

describe('bench harness: tables and CSV', () => {
  test('CSV has a header and one line per row; failed rows keep their reason and no figures', () => {
    const rows = [row('native', 'T=1', 300), row('spindle', 'T=1', NaN, { ok: false, error: 'checksum mismatch: got "a", expected b' })];
    const lines = toCsv(rows).trimEnd().split('\n');
    assert.equal(lines[0], 'experiment,variant,config,metric,unit,runs,min,median,baseline,ratio_min,ratio_median,ok,error,samples,note');
    assert.equal(lines.length, 3);
    assert.match(lines[1], /^math,T=1,native,compute,ms,3,270\.0,300\.0,native,,,true,,/);
    assert.match(lines[2], /^math,T=1,spindle,compute,ms,3,,,native,,,false,"checksum mismatch: got ""a"", expected b",,$/);
  });

  test('the headline table puts configurations down and variants across, with ratios and statuses', () => {
    const rows = [row('native', 'T=1', 300), row('native', 'T=2', 200), { ...row('spindle', 'T=1', 240), ratio_median: 0.8 },
      row('spindle', 'T=2', NaN, { ok: false, error: 'checksum mismatch' }),
      ...unavailableRows({ experiment: 'math', variant: 'T=1', baseline: 'native', metrics: [{ key: 'compute', unit: 'ms' }], config: 'wasmtime-46', reason: 'x' })];
    assert.deepEqual(pivot(rows, 'compute'), [
      ['compute (ms): median (ratio to native)', 'T=1', 'T=2'],
      ['native', '300.0 (1)', '200.0 (1)'],
      ['spindle', '240.0 (0.80)', 'FAILED'],
      ['wasmtime-46', 'unavailable', ''],
    ]);
    assert.equal(pivot(rows, 'nothing'), undefined);
  });

  test('the text table marks the baseline and prints FAILED with the reason', () => {
    const t = textTable([row('native', 'T=1', 300), row('spindle', 'T=1', NaN, { ok: false, error: 'checksum mismatch: got a, expected b' })]);
    assert.match(t, /native .* baseline/);
    assert.match(t, /spindle .* FAILED: checksum mismatch: got a, expected b/);
  });
});

describe('spindle bench end to end (fake registry: node -e programs, no timing asserted)', () => {
  const measureUrl = pathToFileURL(join(repoRoot, 'bench', 'harness', 'lib', 'measure.mjs')).href;
  const rowsUrl = pathToFileURL(join(harness, 'rows.mjs')).href;
  const mathUrl = pathToFileURL(join(repoRoot, 'bench', 'math', 'experiment.mjs')).href;
  // Each "configuration" prints a math line; 'broken' prints a wrong checksum at T=2 only.
  const registry = (withBroken) => `
import { measure, withRatios } from ${JSON.stringify(measureUrl)};
import { unavailableRows } from ${JSON.stringify(rowsUrl)};
import { mathCheck } from ${JSON.stringify(mathUrl)};
const node = process.execPath;
const prog = (sum) => [node, ['-e', \`console.log('math threads=1 iters=10 checksum=\${sum} elapsed_ms=' + (1 + Math.random()).toFixed(3))\`]];
export const registry = [
  {
    id: 'fake-math', title: 'Fake math', notes: ['a fake experiment'], needs: [],
    charts: [{ file: 'fake-lines.svg', kind: 'lines', title: 'fake', metric: 'compute' },
             { file: 'fake-bars.svg', kind: 'bars', title: 'fake bars', metric: 'compute' }],
    async run(ctx) {
      const rows = [];
      for (const t of ctx.threads) {
        const spec = { experiment: 'fake-math', variant: 'T=' + t, baseline: 'native', metrics: [{ key: 'compute', unit: 'ms' }, { key: 'exit', unit: 'ms' }] };
        const check = mathCheck('abc:1.0', 'native, T=' + t);
        const configs = [
          { config: 'native', cmd: prog('abc:1.0'), check },
          { config: 'good', cmd: prog('abc:1.0'), check },
          ${withBroken ? "{ config: 'broken', cmd: prog(t === 2 ? 'abd:1.0' : 'abc:1.0'), check }," : ''}
        ];
        rows.push(...await measure(ctx, { ...spec, configs }));
        rows.push(...unavailableRows({ ...spec, config: 'absent-tool', reason: 'not installed here' }));
      }
      return withRatios(rows);
    },
    goals: (rows) => ['fake goal: ' + rows.length + ' rows'],
  },
  { id: 'later', title: 'Not written yet', needs: [], unavailable: () => 'not available yet (issue 99)' },
];
`;

  function runHarness(name, withBroken) {
    const reg = join(tmp, `${name}.mjs`);
    writeFileSync(reg, registry(withBroken));
    const out = join(tmp, name);
    const r = spawnSync(process.execPath, [join(harness, 'main.mjs'), '--registry', reg, '--out', out, '--runs', '2', '--threads', '1,2'],
      { encoding: 'utf8', timeout: 120_000, env: { ...process.env, CI: '1' } });
    return { ...r, out };
  }

  test('a checksum mismatch fails the configuration loudly: banner, FAILED rows, exit status 1', () => {
    const r = runHarness('broken', true);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /!!!!!!!!/);
    assert.match(r.stderr, /FAILED fake-math T=2 broken: checksum mismatch: got abd:1\.0, expected abc:1\.0 \(from native, T=2\)/);
    assert.match(r.stdout, /^broken\s+\S+ \(\S+\)\s+FAILED$/m, 'the terminal table: ok at T=1, FAILED at T=2');
    const session = JSON.parse(readFileSync(join(r.out, 'results.json'), 'utf8'));
    const fake = session.results.find((e) => e.id === 'fake-math');
    const broken2 = fake.rows.filter((x) => x.config === 'broken' && x.variant === 'T=2');
    assert.equal(broken2.length, 2);
    for (const x of broken2) { assert.equal(x.ok, false); assert.equal(x.median, null, 'no time counts'); assert.deepEqual(x.samples, []); }
    const broken1 = fake.rows.find((x) => x.config === 'broken' && x.variant === 'T=1' && x.metric === 'compute');
    assert.equal(broken1.ok, true, 'the same configuration at T=1 had the right checksum');
    assert.match(readFileSync(join(r.out, 'summary.md'), 'utf8'), /## FAILED configurations\n\n- \*\*fake-math T=2 broken\*\*: checksum mismatch/);
  });

  test('a clean run exits 0 and writes JSON, CSV, SVG charts (one series per configuration) and the summary', () => {
    const r = runHarness('clean', false);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /FAILED/);
    const session = JSON.parse(readFileSync(join(r.out, 'results.json'), 'utf8'));
    assert.equal(session.runs, 2);
    assert.deepEqual(session.threads, [1, 2]);
    for (const k of ['cpus', 'cpuModel', 'node', 'v8']) assert.ok(k in session.machine, k);
    for (const k of ['start', 'end', 'max', 'mean']) assert.equal(typeof session.load[k], 'number', k);
    assert.match(session.v8Tier, /optimizing tier/);
    const [fake, later] = session.results;
    assert.equal(later.unavailable, 'not available yet (issue 99)');
    assert.equal(fake.rows.length, 2 * 3 * 2, 'T x configurations x metrics');
    for (const x of fake.rows.filter((x) => x.config !== 'absent-tool')) {
      assert.equal(x.ok, true);
      assert.equal(x.runs, 2);
      assert.equal(x.samples.length, 2);
      assert.ok(x.min <= x.median);
      assert.equal(typeof x.ratio_median, 'number');
    }
    assert.ok(fake.rows.filter((x) => x.config === 'absent-tool').every((x) => x.error === 'unavailable: not installed here'));
    assert.deepEqual(fake.goals, ['fake goal: 12 rows']);

    const csv = readFileSync(join(r.out, 'results.csv'), 'utf8').trimEnd().split('\n');
    assert.equal(csv.length, 1 + fake.rows.length);
    const header = csv[0].split(',');
    for (const line of csv.slice(1)) {
      const cells = line.split(',');
      assert.equal(cells.length, header.length, line);
      assert.equal(cells[header.indexOf('experiment')], 'fake-math');
    }

    assert.deepEqual(readdirSync(join(r.out, 'charts')).sort(), ['fake-bars.svg', 'fake-lines.svg']);
    for (const f of ['fake-lines.svg', 'fake-bars.svg']) assertSvg(readFileSync(join(r.out, 'charts', f), 'utf8'), ['native', 'good', 'absent-tool']);
    assert.deepEqual(session.charts.sort(), ['charts/fake-bars.svg', 'charts/fake-lines.svg']);

    const md = readFileSync(join(r.out, 'summary.md'), 'utf8');
    assert.match(md, /^# spindle bench/);
    assert.match(md, /Load average \(1 min\)/);
    assert.match(md, /V8 tier: /);
    assert.match(md, /!\[fake\]\(charts\/fake-lines\.svg\)/);
    assert.match(md, /## Not written yet\n\nNot available: not available yet \(issue 99\)/);
    assert.match(r.stdout, /charts: .*fake-lines\.svg/);

    // --from-json writes the report again from results.json, measuring nothing.
    rmSync(join(r.out, 'charts'), { recursive: true });
    rmSync(join(r.out, 'summary.md'));
    const again = spawnSync(process.execPath, [join(harness, 'main.mjs'), '--registry', join(tmp, 'clean.mjs'), '--from-json', join(r.out, 'results.json')], { encoding: 'utf8' });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(readFileSync(join(r.out, 'summary.md'), 'utf8'), md);
    assert.deepEqual(readdirSync(join(r.out, 'charts')).sort(), ['fake-bars.svg', 'fake-lines.svg']);
  });

  test('usage errors exit 2 with a message; --list names every experiment', () => {
    const bad = spawnSync(process.execPath, [join(harness, 'main.mjs'), '--only', 'nope'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /no experiment 'nope'/);
    const list = spawnSync(process.execPath, [join(harness, 'main.mjs'), '--list'], { encoding: 'utf8' });
    assert.equal(list.status, 0);
    for (const id of ['math', 'malloc', 'fs', 'spawn-latency', 'first-output', 'optimizing-tier']) assert.match(list.stdout, new RegExp(`^${id}\\s`, 'm'));
  });
});

describe('bench harness: the fs experiment (checksum of what was read back, peers, goals, charts)', () => {
  const { expectedChecksum, fsCheck, optionUnavailable, goals, charts } = fsExperiment;
  const workload = join(repoRoot, 'bench', 'fs', 'workload.c');
  const line = (ops, checksum) => `fs mode=main threads=1 ops=${ops} checksum=${checksum} elapsed_ns=384000\n`;

  test('a run counts only with every operation done and the checksum the workload definition gives', () => {
    const sum = expectedChecksum(2, 1);
    assert.match(sum, /^[0-9a-f]{16}$/);
    assert.notEqual(expectedChecksum(3, 1), sum, 'another round count, another checksum');
    assert.notEqual(expectedChecksum(2, 2), sum, 'another thread count, another checksum');
    assert.deepEqual(fsCheck(2, 1)({ stdout: line(384, sum) }), { ns_per_op: 1000 });
    assert.throws(() => fsCheck(2, 1)({ stdout: line(384, expectedChecksum(1, 1)) }), (e) => {
      assert.ok(e instanceof ChecksumMismatch);
      assert.match(e.message, /checksum mismatch: got [0-9a-f]{16}, expected [0-9a-f]{16} \(from the workload's definition, 2 rounds x 1 thread\(s\)\)/);
      return true;
    });
    assert.throws(() => fsCheck(2, 1)({ stdout: line(381, sum) }), /expected 384 operations, the program reports 381/);
    assert.throws(() => fsCheck(2, 1)({ stdout: 'workload: open+read /tmp/t0/f3 failed\n' }), /no line starting with 'fs '/);
  });

  test('the native workload prints the checksum the JS definition computes (main and 2 threads)', (t) => {
    if (spawnSync('gcc', ['--version']).status !== 0) { t.skip('no gcc'); return; }
    const exe = join(tmp, 'fs-native');
    execFileSync('gcc', ['-O2', '-pthread', workload, '-o', exe]);
    for (const [args, rounds, threads] of [[['main', '3'], 3, 1], [['threads', '2'], 2, 2]]) {
      const dir = mkdtempSync(join(tmp, 'fsdir-'));
      const stdout = execFileSync(exe, [args[0], args[1], dir, ...(threads > 1 ? [String(threads)] : [])], { encoding: 'utf8' });
      assert.equal(typeof fsCheck(rounds, threads)({ stdout }).ns_per_op, 'number');
    }
  });

  test('the JS peers run the plain module: memfs direct and proxied to the main thread (napi-rs wiring), browser_wasi_shim', () => {
    const hosts = join(repoRoot, 'bench', 'runtime', 'hosts');
    for (const pkg of ['@napi-rs/wasm-runtime', '@bjorn3/browser_wasi_shim', '@emnapi/wasi-threads']) {
      assert.ok(existsSync(join(repoRoot, 'bench', 'runtime', 'node_modules', pkg)), `${pkg} is missing: run 'bash bench/harness/setup.sh'`);
    }
    const wasm = join(tmp, 'fs-plain.wasm');
    execFileSync(join(repoRoot, 'tools', 'wasi-cc'), ['-O2', workload, '-Wl,--export=malloc,--export=free', '-o', wasm]);
    const run = (script, ...args) => spawnSync(process.execPath, ['--no-warnings', join(hosts, script), ...args], { encoding: 'utf8', timeout: 120_000 });
    const cases = [
      ['memfs-proxied-run.mjs', ['--where', 'main', wasm, 'main', '2', '/tmp'], 2, 1],
      ['memfs-proxied-run.mjs', ['--where', 'worker', wasm, 'worker', '1', '/tmp'], 1, 1],
      ['memfs-proxied-run.mjs', ['--where', 'worker', '--pool', '2', wasm, 'threads', '1', '/tmp', '2'], 1, 2],
      ['wasi-shim-run.mjs', [wasm, 'main', '2', '/tmp'], 2, 1],
    ];
    for (const [script, args, rounds, threads] of cases) {
      const r = run(script, ...args);
      assert.equal(r.status, 0, `${script} ${args.join(' ')}: ${r.stderr}`);
      assert.equal(typeof fsCheck(rounds, threads)(r).ns_per_op, 'number', `${script} ${args.join(' ')}`);
    }
    // A wrong directory is the program's error, reported, not a hang of the proxy.
    const bad = run('memfs-proxied-run.mjs', '--where', 'worker', wasm, 'worker', '1', '/nonexistent');
    assert.notEqual(bad.status, 0);
    assert.match(bad.stdout + bad.stderr, /workload: mkdir \/nonexistent\/t0 failed/);
  });

  test('a runtime FS option the CLI under test lacks makes its configuration unavailable, with the reason', () => {
    assert.equal(optionUnavailable('--mount', { status: 0, stderr: '' }), undefined);
    assert.match(optionUnavailable('--mount', { status: 2, stderr: 'spindle: error: memory mounts (--mount GUEST=memory) are not available yet: x\n' }),
      /^the spindle CLI under test cannot run --mount: spindle: error: memory mounts/);
    assert.match(optionUnavailable('--dir', { status: 2, stderr: 'spindle: unknown option --dir\nusage...' }), /cannot run --dir: /);
    assert.equal(optionUnavailable('--dir', { status: 1, stderr: 'workload: stat /tmp/t0/f0 failed' }), undefined,
      'any other failure is left to the measured runs, which FAIL loudly');
  });

  const fsRow = (config, variant, median, opts = {}) => ({ ...row(config, variant, median, { baseline: 'napi-rs-memfs', ...opts }), experiment: 'fs', metric: 'ns_per_op', unit: 'ns' });

  test('goals: each figure with its goal and met / NOT met; a missing figure is "not measured"', () => {
    const rows = [
      fsRow('napi-rs-memfs', 'main', 100000), fsRow('napi-rs-memfs', 'worker', 1500000),
      fsRow('spindle-inprogram', 'main', 1000), fsRow('spindle-inprogram', 'worker', 1050),
      fsRow('spindle-inprogram', 'T=1', 1000), fsRow('spindle-inprogram', 'T=2', 800),
      fsRow('native-tmpfs', 'main', 2000),
      fsRow('spindle-sharedfs', 'main', NaN, { ok: false, error: 'exit code 1' }),
    ];
    const g = goals(rows);
    assert.equal(g.length, 6);
    assert.match(g[0], /^fs \(i\) pthread\/main: 1\.05 \(goal <= 1\.1\): met$/);
    assert.match(g[1], /^fs \(iii\) pthread\/main: not measured/);
    assert.match(g[2], /vs the JS FS proxied to the main thread: 1429x faster \(goal >= 30x faster\): met$/);
    assert.match(g[3], /vs native tmpfs, main thread: 2\.00x faster \(goal >= 3x faster\): NOT met$/);
    assert.match(g[4], /^fs \(iii\) \/ \(i\), main thread: not measured/);
    assert.match(g[5], /throughput T=2 \/ T=1: 1\.25x \(goal >= 1\.6x\): NOT met$/);
  });

  test('its charts (log scale) have one series per configuration, unavailable and failed ones included', () => {
    const un = (config, variant) => unavailableRows({ experiment: 'fs', variant, baseline: 'napi-rs-memfs', metrics: [{ key: 'ns_per_op', unit: 'ns' }], config, reason: 'no threads' });
    const rows = [
      fsRow('napi-rs-memfs', 'main', 100000), fsRow('napi-rs-memfs', 'worker', 1500000), fsRow('napi-rs-memfs', 'T=1', 1600000), fsRow('napi-rs-memfs', 'T=2', 1700000),
      fsRow('spindle-inprogram', 'main', 1000), fsRow('spindle-inprogram', 'worker', 1050), fsRow('spindle-inprogram', 'T=1', 1000), fsRow('spindle-inprogram', 'T=2', 600),
      fsRow('spindle-sharedfs', 'main', NaN, { ok: false, error: 'checksum mismatch' }), fsRow('spindle-sharedfs', 'worker', 3000),
      fsRow('spindle-sharedfs', 'T=1', 3000), fsRow('spindle-sharedfs', 'T=2', 2000),
      fsRow('wasi-shim', 'main', 50000), ...un('wasi-shim', 'worker'), ...un('wasi-shim', 'T=1'), ...un('wasi-shim', 'T=2'),
    ];
    const bars = charts.find((c) => c.kind === 'bars');
    const lines = charts.find((c) => c.kind === 'lines');
    assert.ok(bars.log && lines.log);
    const barSvg = renderChart(bars, rows);
    const barEls = assertSvg(barSvg, ['napi-rs-memfs', 'spindle-inprogram', 'spindle-sharedfs', 'wasi-shim']);
    assert.equal(barEls.filter((e) => e.name === 'rect' && e.parent?.attrs['data-series'] === 'spindle-inprogram').length, 2, 'main and worker');
    assert.match(barSvg, /spindle-sharedfs \(FAILED\)/);
    assertSvg(renderChart(lines, rows), ['napi-rs-memfs', 'spindle-inprogram', 'spindle-sharedfs', 'wasi-shim']);
  });
});

test('a failed run is described by its first line (what happened) and its last (where)', async () => {
  const { describeFailure } = await imp('harness/lib/proc.mjs');
  const trap = 'spindle: thread 3 trapped: wasm trap: memory access out of bounds\nwasm backtrace:\n    at f (x.wasm)\n    at wasi_thread_start (x.wasm)\n';
  assert.equal(describeFailure({ code: 134, stderr: trap }),
    'exit code 134: spindle: thread 3 trapped: wasm trap: memory access out of bounds | ... | at wasi_thread_start (x.wasm)');
  assert.equal(describeFailure({ code: 1, stderr: 'usage: x\n' }), 'exit code 1: usage: x');
  assert.equal(describeFailure({ code: 2, stderr: '', stdout: '' }), 'exit code 2');
  assert.equal(describeFailure({ timedOut: true }), 'timed out');
});
