// Loads the build of the chosen allocator and runs one job, then posts
// { ok, alloc, threads, job, items, checksum, ms, poolMs, callsMs, memoryBytes, stats } (or { ok: false, error }):
// `ms` is the job's own wall time (the call that runs it, or in the `threads` job the whole loop);
// `poolMs` the start of the rayon pool before it (initThreadPool: creating the pool's workers and
// instantiating the module in each, which grows with the thread count and is no part of the job's
// throughput; a program starts its pool once). `calls` (the `malloc` job; default 1) runs the job
// that many times in a row on the same pool: `callsMs` has each call's time (`ms` is the first's),
// `callsAt` each call's start in ms since the epoch (to line calls up with samples taken outside
// the browser, such as a thread's CPU time from /proc: bench/results/malloc-web-2026-11-27-ff/).
// The first call of a fresh page pays one-time costs that later calls do not (in Chromium about
// 100 ms more at T=1: bench/results/malloc-web-2026-11-27/); the later calls are the job's
// steady throughput. With `trace` (the `malloc` job) each call runs as
// `run_job_traced` and the result has `trace` of the last: { ms, threads: [{ items, first, last,
// busy }] } per rayon thread (src/lib.rs).
// Before that it posts { phase } as it goes: 'starting the thread pool' (wasm-bindgen-rayon's
// initThreadPool creates the pool's workers from this worker and waits until each runs), then
// 'running the job'; the `threads` job posts 'starting thread N' before it creates a thread's
// worker and 'thread N running' once that worker runs. A page stuck in a 'starting' phase never
// got its worker (see main.js).
// Jobs: `malloc` (run_job on a rayon pool of `threads`), `handoff` (grow_handoff: memory one rayon
// thread grew, allocated by another), `threads` (`items` short-lived wasm threads one after the
// other, each allocating and then destroyed with __wbindgen_thread_destroy: their heaps must be
// reused, so `stats.heaps` stays small).
// An error in one of rayon's workers (nested workers) reaches this worker's global scope: report
// it rather than wait forever for a job that cannot finish.
self.addEventListener('error', (e) => postMessage({ ok: false, error: `error in a rayon worker: ${e.message}` }));

onmessage = async ({ data: config }) => {
  try {
    if (config.alloc !== 'spindle' && config.alloc !== 'default') throw new Error(`alloc must be spindle or default, not ${config.alloc}`);
    const pkg = await import(`./pkg-${config.alloc}/alloc_rayon_web.js`);
    const wasm = await pkg.default();
    let checksum, ms, poolMs, callsMs, callsAt, trace;
    if (config.job === 'threads') {
      const t0 = performance.now();
      checksum = await shortThreads(config, wasm);
      ms = performance.now() - t0;
    } else {
      postMessage({ phase: 'starting the thread pool' });
      const t0 = performance.now();
      await pkg.initThreadPool(config.threads);
      poolMs = performance.now() - t0;
      postMessage({ phase: 'running the job' });
      if (config.job === 'handoff') {
        const t1 = performance.now();
        checksum = pkg.grow_handoff(config.items);
        ms = performance.now() - t1;
      } else {
        callsMs = [];
        callsAt = [];
        for (let i = 0; i < Math.max(1, config.calls ?? 1); i++) {
          const t1 = performance.now();
          callsAt.push(performance.timeOrigin + t1);
          let sum;
          if (config.trace) ({ checksum: sum, ...trace } = JSON.parse(pkg.run_job_traced(config.items)));
          else sum = pkg.run_job(config.items);
          callsMs.push(performance.now() - t1);
          if (checksum !== undefined && sum !== checksum) throw new Error(`call ${i + 1} of the job gave checksum ${sum}, the first ${checksum}`);
          checksum = sum;
        }
        ms = callsMs[0];
      }
    }
    const memoryBytes = Math.max(pkg.memory_bytes(), wasm.memory.buffer.byteLength);
    postMessage({ ok: true, ...config, checksum, ms, poolMs, callsMs, callsAt, trace, memoryBytes, stats: JSON.parse(pkg.alloc_stats()) });
  } catch (e) {
    postMessage({ ok: false, ...config, error: String(e?.stack ?? e) });
  }
};

/** Runs `config.items` threads one after the other; resolves with the checksums joined. */
async function shortThreads(config, wasm) {
  const module = await WebAssembly.compileStreaming(fetch(`./pkg-${config.alloc}/alloc_rayon_web_bg.wasm`));
  const sums = new Set();
  for (let i = 0; i < config.items; i++) {
    postMessage({ phase: `starting thread ${i}` });
    const w = new Worker(new URL('./thread.js', import.meta.url), { type: 'module' });
    const r = await new Promise((resolve) => {
      w.onmessage = (e) => (e.data.started ? postMessage({ phase: `thread ${i} running` }) : resolve(e.data));
      w.onerror = (e) => resolve({ ok: false, error: `thread ${i}: ${e.message}` });
      w.postMessage({ alloc: config.alloc, module, memory: wasm.memory, items: 20 });
    });
    w.terminate();
    if (!r.ok) throw new Error(r.error);
    sums.add(r.checksum);
  }
  return [...sums].join(',');
}
