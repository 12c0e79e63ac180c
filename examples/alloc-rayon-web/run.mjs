/**
 * Drives the example from Node (its browser test and the malloc-web benchmark): loads the page
 * with a query and returns the page's result, telling a thread pool that never started apart from
 * a job that does not finish.
 *
 * Why: in Firefox ESR 153, `new Worker()` called inside a worker sometimes does not return (see
 * main.js); wasm-bindgen-rayon creates its pool that way, so such a load never reaches the job,
 * with either allocator. The page says how far it got (`window.phase`). A load whose pool has not
 * started after `poolMs` is a pool stall: it is counted and the load is repeated in a fresh tab, at
 * most `retries` times. A job that started and does not finish in `jobMs` is an error (never
 * retried): that one would be the allocator's.
 */

/** Phases of a page whose job has not started yet (main.js, worker.js). */
const BEFORE_JOB = ['loading', 'starting the thread pool'];

/**
 * Loads `url` in a new tab of `browser` (tools/browsers) and resolves with
 * { result, stalls, phase }: the page's `window.result` ({ ok, ... } or { ok: false, error }),
 * how many loads stalled before the job, and the last load's phase. Rejects when the job started
 * but gave no result in `jobMs`, or when every load stalled (the message says which phase).
 */
export async function runExample(browser, url, { poolMs = 30_000, jobMs = 120_000, retries = 2 } = {}) {
  let stalls = 0;
  for (;;) {
    const page = await browser.newPage();
    try {
      await page.goto(url);
      const phase = await page.waitFor((before) => (window.result || !before.includes(window.phase)) && window.phase, BEFORE_JOB, { timeoutMs: poolMs })
        .catch(() => undefined);
      if (phase === undefined) {
        const stuck = await page.evaluate(() => window.phase);
        stalls++;
        if (stalls > retries) throw new Error(`${url}: the page stayed in phase '${stuck}' for ${poolMs} ms in ${stalls} loads in a row (the thread pool never started)`);
        continue;
      }
      const result = await page.waitFor(() => window.result, null, { timeoutMs: jobMs }).catch(async () => {
        throw new Error(`${url}: no result ${jobMs} ms after the job started (phase '${await page.evaluate(() => window.phase)}'); page messages: ${JSON.stringify(await page.messages())}`);
      });
      if (!result.ok) result.error = `${result.error}\npage messages: ${JSON.stringify(await page.messages())}`;
      return { result, stalls, phase: 'done' };
    } finally {
      await page.close();
    }
  }
}
