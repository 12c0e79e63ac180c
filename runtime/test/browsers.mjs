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
import { test } from 'node:test';
import { ENGINE_NAMES, ENGINES, launchForThreads } from '../../tools/browsers/index.mjs';

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
