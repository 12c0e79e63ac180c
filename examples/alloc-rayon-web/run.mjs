/**
 * Drives the example from Node (its browser test and the malloc-web benchmark): loads the page
 * with a query and returns the page's result, telling a worker that never started apart from a
 * job that does not finish.
 *
 * Why: in Firefox ESR 153 under WebDriver a worker created inside a worker sometimes never starts
 * (main.js; docs/known-issues/firefox-nested-worker.md);
 * wasm-bindgen-rayon creates its pool that way, and so does the `threads` job, so such a load
 * never gets its threads, with either allocator. The page says how far it got (`window.phase`,
 * `window.phaseSince`). A load that stays in a 'loading' or 'starting ...' phase for `startMs` is
 * a start stall: it is counted and the load is repeated in a fresh tab, at most `retries` times.
 * A load without a result after `jobMs` in all is an error (never retried): that one would be
 * the allocator's.
 */

/** Resolves with the page's result, 'stalled', or undefined at the timeout (in the page). */
function pageOutcome(startMs) {
  if (window.result) return window.result;
  const starting = window.phase === 'loading' || window.phase.startsWith('starting');
  return starting && performance.now() - window.phaseSince > startMs ? 'stalled' : undefined;
}

/**
 * Loads `url` in a new tab of `browser` (tools/browsers) and resolves with { result, stalls }: the
 * page's `window.result` ({ ok, ... } or { ok: false, error } with the page's messages) and how
 * many loads stalled before their threads started. Rejects when a load gave no result in `jobMs`,
 * or when `retries` + 1 loads in a row stalled (the message says in which phase).
 */
export async function runExample(browser, url, { startMs = 30_000, jobMs = 120_000, retries = 2 } = {}) {
  let stalls = 0;
  for (;;) {
    const page = await browser.newPage();
    try {
      await page.goto(url);
      const outcome = await page.waitFor(pageOutcome, startMs, { timeoutMs: jobMs }).catch(async () => {
        throw new Error(`${url}: no result after ${jobMs} ms (phase '${await page.evaluate(() => window.phase)}'); page messages: ${JSON.stringify(await page.messages())}`);
      });
      if (outcome === 'stalled') {
        const phase = await page.evaluate(() => window.phase);
        if (++stalls > retries) throw new Error(`${url}: ${stalls} loads in a row stayed in a phase like '${phase}' for ${startMs} ms (their workers never started)`);
        continue;
      }
      if (!outcome.ok) outcome.error = `${outcome.error}\npage messages: ${JSON.stringify(await page.messages())}`;
      return { result: outcome, stalls };
    } finally {
      await page.close();
    }
  }
}
