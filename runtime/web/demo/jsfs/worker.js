/**
 * A worker of the demo's baseline host (host.js): one wasm thread of a program whose files live in
 * the page's JS filesystem, every file call proxied to the page (proxy.js). Like a warm pool
 * worker, it instantiates the module first, says `ready`, then waits on its command word for
 * `_start` (slot 0) or a thread (`wasi_thread_start(tid, arg)`). One thread per worker.
 *
 * To the page it posts: { ready }, { out: fd, bytes }, { __fs__ } requests, { exit: code } and
 * { trap: message }.
 */
import { createFsProxy } from './proxy.js';
import { ExitSignal, wasiImports } from './wasi.js';
import { CMD_MAIN, CMD_NONE, CMD_THREAD, NEXT_SLOT, slotWord } from './control.js';

self.onmessage = (e) => {
  self.onmessage = null;
  serve(e.data);
};

function serve(init) {
  const ctl = new Int32Array(init.control);
  const wasi = wasiImports({
    memory: () => init.memory,
    args: init.args,
    fs: createFsProxy(),
    output: (fd, bytes) => self.postMessage({ out: fd, bytes }),
  }, init.wasiNames);
  const imports = {
    wasi_snapshot_preview1: wasi,
    wasi: { 'thread-spawn': (arg) => spawn(ctl, init.poolSize, arg) },
    [init.memoryImport.module]: { [init.memoryImport.name]: init.memory },
  };
  const instance = new WebAssembly.Instance(init.module, imports);
  self.postMessage({ ready: init.slot });
  const cmd = slotWord(init.slot, 0);
  while (Atomics.load(ctl, cmd) === CMD_NONE) Atomics.wait(ctl, cmd, CMD_NONE);
  try {
    if (Atomics.load(ctl, cmd) === CMD_MAIN) {
      instance.exports._start();
      self.postMessage({ exit: 0 });
    } else {
      instance.exports.wasi_thread_start(ctl[slotWord(init.slot, 1)], ctl[slotWord(init.slot, 2)]);
    }
  } catch (e) {
    if (e instanceof ExitSignal) self.postMessage({ exit: e.code });
    else self.postMessage({ trap: `${e?.name ?? 'Error'}: ${e?.message ?? e}` });
  }
}

/** wasi-threads thread-spawn: the next prewarmed worker gets the thread; -6 (EAGAIN) when none is left. */
function spawn(ctl, poolSize, arg) {
  const slot = Atomics.add(ctl, NEXT_SLOT, 1);
  if (slot > poolSize) return -6;
  ctl[slotWord(slot, 1)] = slot; // thread id = slot (1..poolSize)
  ctl[slotWord(slot, 2)] = arg;
  Atomics.store(ctl, slotWord(slot, 0), CMD_THREAD);
  Atomics.notify(ctl, slotWord(slot, 0));
  return slot;
}
