// node run.mjs OUTDIR ROUNDS ROUTE[,ROUTE] [--prof DIR]: loads each route's bundle page in a fresh Chromium, prints loadMs/firstMs
import { createRequire } from 'node:module';
import { writeFileSync, mkdirSync } from 'node:fs';
const require = createRequire('/work/wt/napi-node2/tools/browsers/package.json');
const { chromium } = require('playwright-core');
const { serve } = await import('/work/wt/napi-node2/tools/browsers/index.mjs');
const [out, rounds, routes, , profDir] = process.argv.slice(2);
const server = await serve(out);
const dirOf = { stock: 'stock', dropin: 'on-spindle', direct: 'on-spindle' };
const res = {};
try {
  for (let r = 0; r < Number(rounds); r++) for (const route of routes.split(',')) {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'], headless: true });
    const context = await browser.newContext(); const page = await context.newPage();
    const msgs = []; page.on('console', (m) => msgs.push(m.text()));
    let cdp;
    if (profDir) { cdp = await context.newCDPSession(page); await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 200 }); await cdp.send('Profiler.start'); }
    await page.goto(`${server.url}${dirOf[route]}/?job=${process.env.JOB ?? "bundle"}&route=${route}&repeat=1`);
    const result = await page.waitForFunction(() => window.napiResult, null, { timeout: 120000 }).then((h) => h.jsonValue());
    if (cdp) { const { profile } = await cdp.send('Profiler.stop'); mkdirSync(profDir, { recursive: true }); writeFileSync(`${profDir}/${route}-${r}.cpuprofile`, JSON.stringify(profile)); }
    if (result.error) throw new Error(result.error + '\n' + msgs.join('\n'));
    (res[route] ??= []).push(result);
    console.log(route, 'load', result.loadMs.toFixed(0), 'first', result.firstMs?.toFixed(0), msgs.filter((m) => m.startsWith('PH')).join(' '));
    await browser.close();
  }
} finally { server.close(); }
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[(s.length - 1) >> 1]; };
for (const [k, v] of Object.entries(res)) console.log('median', k, 'load', med(v.map((x) => x.loadMs)).toFixed(0), 'first', med(v.map((x) => x.firstMs)).toFixed(0));
