// The demo page (issue #6) in Chromium, Firefox ESR and WebKitGTK (tools/browsers): `spindle
// serve` at the repository root serves /demo/ and the programs bench/browser/build.sh builds; the
// page runs all three experiments at the small size and draws one series per configuration in
// each chart. Asserts that results appear and the charts have their elements, never how fast
// anything is. One browser per engine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { exitGuard, repoRoot } from './helpers.mjs';
import { forEachEngine, launchForTests, serve } from './browsers.mjs';

exitGuard(after);

/** All three experiments at the small size, T = 1, 2 (generous: the machine may be loaded). */
const RUN_TIMEOUT_MS = 150_000;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const servers = [];
let isolated, unisolated;

before(async () => {
  const b = spawnSync('bash', ['bench/browser/build.sh'], { cwd: repoRoot, encoding: 'utf8', timeout: 300_000 });
  assert.equal(b.status, 0, `bash bench/browser/build.sh failed:\n${b.stderr}`);
  servers.push(...await Promise.all([serve(repoRoot), serve(repoRoot, { isolation: false })]));
  [isolated, unisolated] = servers.map((s) => s.url);
});

after(() => { for (const s of servers) s.close(); });

/** What the page shows when a wait fails. */
const shown = (page) => page.evaluate(() => [...document.querySelectorAll('.status, #error')]
  .map((e) => `${e.id}: ${e.textContent}`).join('\n'));

/** The text of the element `selector` (null if there is none). */
const text = (page, selector) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);

forEachEngine((engine, name) => describe(`${name}: the demo page`, () => {
  let browser;
  before(async () => { browser = await launchForTests(engine, { viewport: { width: 1280, height: 900 } }); });
  after(async () => { await browser?.close(); });

  test('runs all three experiments and draws every chart, one series per configuration', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${isolated}demo/?threads=1,2&size=small`);
      await page.waitFor(() => document.body.dataset.ready === 'true', null, { timeoutMs: RUN_TIMEOUT_MS });
      assert.match(await text(page, '#isolation'), /^cross-origin isolated/);
      assert.equal(await text(page, '#error'), '');
      await page.evaluate(() => document.querySelector('button[data-run=all]').click());
      try {
        await page.waitFor(() => ['math', 'malloc', 'fs'].every((id) => document.getElementById(`status-${id}`).dataset.state === 'done')
          || document.querySelector('.status[data-state=error]'), null, { timeoutMs: RUN_TIMEOUT_MS });
      } catch {
        assert.fail(`the experiments did not finish within ${RUN_TIMEOUT_MS} ms; the page shows:\n${await shown(page)}`);
      }
      for (const id of ['math', 'malloc', 'fs']) {
        assert.equal(await page.evaluate((i) => document.getElementById(`status-${i}`).dataset.state, id), 'done', await shown(page));
      }

      const screenshot = await page.screenshot();
      assert.ok(screenshot.subarray(0, 8).equals(PNG) && screenshot.length > 10_000, 'the screenshot is not a PNG of the page');

      // The DOM of every chart: the series of each configuration with one point per x it runs at.
      const charts = await page.evaluate(() => window.spindleDemo.EXPERIMENTS.flatMap((e) => e.charts.map((c) => ({
        id: c.id,
        xs: c.x === 'threads' ? ['1', '2'] : c.x,
        series: c.series.map((s) => ({ id: s.id, only: s.only ?? null })),
        drawn: [...document.querySelectorAll(`#chart-${c.id} g.series`)].map((g) => ({
          id: g.dataset.series,
          points: [...g.querySelectorAll('.point')].map((p) => ({ x: p.dataset.x, value: Number(p.dataset.value) })),
          lines: g.querySelectorAll('path.line').length,
        })),
        axes: document.querySelectorAll(`#chart-${c.id} g.axis`).length,
        legend: document.querySelectorAll(`#chart-${c.id} g.legend text`).length,
        rows: document.querySelectorAll(`#table-${c.id} tbody tr`).length,
        ratios: [...document.querySelectorAll(`#ratios-${c.id} li`)].map((li) => li.textContent),
      }))));
      assert.deepEqual(charts.map((c) => c.id), ['math', 'malloc', 'fs-where', 'fs-threads']);
      for (const c of charts) {
        assert.deepEqual(c.drawn.map((s) => s.id), c.series.map((s) => s.id), `${c.id}: one <g class=series> per configuration`);
        assert.equal(c.axes, 1, `${c.id}: axes`);
        assert.equal(c.legend, c.series.length, `${c.id}: one legend entry per configuration`);
        let points = 0;
        for (const s of c.drawn) {
          const want = c.series.find((x) => x.id === s.id).only ?? c.xs;
          assert.deepEqual(s.points.map((p) => p.x), want, `${c.id}/${s.id}: one point per x`);
          for (const p of s.points) assert.ok(Number.isFinite(p.value) && p.value > 0, `${c.id}/${s.id} at ${p.x}: ${p.value}`);
          if (c.xs[0] === '1') assert.equal(s.lines, 1, `${c.id}/${s.id}: a line through its points`);
          points += s.points.length;
        }
        assert.equal(c.rows, points, `${c.id}: one table row per point`);
        // Ratios of medians: per x against the first series, or (one series) per T against T=1.
        const want = c.series.length === 1 ? c.xs.length - 1 : points - c.drawn[0].points.length;
        assert.equal(c.ratios.length, want, `${c.id}: ratios ${JSON.stringify(c.ratios)}`);
        for (const r of c.ratios) assert.match(r, /= \d+\.\d\dx?$/);
      }
      // Each chart as the user sees it: a box with an area.
      for (const c of charts) {
        const box = await page.evaluate((id) => { const r = document.getElementById(`chart-${id}`).getBoundingClientRect(); return [r.width, r.height]; }, c.id);
        assert.ok(box[0] > 0 && box[1] > 0, `#chart-${c.id} has no box: ${box}`);
      }
      assert.deepEqual((await page.messages()).filter((m) => m.type === 'pageerror'), []);
    } finally {
      await page.close();
    }
  });

  test('without cross-origin isolation: NOT_ISOLATED names the headers, the buttons are disabled', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${unisolated}demo/`);
      await page.waitFor(() => document.getElementById('error').textContent !== '', null, { timeoutMs: RUN_TIMEOUT_MS });
      assert.match(await text(page, '#isolation'), /^NOT cross-origin isolated/);
      const error = await text(page, '#error');
      assert.match(error, /^NOT_ISOLATED: /);
      for (const header of ['Cross-Origin-Opener-Policy: same-origin', 'Cross-Origin-Embedder-Policy: require-corp']) {
        assert.ok(error.includes(header), `the error does not name "${header}": ${error}`);
      }
      assert.ok(await page.evaluate(() => { const bs = [...document.querySelectorAll('button[data-run]')]; return bs.length > 0 && bs.every((b) => b.disabled); }));
    } finally {
      await page.close();
    }
  });

  test('programs that are not served: the page says which and how to build them', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${isolated}demo/?programs=/no/such/dir/`);
      await page.waitFor(() => document.body.dataset.ready === 'true', null, { timeoutMs: RUN_TIMEOUT_MS });
      const error = await text(page, '#error');
      assert.match(error, /programs not found under http:\/\/127\.0\.0\.1:\d+\/no\/such\/dir\/: .*math\.wasm/);
      assert.match(error, /bash bench\/browser\/build\.sh/);
    } finally {
      await page.close();
    }
  });
}));
