/**
 * What the browser test files share (browser, opfs, demo, growth): the engines they run in, a
 * launch with the test settings, run.html's outcome, and the rule for what an engine cannot do.
 *
 * Every suite runs once per engine of tools/browsers (Chromium, Firefox ESR, WebKitGTK), one
 * browser per engine per test file. A missing engine FAILS the suite with what to install (the
 * test set-up installs them); SPINDLE_BROWSERS=chromium,firefox narrows a local run, and every
 * engine left out shows as a skipped test saying so (counted, never silent). Where an engine
 * lacks a feature, the test asks the page, and skips with the engine's answer (`skipUnless`).
 *
 * WebKitGTK runs with JSC_useSharedArrayBuffer=1 in its environment: WebKitGTK 2.50 creates
 * shared wasm memory in a cross-origin isolated page but cannot post it to a worker (WebKit bug
 * 317847; Safari can), so without it no threaded program can run. browser.test.mjs checks that,
 * without it, spindle refuses with a message saying so.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { ENGINE_NAMES, ENGINES, launchForThreads, openUnattended } from '../../tools/browsers/index.mjs';

export { ENGINE_NAMES, serve } from '../../tools/browsers/index.mjs';

/** One page's run (generous: the machine may be loaded); a hang fails the test with what the page showed. */
export const PAGE_TIMEOUT_MS = 90_000;

/** The engines to run, from SPINDLE_BROWSERS (default: all); an unknown name is an error. */
function selected() {
  const raw = process.env.SPINDLE_BROWSERS;
  if (!raw) return ENGINES;
  const names = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) assert.ok(ENGINES.includes(n), `SPINDLE_BROWSERS: unknown engine '${n}' (one of ${ENGINES.join(', ')})`);
  return names;
}

/**
 * Calls `suite(engine, name)` for each selected engine (it declares that engine's describe), and
 * declares one skipped test per engine left out by SPINDLE_BROWSERS.
 */
export function forEachEngine(suite) {
  const chosen = selected();
  for (const engine of ENGINES) {
    if (chosen.includes(engine)) suite(engine, ENGINE_NAMES[engine]);
    else test(`${ENGINE_NAMES[engine]}: not run`, { skip: `SPINDLE_BROWSERS=${process.env.SPINDLE_BROWSERS} leaves ${engine} out` }, () => {});
  }
}

/** Launches `engine` the way the tests run it (WebKitGTK with the launcher's WEBKIT_THREADS_ENV). */
export const launchForTests = launchForThreads;

/** Navigates `page` to `url` (a run.html page) and resolves with window.spindleResult. */
export async function pageResult(page, url, timeoutMs = PAGE_TIMEOUT_MS) {
  await page.goto(url);
  try {
    return await page.waitFor(() => window.spindleResult, null, { timeoutMs });
  } catch {
    const shown = await page.evaluate(() => ['status', 'stdout', 'stderr', 'error']
      .map((id) => `${id}: ${document.getElementById(id)?.textContent}`).join('\n')).catch((e) => `(the page did not answer: ${e.message})`);
    assert.fail(`${url} did not finish within ${timeoutMs} ms; the page shows:\n${shown}`);
  }
}

/**
 * Skips the running test `t` (a counted skip with `reason`) when `available` is false; returns
 * `available`. The reason names the engine and what it lacks.
 */
export function skipUnless(t, available, reason) {
  if (!available) t.skip(reason);
  return available;
}

/**
 * The message of a trap in `engine`, as run.html's stderr shows it after "wasm trap: ": each
 * engine words its traps itself (V8: "unreachable", SpiderMonkey: "unreachable executed",
 * JavaScriptCore: "Unreachable code should not be executed").
 */
export const UNREACHABLE = {
  chromium: /unreachable/,
  firefox: /unreachable executed/,
  webkit: /Unreachable code should not be executed/,
};

/**
 * Opens `pageUrl` + `&report=URL` in `engine` with no automation attached (tools/browsers
 * openUnattended) and collects what the page POSTs to that URL (JSON, one object per request)
 * until it posts { done: true }. Resolves with the objects before it; a page that has not
 * finished within `timeoutMs` fails the test with what it reported so far.
 */
export async function unattendedReports(engine, pageUrl, timeoutMs) {
  const reports = [];
  let finish;
  const finished = new Promise((resolve) => { finish = resolve; });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      try {
        const r = JSON.parse(body);
        if (r.done) finish(); else reports.push(r);
      } catch {
        reports.push({ error: `not JSON: ${body.slice(0, 200)}` });
      }
      res.writeHead(204, { 'Access-Control-Allow-Origin': '*' });
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const report = `http://127.0.0.1:${server.address().port}/`;
  const browser = await openUnattended(engine, `${pageUrl}&report=${encodeURIComponent(report)}`);
  let timer;
  try {
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${pageUrl} did not finish within ${timeoutMs} ms; it reported: ${JSON.stringify(reports)}`)), timeoutMs);
    });
    await Promise.race([finished, timeout]);
    return reports;
  } finally {
    clearTimeout(timer);
    await browser.close();
    server.close();
  }
}
