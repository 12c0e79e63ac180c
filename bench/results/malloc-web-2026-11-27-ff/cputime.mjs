// Where a malloc-web call's time goes, per call, from outside the browser (Linux /proc):
//   node bench/results/malloc-web-2026-11-27-ff/cputime.mjs [ENGINES] [PAGES] [CALLS] [THREADS] [ITEMS] [PREFS_JSON]
//   e.g. ... cputime.mjs firefox,chromium 3 6 1 20000 '{"javascript.options.wasm_baselinejit":false}'
// Loads examples/alloc-rayon-web (built by its build.sh) with each allocator, PAGES times per engine,
// pages of the engines one after the other, CALLS calls of the job per page; samples every thread
// of the browsers' content processes every 20 ms (/proc/PID/task/TID/{schedstat,stat,sched}) and,
// for each call (the page's callsAt/callsMs), prints for the thread that ran most in it: wall ms,
// its own CPU time (run), its run-queue wait, minor faults, CPU migrations, involuntary switches,
// the CPU time of every other thread of those processes, and the TLB shootdowns and function-call
// interrupts of both CPUs (/proc/interrupts) in the call. First line: t00, the epoch ms that the
// +Ns offsets count from. PREFS: Firefox about:config prefs.
// Run it under the bench lock: it is a benchmark.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const browsers = await import(join(repo, 'tools/browsers/index.mjs'));
const { runExample } = await import(join(repo, 'examples/alloc-rayon-web/run.mjs'));
const [engines = 'firefox', pages = '3', calls = '6', threads = '1', items = '20000', prefs = '{}'] = process.argv.slice(2);
const server = await browsers.serve(join(repo, 'examples/alloc-rayon-web'));
const bs = {};
for (const e of engines.split(',')) bs[e] = await browsers.launchForThreads(e, e === 'firefox' ? { prefs: JSON.parse(prefs) } : {});
const comm = (p) => { try { return readFileSync(`/proc/${p}/comm`, 'utf8').trim(); } catch { return ''; } };
let pids = [];
const refresh = () => { pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d) && /Web Co|Isolated|chrom/i.test(comm(d))); };
const series = new Map(); // `${comm}:${tid}` -> [[t, runMs, waitMs, minflt, cpu, migrations, involuntary]]
const irq = [];
function sample() {
  const t = Date.now();
  { const txt = readFileSync('/proc/interrupts', 'utf8'); const g = (n) => new RegExp(`^\\s*${n}:\\s+(\\d+)\\s+(\\d+)`, 'm').exec(txt); const a = g('TLB'), c = g('CAL'); irq.push([t, Number(a[1]) + Number(a[2]), Number(c[1]) + Number(c[2])]); }
  for (const p of pids) {
    let tids; try { tids = readdirSync(`/proc/${p}/task`); } catch { continue; }
    for (const tid of tids) {
      let s, st, sch;
      try {
        s = readFileSync(`/proc/${p}/task/${tid}/schedstat`, 'utf8').split(' ');
        st = readFileSync(`/proc/${p}/task/${tid}/stat`, 'utf8');
        sch = readFileSync(`/proc/${p}/task/${tid}/sched`, 'utf8');
      } catch { continue; }
      const f = st.slice(st.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 of proc(5)
      const k = `${comm(p).slice(0, 3)}:${tid}`;
      if (!series.has(k)) series.set(k, []);
      series.get(k).push([t, Number(s[0]) / 1e6, Number(s[1]) / 1e6, Number(f[7]), Number(f[36]),
        Number(/se\.nr_migrations\s*:\s*(\d+)/.exec(sch)?.[1] ?? 0), Number(/nr_involuntary_switches\s*:\s*(\d+)/.exec(sch)?.[1] ?? 0)]);
    }
  }
}
const at = (arr, t) => { let v = arr[0]; for (const x of arr) { if (x[0] <= t) v = x; else break; } return v; };
const t00 = Date.now(); console.log("t00", t00);
try {
  for (let p = 0; p < Number(pages); p++) {
    for (const alloc of ['default', 'spindle']) {
      for (const [engine, browser] of Object.entries(bs)) {
        series.clear(); irq.length = 0; refresh();
        const iv = setInterval(() => { if (Math.random() < 0.1) refresh(); sample(); }, 20);
        const { result: r } = await runExample(browser, `${server.url}?alloc=${alloc}&threads=${threads}&items=${items}&calls=${calls}`, { jobMs: 300_000, retries: 3 });
        clearInterval(iv);
        if (!r.ok) { console.log(`page ${p} ${engine} ${alloc}: ${r.error}`); continue; }
        console.log(`page ${p} ${engine} ${alloc}`);
        r.callsAt.forEach((t0, i) => {
          const t1 = t0 + r.callsMs[i];
          let best;
          for (const [k, arr] of series) {
            if ((engine === 'chromium') !== k.startsWith('chr')) continue;
            const a = at(arr, t0), b = at(arr, t1);
            if (a && b && (!best || b[1] - a[1] > best.run)) best = { k, run: b[1] - a[1], wait: b[2] - a[2], flt: b[3] - a[3], cpu: `${a[4]}>${b[4]}`, mig: b[5] - a[5], inv: b[6] - a[6] };
          }
          const ia = at(irq, t0), ib = at(irq, t1); const tlb = ib[1] - ia[1], cal = ib[2] - ia[2];
          let others = 0;
          for (const [k, arr] of series) { if (k === best?.k) continue; const a = at(arr, t0), b = at(arr, t1); if (a && b) others += b[1] - a[1]; }
          console.log(`  +${((t0 - t00) / 1000).toFixed(1)}s call ${i}: wall ${r.callsMs[i].toFixed(0)} run ${best?.run.toFixed(0)} wait ${best?.wait.toFixed(0)} faults ${best?.flt} cpu ${best?.cpu} migrations ${best?.mig} involuntary ${best?.inv} others ${others.toFixed(0)} tlb ${tlb} cal ${cal}`);
        });
      }
    }
  }
} finally {
  for (const b of Object.values(bs)) await b.close();
  server.close();
}
