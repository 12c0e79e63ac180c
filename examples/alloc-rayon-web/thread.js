// A short-lived wasm thread of the `threads` job (worker.js): instantiates the program on the shared
// memory, allocates on this thread (which gives it a heap), then tears the thread down the way
// wasm-bindgen documents it (`__wbindgen_thread_destroy`: frees the thread's TLS block and stack),
// and reports. The allocator sees the TLS block freed and retires the thread's heap.
onmessage = async ({ data: { alloc, module, memory, items } }) => {
  postMessage({ started: true }); // the worker runs (worker.js: phase 'thread N running')
  try {
    const pkg = await import(`./pkg-${alloc}/alloc_rayon_web.js`);
    const wasm = await pkg.default({ module_or_path: module, memory });
    const checksum = pkg.run_local(items);
    wasm.__wbindgen_thread_destroy();
    postMessage({ ok: true, checksum });
  } catch (e) {
    postMessage({ ok: false, error: String(e?.stack ?? e) });
  }
};
