// Diagnostic (2026-11-27, Chromium): each call of the job timed in one page, per thread count and
// allocator: `node reps.mjs [items=20000] [calls=4] [rounds=2] [extra Chromium flags...]`, e.g.
// `node reps.mjs 20000 4 1 '--js-flags=--no-liftoff --no-wasm-lazy-compilation'`. Prints one JSON
// line per load: pool (initThreadPool ms) and calls (ms of each call). Needs the example built.
import * as browsers from '../../../../tools/browsers/index.mjs';
import { FLAGS } from '../../../../tools/browsers/chromium.mjs';
import { chromium } from '../../../../tools/browsers/node_modules/playwright-core/index.mjs';
const [items = '20000', reps = '4', rounds = '2', ...extraFlags] = process.argv.slice(2);
const server = await browsers.serve(new URL('../../../../examples/alloc-rayon-web', import.meta.url).pathname);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...FLAGS, ...extraFlags], headless: true });
const ctx = await browser.newContext();
try {
  for (let r = 0; r < +rounds; r++) for (const t of [1, 2, 4]) for (const alloc of ['default', 'spindle']) {
    const page = await ctx.newPage();
    await page.goto(`${server.url}?alloc=${alloc}&threads=${t}&items=${items}&calls=${reps}`);
    await page.waitForFunction(() => window.result, null, { timeout: 300000, polling: 20 });
    const x = await page.evaluate(() => window.result);
    console.log(JSON.stringify({ alloc, t, pool: Math.round(x.poolMs), calls: x.callsMs.map(Math.round), ok: x.ok }));
    await page.close();
  }
} finally { await browser.close(); server.close(); }
