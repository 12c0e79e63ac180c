// The page: runs the job in a dedicated worker (rayon's calling thread blocks, which the page's
// main thread may not), shows the result, and keeps it in `window.result` (read by the test and the
// benchmark): { ok, alloc, threads, job, items, checksum, ms, memoryBytes } or { ok: false, error }.
const params = new URLSearchParams(location.search);
const config = {
  alloc: params.get('alloc') ?? 'spindle',
  threads: Number(params.get('threads') ?? navigator.hardwareConcurrency ?? 2),
  job: params.get('job') ?? 'malloc',
  items: Number(params.get('items') ?? 20000),
};
const out = document.getElementById('out');

function finish(result) {
  window.result = result;
  out.textContent = JSON.stringify(result, null, 1);
  document.title = result.ok ? 'done' : 'failed';
}

if (!crossOriginIsolated) {
  finish({ ok: false, error: 'the page is not cross-origin isolated: serve it with COOP same-origin and COEP require-corp' });
} else {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (e) => finish(e.data);
  worker.onerror = (e) => finish({ ok: false, error: `worker error: ${e.message}` });
  worker.postMessage(config);
}
