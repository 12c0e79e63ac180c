// Replays one rolldown bundle's WASI file calls of the big project (calls-direct.jsonl.gz: the
// direct route, preopen = the project; calls-dropin.jsonl.gz: the drop-in, preopen = '/'),
// recorded with ../napi-2026-11-27-wasi/record-patch.js, through each dist's own WASI imports,
// in a fresh worker per round and dist, PASSES passes per worker (pass 1 = a worker's first
// bundle, later passes = later bundles on the same worker, its directory cache warm). Thread CPU
// per pass (/proc/thread-self/schedstat after a process.cpuUsage(), see
// ../napi-2026-11-28-thread). Every errno and read length must equal the recording. Dists are
// interleaved (ABBA). A dist whose host-dir-cache.js sets globalThis.__h52 (counters: a
// measurement copy) also reports the cache's counters per pass. A DIST named `abs` is a floor
// like node:wasi's: the same calls as one system call each on absolute host paths.
//
//   node replay-big.mjs --calls calls-dropin.jsonl.gz --root / [--rounds N] [--passes P] DIST...
//   (the direct recording: --root /tmp/h52/big, the project bigproject.mjs made there)
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

if (isMainThread) {
  const args = process.argv.slice(2);
  const opt = (n, d) => { const i = args.indexOf(n); if (i < 0) return d; const v = args[i + 1]; args.splice(i, 2); return v; };
  const rounds = Number(opt('--rounds', '6'));
  const passes = Number(opt('--passes', '3'));
  const root = opt('--root', '/');
  const callsFile = resolve(here, opt('--calls', 'calls-dropin.jsonl.gz'));
  const dists = args.map((d) => (d === 'abs' || d.endsWith('/abs') ? '/abs' : resolve(d)));
  const calls = gunzipSync(readFileSync(callsFile)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  const res = dists.map(() => []);
  const stats = dists.map(() => null);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < dists.length; i++) {
      const k = r % 2 === 0 ? i : dists.length - 1 - i;
      const m = await new Promise((ok, ko) => {
        const w = new Worker(fileURLToPath(import.meta.url), { workerData: { dist: dists[k], root, calls, passes } });
        w.once('message', ok); w.once('error', ko);
      });
      res[k].push(m.ms);
      stats[k] = m.stats;
    }
  }
  const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
  console.log(`${callsFile} root ${root}, ${rounds} rounds x ${passes} passes; thread CPU ms per pass, median (min)`);
  for (let i = 0; i < dists.length; i++) {
    const per = Array.from({ length: passes }, (_, p) => res[i].map((x) => x[p]));
    console.log(`${dists[i]}: ${per.map((xs, p) => `pass ${p + 1} ${med(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)})`).join(', ')}; ratio to the first dist: ${per.map((xs, p) => (med(xs) / med(res[0].map((x) => x[p]))).toFixed(3)).join(' / ')}`);
    if (stats[i]) for (let p = 0; p < passes; p++) console.log(`   pass ${p + 1} cache: ${JSON.stringify(stats[i][p])}`);
  }
} else if (workerData.dist.endsWith('/abs')) {
  // A floor like node:wasi's (the stock loader's): one system call per path call on the absolute
  // host path (lstat; open + fstat), then fstat, reads and close per file; no confinement walk,
  // no validation, no WASI layer around them. Errnos are not checked here.
  const { root, calls, passes } = workerData;
  const fs = await import('node:fs');
  const base = root === '/' ? '' : root;
  const BIG = { bigint: true, throwIfNoEntry: false };
  const buf = new Uint8Array(1 << 21);
  const ops = calls.filter(([, n]) => n.startsWith('path_') || n.startsWith('fd_f') || n === 'fd_read' || n === 'fd_close');
  const cpu = () => { process.cpuUsage(); return Number(fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6; };
  Error.stackTraceLimit = 0; // node:wasi answers from C++ with no JS error; spindle's walk captures no stack either
  const ms = [];
  for (let pass = 0; pass < passes; pass++) {
    const map = new Map();
    const t0 = cpu();
    for (const [, n, a] of ops) {
      if (n === 'path_filestat_get') { try { fs.lstatSync(`${base}/${a[2]}`, BIG); } catch { /* ENOTDIR, as recorded */ } }
      else if (n === 'path_open') {
        try {
          const os = fs.openSync(`${base}/${a[2]}`, fs.constants.O_RDONLY);
          fs.fstatSync(os);
          map.set(a[7], { os, off: 0 });
        } catch { /* ENOENT, as recorded */ }
      } else if (n === 'fd_fdstat_get' || n === 'fd_filestat_get') { const f = map.get(a[0]); if (f) fs.fstatSync(f.os, { bigint: true }); }
      else if (n === 'fd_read') { const f = map.get(a[0]); f.off += fs.readSync(f.os, buf, 0, a[1][0], f.off); }
      else if (n === 'fd_close') { fs.closeSync(map.get(a[0]).os); map.delete(a[0]); }
    }
    ms.push(cpu() - t0);
  }
  parentPort.postMessage({ ms, stats: null });
} else {
  const { dist, root: rootPath, calls, passes } = workerData;
  const imp = (p) => import(pathToFileURL(join(dist, p)).href);
  const { SharedFdTable } = await imp('fs/shared-fd-table.js');
  const { hostDirEntryFor, threadFdTable } = await imp('fs/runtime-fs.js');
  const { nodeHostFs } = await imp('platform/node/host-fs.js');
  const { wasiPreview1 } = await imp('wasi/preview1.js');
  const table = SharedFdTable.create();
  const root = nodeHostFs.root(rootPath);
  table.insertEntry(hostDirEntryFor(root.fd, root.path, 0, 1));
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 64, shared: true });
  const host = {
    memory, args: [], env: [], threadId: 1, writeOutput: () => 0, readStdin: () => new Uint8Array(0), stdinReady: () => true,
    exit: (code) => { throw new Error(`exit ${code}`); },
  };
  const fds = threadFdTable({ table: table.buffer, mounts: [{ guest: rootPath, host: rootPath, readOnly: false }], memfs: null }, host, false, nodeHostFs);
  const wasi = wasiPreview1(host, { fds });
  const PATH = 1024, STAT = 4096, IOVS = 4200, OUT = 4300, BUF = 65536;
  const enc = new TextEncoder();
  const ops = calls.filter(([, n]) => n !== 'fd_prestat_get' && n !== 'fd_prestat_dir_name').map(([, n, a, r]) => ({ n, a, r, p: typeof a[2] === 'string' ? enc.encode(a[2]) : null }));
  const cpu = () => { process.cpuUsage(); return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6; };
  const ms = [];
  const stats = [];
  for (let pass = 0; pass < passes; pass++) {
    const map = new Map([[3, 3]]);
    const bytes = new Uint8Array(memory.buffer);
    const dv = new DataView(memory.buffer);
    const before = globalThis.__h52 ? { ...globalThis.__h52 } : null;
    const t0 = cpu();
    for (const { n, a, r, p } of ops) {
      let e;
      switch (n) {
        case 'path_filestat_get':
          bytes.set(p, PATH);
          e = wasi.path_filestat_get(map.get(a[0]), a[1], PATH, p.length, STAT);
          break;
        case 'path_open':
          bytes.set(p, PATH);
          e = wasi.path_open(map.get(a[0]), a[1], PATH, p.length, a[3], BigInt(a[4]), BigInt(a[5]), a[6], OUT);
          if (e === 0) map.set(a[7], dv.getUint32(OUT, true));
          break;
        case 'fd_fdstat_get': e = wasi.fd_fdstat_get(map.get(a[0]), STAT); break;
        case 'fd_filestat_get': e = wasi.fd_filestat_get(map.get(a[0]), STAT); break;
        case 'fd_read':
          dv.setUint32(IOVS, BUF, true); dv.setUint32(IOVS + 4, a[1][0], true);
          e = wasi.fd_read(map.get(a[0]), IOVS, 1, OUT);
          if (e === 0 && dv.getUint32(OUT, true) !== a[2]) throw new Error(`fd_read got ${dv.getUint32(OUT, true)} bytes, recorded ${a[2]}`);
          break;
        case 'fd_close': e = wasi.fd_close(map.get(a[0])); map.delete(a[0]); break;
        default: throw new Error(`no replay for ${n}`);
      }
      if (e !== r) throw new Error(`${n}(${JSON.stringify(a)}): errno ${e}, recorded ${r}`);
    }
    ms.push(cpu() - t0);
    if (before) stats.push(Object.fromEntries(Object.keys(before).map((k) => [k, globalThis.__h52[k] - before[k]])));
  }
  parentPort.postMessage({ ms, stats: stats.length === 0 ? null : stats });
}
