/**
 * The demo's baseline: run a wasm32-wasip1-threads program whose files live in a JS filesystem
 * on the page's main thread (memfs.js), as @napi-rs/wasm-runtime does in browsers.
 *
 *   runOnMainThread   the program runs ON the page's main thread and calls the filesystem
 *                     directly (no threads: a main thread may not block)
 *   runProxied        the program runs on workers (a warm pool of `threads` + 1, slot 0 runs
 *                     _start); every file call is posted to the page and waited for (proxy.js)
 *
 * Both take a program loaded by spindle's `load()` (for its module and memory limits) and resolve
 * with { code, stdout, stderr }. A fresh filesystem with an empty /tmp per run.
 *
 * Thread rules: everything here runs on the page's main thread and never blocks; the page must
 * stay responsive, since it serves the workers' file calls.
 */
import { JsFs } from './memfs.js';
import { createOnMessage } from './proxy.js';
import { ExitSignal, wasiImports } from './wasi.js';
import { CMD_MAIN, controlBytes, NEXT_SLOT, slotWord } from './control.js';

const wasiNames = (module) => WebAssembly.Module.imports(module)
  .filter((i) => i.module === 'wasi_snapshot_preview1').map((i) => i.name);

function sharedMemory(program) {
  const m = program.memory;
  if (!m) throw new Error(`${program.name} defines its own memory; the baseline host needs an imported shared memory`);
  return new WebAssembly.Memory({ initial: m.initial, maximum: m.maximum ?? 65536, shared: true });
}

function collector() {
  const dec = [new TextDecoder(), new TextDecoder()];
  const text = ['', ''];
  return {
    output: (fd, bytes) => { text[fd - 1] += dec[fd - 1].decode(bytes, { stream: true }); },
    result: (code) => ({ code, stdout: text[0], stderr: text[1] }),
  };
}

/** Runs `_start` on the page's main thread with direct calls into a JS filesystem. */
export async function runOnMainThread(program, { args = [] } = {}) {
  const memory = sharedMemory(program);
  const out = collector();
  const imports = {
    wasi_snapshot_preview1: wasiImports({ memory: () => memory, args: [program.name, ...args], fs: new JsFs(), output: out.output },
      wasiNames(program.module)),
    wasi: { 'thread-spawn': () => -6 }, // no threads on the main thread: pthread_create fails with EAGAIN
    [program.memory.module]: { [program.memory.name]: memory },
  };
  const instance = await WebAssembly.instantiate(program.module, imports);
  try {
    instance.exports._start();
    return out.result(0);
  } catch (e) {
    if (e instanceof ExitSignal) return out.result(e.code);
    throw e;
  }
}

/** Runs the program on a warm pool of workers whose file calls are proxied to this thread. */
export function runProxied(program, { args = [], threads = 1 } = {}) {
  const memory = sharedMemory(program);
  const control = new SharedArrayBuffer(controlBytes(threads + 1));
  const ctl = new Int32Array(control);
  ctl[NEXT_SLOT] = 1;
  const serveFs = createOnMessage(new JsFs());
  const out = collector();
  const workers = [];
  return new Promise((resolve, reject) => {
    let ready = 0;
    const end = (settle) => {
      for (const w of workers) w.terminate();
      settle();
    };
    const init = {
      module: program.module, memory, memoryImport: { module: program.memory.module, name: program.memory.name },
      control, poolSize: threads, args: [program.name, ...args], wasiNames: wasiNames(program.module),
    };
    for (let slot = 0; slot <= threads; slot++) {
      const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: `jsfs slot ${slot}` });
      workers.push(w);
      w.onmessage = ({ data }) => {
        if (serveFs(data)) return;
        if (data.out) out.output(data.out, data.bytes);
        else if (data.ready !== undefined && ++ready === workers.length) {
          Atomics.store(ctl, slotWord(0, 0), CMD_MAIN);
          Atomics.notify(ctl, slotWord(0, 0));
        } else if (data.exit !== undefined) end(() => resolve(out.result(data.exit)));
        else if (data.trap) end(() => reject(new Error(`baseline host: a thread trapped: ${data.trap}`)));
      };
      w.onerror = (e) => { e.preventDefault(); end(() => reject(new Error(`baseline host: worker failed: ${e.message}`))); };
      w.postMessage({ ...init, slot });
    }
  });
}
