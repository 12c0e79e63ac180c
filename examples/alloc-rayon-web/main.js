// The page: runs the job in a dedicated worker (rayon's calling thread blocks, which the page's
// main thread may not), shows the result, and keeps it in `window.result` (read by the test and the
// benchmark): { ok, alloc, threads, job, items, checksum, ms, poolMs, memoryBytes, ... } (worker.js) or
// { ok: false, error }.
// `window.phase` says how far it got ('loading', 'starting the thread pool', 'running the job',
// 'starting thread N' / 'thread N running' in the `threads` job, 'done') and `window.phaseSince`
// since when (performance.now()). In Firefox ESR 153 under WebDriver (the test and the benchmark)
// a worker created inside a worker (the pool's workers and the `threads` job's are nested ones)
// sometimes never starts: `new Worker()` does not return (seen 1-7 times in 20 loads here, with
// either allocator, before any of the job's allocations; docs/known-issues/firefox-nested-worker.md:
// a lost wake-up in Firefox's debugger registration, never without automation). Such a page stays
// in a 'starting ...' phase; run.mjs (beside this file) tells that apart from a job that does not
// finish.
const params = new URLSearchParams(location.search);
const config = {
  alloc: params.get('alloc') ?? 'spindle',
  threads: Number(params.get('threads') ?? navigator.hardwareConcurrency ?? 2),
  job: params.get('job') ?? 'malloc',
  items: Number(params.get('items') ?? 20000),
  calls: Number(params.get('calls') ?? 1),
  trace: params.get('trace') === '1',
};
const out = document.getElementById('out');

window.phase = 'loading';
window.phaseSince = performance.now();

function finish(result) {
  window.phase = 'done';
  window.result = result;
  out.textContent = JSON.stringify(result, null, 1);
  document.title = result.ok ? 'done' : 'failed';
}

if (!crossOriginIsolated) {
  finish({ ok: false, error: 'the page is not cross-origin isolated: serve it with COOP same-origin and COEP require-corp' });
} else {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (e) => {
    if (e.data.phase) {
      window.phase = e.data.phase;
      window.phaseSince = performance.now();
      out.textContent = `${e.data.phase}…`;
    } else {
      finish(e.data);
    }
  };
  worker.onerror = (e) => finish({ ok: false, error: `worker error: ${e.message}` });
  worker.postMessage(config);
}
