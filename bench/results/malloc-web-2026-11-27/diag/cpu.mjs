// Diagnostic (2026-11-27, Chromium): the CPU time of each of the renderer's threads while the job
// runs (/proc/<pid>/task/<tid>/stat, with the nice value after the thread's name), over the job's
// 3 calls: `node cpu.mjs [items=200000] [threads=1,2,4] [allocs=default,spindle]`; RENICE=1
// renices the pool's worker threads to -20 first (run as root; a shared machine's other work then
// yields to them). wcpu: CPU seconds of the DedicatedWorker threads; wcores: wcpu per second of
// the window (which also covers the /proc scans: it under-reads by about a fifth).
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
const RENICE = process.env.RENICE === '1';
import * as browsers from '../../../../tools/browsers/index.mjs';
import { FLAGS } from '../../../../tools/browsers/chromium.mjs';
import { chromium } from '../../../../tools/browsers/node_modules/playwright-core/index.mjs';
const items = Number(process.argv[2] ?? 200000);
const threadsList = (process.argv[3] ?? '1,2,4').split(',').map(Number);
const allocs = (process.argv[4] ?? 'default,spindle').split(',');
const tag = `--diag-tag-${process.pid}`;
const server = await browsers.serve(new URL('../../../../examples/alloc-rayon-web', import.meta.url).pathname);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...FLAGS, tag], headless: true });
const ctx = await browser.newContext();
const hz = 100;
const stat = (pid) => { const s = readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return { ppid: +f[1], cpu: (+f[11] + +f[12]) / hz }; };
function ours() {
  const out = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      let p = +d, hops = 0;
      while (p > 1 && hops++ < 6) { if (readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(tag)) { out.push(+d); break; } p = stat(p).ppid; }
    } catch {}
  }
  return out;
}
function threads() { const m = {}; for (const p of ours()) { try { for (const t of readdirSync(`/proc/${p}/task`)) { try { const comm = readFileSync(`/proc/${p}/task/${t}/comm`, 'utf8').trim(); const sf = readFileSync(`/proc/${p}/task/${t}/stat`, 'utf8'); const ff = sf.slice(sf.lastIndexOf(')') + 2).split(' '); m[`${p}/${t}`] = { comm: `${comm}@${ff[16]}`, cpu: stat(`${p}/task/${t}`).cpu }; } catch {} } } catch {} } return m; }
function diff(a, b) { const g = {}; for (const [k, v] of Object.entries(b)) { const d = v.cpu - (a[k]?.cpu ?? 0); if (d > 0.02) (g[v.comm] ??= []).push(+d.toFixed(2)); } return g; }
const totalCpu = () => { let c = 0; for (const p of ours()) { try { c += stat(p).cpu; } catch {} } return c; };
try {
  for (const rep of [1, 2]) for (const t of threadsList) for (const alloc of allocs) {
    const page = await ctx.newPage();
    await page.goto(`${server.url}?alloc=${alloc}&threads=${t}&items=${items}&calls=3`);
    // wait for running phase
    await page.waitForFunction(() => window.phase === 'running the job' || window.result, null, { timeout: 60000, polling: 5 });
    if (RENICE) { for (const p of ours()) { for (const t of readdirSync(`/proc/${p}/task`)) { try { if (readFileSync(`/proc/${p}/task/${t}/comm`, 'utf8').startsWith('DedicatedWorker')) execFileSync('renice', ['-n', '-20', '-p', t], { stdio: 'ignore' }); } catch {} } } }
    const c0 = totalCpu(), w0 = performance.now(), th0 = threads();
    await page.waitForFunction(() => window.result, null, { timeout: 300000, polling: 20 });
    const c1 = totalCpu(), w1 = performance.now(), th1 = threads();
    const r = await page.evaluate(() => window.result);
    console.log(JSON.stringify({ alloc, t, ms: Math.round(r.callsMs.reduce((a,b)=>a+b,0)), calls: r.callsMs.map(Math.round), wcpu: +Object.entries(diff(th0, th1)).filter(([k]) => k.startsWith("DedicatedWorker")).flatMap(([, v]) => v).reduce((a, b) => a + b, 0).toFixed(2), poolMs: Math.round(r.poolMs), wcores: +(Object.entries(diff(th0, th1)).filter(([k]) => k.startsWith('DedicatedWorker')).flatMap(([, v]) => v).reduce((a, b) => a + b, 0) / ((w1 - w0) / 1000)).toFixed(2), thr: diff(th0, th1) }));
    await page.close();
  }
} finally { await browser.close(); server.close(); }
