// The reference filesystem workload (bench/fs/workload.c: per round over 64 files create+write
// 1 KiB+close, open+read+close, stat) in Chromium, on the in-program FS (issue 6, OPFS bench):
//   memory      SPINDLE_FS_MOUNTS=/data            (the same binary, no OPFS mount)
//   opfs        SPINDLE_FS_MOUNTS=/data=opfs:DIR   (cache in memory, write-back queued at close)
//   opfs+fsync  the same with an fsync of /data at the end inside the timing (every write-back
//               has reached OPFS: the durable figure; tests/fs-guests/opfs_guest.c `workload`)
//   sah/op      page JS in a dedicated worker doing each operation through OPFS directly:
//               getFileHandle + createSyncAccessHandle + truncate/write/flush (or read/getSize) +
//               close per file operation (what a program without a cache would do)
// Each is timed inside its thread; N runs each (interleaved), min and median, ratios to memory.
//
// Usage: node bench/browser/opfs.mjs [--rounds R] [--runs N] [--json FILE]
// Needs: bash tests/fs-guests/opfs_build.sh; cd runtime && npm run build; Chromium (tools/setup.sh).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, repo, startServe } from './chromium.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROUNDS = Number(arg('--rounds', 50));
const RUNS = Number(arg('--runs', 5));
const JSON_OUT = arg('--json');
const built = join(repo, 'build', 'tests', 'opfs');
for (const f of ['opfs_workload.wasm', 'opfs_guest.wasm']) {
  if (!existsSync(join(built, f))) throw new Error(`${f} is missing: run bash tests/fs-guests/opfs_build.sh`);
}

/** Runs a wasm through run.html; returns its stdout (throws on a non-zero exit). */
async function runWasm(page, url, wasm, env, args) {
  const q = new URLSearchParams({ wasm: `/${wasm}`, env });
  for (const a of args) q.append('arg', a);
  await page.goto(`${url}run.html?${q}`);
  await page.waitForFunction(() => window.spindleResult, null, { timeout: 300_000 });
  const r = await page.evaluate(() => window.spindleResult);
  if (r.error || r.code !== 0) throw new Error(`${wasm} ${args.join(' ')}: ${JSON.stringify(r)}`);
  return r.stdout;
}

const configs = {
  memory: async (page, url, i) => {
    const out = await runWasm(page, url, 'opfs_workload.wasm', 'SPINDLE_FS_MOUNTS=/data', ['main', String(ROUNDS), '/data']);
    return Number(/elapsed_ns=(\d+)/.exec(out)[1]);
  },
  opfs: async (page, url, i) => {
    const out = await runWasm(page, url, 'opfs_workload.wasm', `SPINDLE_FS_MOUNTS=/data=opfs:bench-${i}`, ['main', String(ROUNDS), '/data']);
    return Number(/elapsed_ns=(\d+)/.exec(out)[1]);
  },
  'opfs+fsync': async (page, url, i) => {
    const out = await runWasm(page, url, 'opfs_guest.wasm', `SPINDLE_FS_MOUNTS=/data=opfs:benchs-${i}`, ['workload', '/data', String(ROUNDS), 'sync']);
    return Number(/workload ns (\d+)/.exec(out)[1]);
  },
  'sah/op': async (page, url, i) => {
    await page.goto(`${url}run.html`);
    return page.evaluate(sahWorkload, { rounds: ROUNDS, dir: `sah-${i}` });
  },
};

/** Runs in the page: the workload through one SyncAccessHandle per operation, in a worker. */
async function sahWorkload({ rounds, dir }) {
  const src = `onmessage = async ({ data: { rounds, dir } }) => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle(dir, { create: true });
    const buf = new Uint8Array(1024).fill(120), rd = new Uint8Array(1024);
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < 64; i++) {
        const name = 'f' + i;
        let h = await (await root.getFileHandle(name, { create: true })).createSyncAccessHandle();
        h.truncate(0); if (h.write(buf, { at: 0 }) !== 1024) throw new Error('short write'); h.flush(); h.close();
        h = await (await root.getFileHandle(name)).createSyncAccessHandle();
        if (h.read(rd, { at: 0 }) !== 1024) throw new Error('short read'); h.close();
        h = await (await root.getFileHandle(name)).createSyncAccessHandle();
        if (h.getSize() !== 1024) throw new Error('bad size'); h.close();
      }
    }
    postMessage((performance.now() - t0) * 1e6);
  };`;
  const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
  const ns = await new Promise((resolve, reject) => {
    w.onmessage = (e) => resolve(e.data);
    w.onerror = (e) => reject(new Error(e.message));
    w.postMessage({ rounds, dir });
  });
  w.terminate();
  return ns;
}

const { url, child } = await startServe(built);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  const times = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
  for (const [name, f] of Object.entries(configs)) await f(page, url, 'warm'); // compile, first OPFS use
  for (let i = 0; i < RUNS; i++) {
    for (const [name, f] of Object.entries(configs)) times[name].push(await f(page, url, i));
  }
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return { min: s[0], median: s[Math.floor(s.length / 2)] };
  };
  const base = stats(times.memory);
  const ops = ROUNDS * 64 * 3;
  const rows = Object.entries(times).map(([name, xs]) => {
    const st = stats(xs);
    return { name, min_ms: st.min / 1e6, median_ms: st.median / 1e6, ns_per_op: st.median / ops,
      ratio_min: st.min / base.min, ratio_median: st.median / base.median };
  });
  console.log(`OPFS workload: ${ROUNDS} rounds x 64 files x 3 ops, ${RUNS} runs each (+1 warm-up), Chromium headless`);
  console.log('config        min ms   median ms   ns/op   vs memory (min, median)');
  for (const r of rows) {
    console.log(`${r.name.padEnd(12)} ${r.min_ms.toFixed(1).padStart(7)} ${r.median_ms.toFixed(1).padStart(10)} `
      + `${r.ns_per_op.toFixed(0).padStart(7)}   ${r.ratio_min.toFixed(2)}x, ${r.ratio_median.toFixed(2)}x`);
  }
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ rounds: ROUNDS, runs: RUNS, rows, times }, null, 2));
} finally {
  await browser.close();
  child.kill();
}
