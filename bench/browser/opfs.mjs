/**
 * The OPFS experiment of `spindle bench` (`--only browser-opfs`): the reference filesystem
 * workload (bench/fs/workload.c: per round over 64 files create+write 1 KiB+close,
 * open+read+close, stat) in each engine with OPFS (Chromium and Firefox ESR by default:
 * `--param browser-opfs.engines=chromium`; WebKitGTK has no OPFS), on the in-program FS:
 *   memory      SPINDLE_FS_MOUNTS=/data            (the same binary, no OPFS mount; the baseline)
 *   opfs        SPINDLE_FS_MOUNTS=/data=opfs:DIR   (cache in memory, write-back queued at close)
 *   opfs+fsync  the same with an fsync of /data at the end inside the timing (every write-back
 *               has reached OPFS: the durable figure; tests/fs-guests/opfs_guest.c `workload`)
 *   sah/op      page JS in a dedicated worker doing each operation through OPFS directly:
 *               getFileHandle + createSyncAccessHandle + truncate/write/flush (or read/getSize) +
 *               close per file operation (what a program without a cache would do)
 * Each is timed inside its thread; N runs each (interleaved, one warm-up), min and median, ratios
 * to memory, within one engine's run. Needs: bash tests/fs-guests/opfs_build.sh; bash tools/browsers/setup.sh.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BINARIES, ENGINE_NAMES, launch, repo, serve } from '../../tools/browsers/index.mjs';
import { min, median } from '../harness/lib/stats.mjs';

export const id = 'browser-opfs';
export const title = 'In Chromium and Firefox ESR: the reference fs workload on an OPFS mount vs a memory mount vs a SyncAccessHandle per operation';
export const needs = [];
export const runByDefault = false;
export const notes = [
  'In-program FS (bench/fs/workload.c linked with libspindle-fs-opfs.a), Debian\'s Chromium and Firefox ESR headless (tools/browsers); every figure is the program\'s own measurement.',
  'opfs+fsync includes an fsync of /data inside the timing: every write-back has reached OPFS.',
];
export const charts = [];
export const params = {
  rounds: 'rounds of the workload per run (default 50; 10 with --quick)',
  engines: 'engines to measure in, comma-separated: chromium, firefox (default both; WebKitGTK has no OPFS)',
};
const OPFS_ENGINES = ['chromium', 'firefox'];

/** The engines asked for (`--param browser-opfs.engines=...`); one without OPFS is an error. */
function engines(ctx) {
  const list = String(ctx.params?.['browser-opfs.engines'] ?? OPFS_ENGINES.join(',')).split(',').map((e) => e.trim()).filter(Boolean);
  for (const e of list) if (!OPFS_ENGINES.includes(e)) throw new Error(`browser-opfs.engines: '${e}' is not one of ${OPFS_ENGINES.join(', ')} (the engines with OPFS)`);
  return list;
}

const built = join(repo, 'build', 'tests', 'opfs');

export function unavailable(ctx) {
  const absent = engines(ctx).filter((e) => !existsSync(BINARIES[e])).map((e) => `${ENGINE_NAMES[e]} (${BINARIES[e]})`);
  if (absent.length) return `not installed: ${absent.join(', ')}; bash tools/browsers/setup.sh installs Debian's browsers`;
  for (const f of ['opfs_workload.wasm', 'opfs_guest.wasm']) {
    if (!existsSync(join(built, f))) return `${f} is not built: run bash tests/fs-guests/opfs_build.sh`;
  }
  return undefined;
}

/** Runs a wasm through run.html; returns its stdout (throws on a non-zero exit). */
async function runWasm(page, url, wasm, env, args) {
  const q = new URLSearchParams({ wasm: `/${wasm}`, env });
  for (const a of args) q.append('arg', a);
  await page.goto(`${url}run.html?${q}`);
  const r = await page.waitFor(() => window.spindleResult, null, { timeoutMs: 300_000 });
  if (r.error || r.code !== 0) throw new Error(`${wasm} ${args.join(' ')}: ${JSON.stringify(r)}`);
  return r.stdout;
}

/** The configurations: (page, url, run index, rounds) -> ns of the whole workload. */
const configs = {
  memory: async (page, url, i, ROUNDS) => {
    const out = await runWasm(page, url, 'opfs_workload.wasm', 'SPINDLE_FS_MOUNTS=/data', ['main', String(ROUNDS), '/data']);
    return Number(/elapsed_ns=(\d+)/.exec(out)[1]);
  },
  opfs: async (page, url, i, ROUNDS) => {
    const out = await runWasm(page, url, 'opfs_workload.wasm', `SPINDLE_FS_MOUNTS=/data=opfs:bench-${i}`, ['main', String(ROUNDS), '/data']);
    return Number(/elapsed_ns=(\d+)/.exec(out)[1]);
  },
  'opfs+fsync': async (page, url, i, ROUNDS) => {
    const out = await runWasm(page, url, 'opfs_guest.wasm', `SPINDLE_FS_MOUNTS=/data=opfs:benchs-${i}`, ['workload', '/data', String(ROUNDS), 'sync']);
    return Number(/workload ns (\d+)/.exec(out)[1]);
  },
  'sah/op': async (page, url, i, ROUNDS) => {
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

export async function run(ctx) {
  const rounds = Number(ctx.params?.['browser-opfs.rounds'] ?? (ctx.quick ? 10 : 50));
  if (!(Number.isInteger(rounds) && rounds > 0)) throw new Error(`browser-opfs.rounds must be a whole number > 0`);
  const rows = [];
  for (const engine of engines(ctx)) rows.push(...await runEngine(ctx, engine, rounds));
  return rows;
}

async function runEngine(ctx, engine, rounds) {
  const server = await serve(built);
  const url = server.url;
  const browser = await launch(engine);
  const times = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
  const errors = {};
  try {
    const page = await browser.newPage();
    for (const [name, f] of Object.entries(configs)) await f(page, url, 'warm', rounds); // compile, first OPFS use
    for (let i = 0; i < ctx.runs; i++) {
      for (const [name, f] of Object.entries(configs)) {
        if (errors[name]) continue;
        try {
          times[name].push(await f(page, url, i, rounds));
        } catch (e) {
          errors[name] = e instanceof Error ? e.message : String(e);
          ctx.log(`  FAILED browser-opfs ${engine} ${name}: ${errors[name]}`);
        }
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  const ops = rounds * 64 * 3;
  const rows = Object.entries(times).map(([name, xs]) => {
    const perOp = xs.map((ns) => ns / ops);
    const ok = !errors[name] && perOp.length > 0;
    return { experiment: id, variant: `${engine} ${rounds} rounds`, config: name, metric: 'ns_per_op', unit: 'ns', runs: perOp.length,
      min: ok ? min(perOp) : NaN, median: ok ? median(perOp) : NaN, baseline: 'memory', ratio_min: NaN, ratio_median: NaN,
      ok, error: errors[name], note: browser.version, samples: perOp };
  });
  const base = rows.find((r) => r.config === 'memory');
  for (const r of rows) {
    if (!r.ok || !base?.ok) continue;
    r.ratio_min = r.min / base.min;
    r.ratio_median = r.median / base.median;
  }
  return rows;
}
