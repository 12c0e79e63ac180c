// ../napi-2026-11-28-bigproject/replay-big.mjs with two additions, for the WASI layer's cost per
// call kind:
//   --per      also times each call (performance.now around it) and reports, per pass and call
//              kind, the summed time inside the calls (the floor `abs` is timed the same way);
//   DIST@raw   the path calls skip the WASI imports: path_filestat_get is the fd's Directory's
//              filestatOrErrno on the recording's string, path_open its open + the fd table's
//              insert (no import wrapper, flag checks, guest-string decoding, stat write);
//   DIST@str   as @raw, but each path is first copied into guest memory and decoded by a
//              GuestMemory (what the import does, and the replay's own copy): @raw + decoding.
// The recordings are read from ../napi-2026-11-28-bigproject. Everything else as replay-big.mjs:
// one bundle's WASI file calls through each dist's own imports, a fresh worker per round and
// dist, PASSES passes per worker (pass 1 = a worker's first bundle), thread CPU per pass, every
// errno and read length checked against the recording, dists interleaved (ABBA).
//
//   node replay-fd.mjs --per --calls calls-direct.jsonl.gz --root /tmp/h52/big [--rounds N] [--passes P] DIST... [DIST@raw] [DIST@str] [abs]
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
  const callsFile = resolve(here, '../napi-2026-11-28-bigproject', opt('--calls', 'calls-dropin.jsonl.gz'));
  const per = args.includes('--per') ? (args.splice(args.indexOf('--per'), 1), true) : false;
  // DIST@raw: the path calls go to the fd's Directory straight (filestatOrErrno, open + the fd
  // table's insert) with the recording's strings: no import wrapper, checks, decoding or stat write.
  const dists = args.map((d) => (d === 'abs' || d.endsWith('/abs') ? '/abs' : d.endsWith('@raw') ? `${resolve(d.slice(0, -4))}@raw` : d.endsWith('@str') ? `${resolve(d.slice(0, -4))}@str` : resolve(d)));
  const calls = gunzipSync(readFileSync(callsFile)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  const res = dists.map(() => []);
  const stats = dists.map(() => null);
  const cats = dists.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < dists.length; i++) {
      const k = r % 2 === 0 ? i : dists.length - 1 - i;
      const m = await new Promise((ok, ko) => {
        const w = new Worker(fileURLToPath(import.meta.url), { workerData: { dist: dists[k], root, calls, passes, per } });
        w.once('message', ok); w.once('error', ko);
      });
      res[k].push(m.ms); cats[k].push(m.cat);
      stats[k] = m.stats;
    }
  }
  const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
  console.log(`${callsFile} root ${root}, ${rounds} rounds x ${passes} passes; thread CPU ms per pass, median (min)`);
  for (let i = 0; i < dists.length; i++) {
    const pp = Array.from({ length: passes }, (_, p) => res[i].map((x) => x[p]));
    console.log(`${dists[i]}: ${pp.map((xs, p) => `pass ${p + 1} ${med(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)})`).join(', ')}; ratio to the first dist: ${pp.map((xs, p) => (med(xs) / med(res[0].map((x) => x[p]))).toFixed(3)).join(' / ')}`);
    if (per) {
      const names = Object.keys(cats[i][0][0]);
      for (let p = 0; p < passes; p++) console.log(`   pass ${p + 1} per call kind, ms median (min) [ratio to the first dist]: ${names.map((n) => { const xs = cats[i].map((c) => c[p][n]); const b = cats[0].map((c) => c[p][n]); return `${n} ${med(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}) [${(med(xs) / med(b)).toFixed(2)}]`; }).join(', ')}`);
    }
    if (stats[i]) for (let p = 0; p < passes; p++) console.log(`   pass ${p + 1} cache: ${JSON.stringify(stats[i][p])}`);
  }
} else if (workerData.dist.endsWith('/abs')) {
  // A floor like node:wasi's (the stock loader's): one system call per path call on the absolute
  // host path (lstat; open + fstat), then fstat, reads and close per file; no confinement walk,
  // no validation, no WASI layer around them. Errnos are not checked here.
  const { root, calls, passes, per } = workerData;
  const fs = await import('node:fs');
  const { performance } = await import('node:perf_hooks');
  const base = root === '/' ? '' : root;
  const BIG = { bigint: true, throwIfNoEntry: false };
  const buf = new Uint8Array(1 << 21);
  const ops = calls.filter(([, n]) => n.startsWith('path_') || n.startsWith('fd_f') || n === 'fd_read' || n === 'fd_close');
  const cpu = () => { process.cpuUsage(); return Number(fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6; };
  Error.stackTraceLimit = 0; // node:wasi answers from C++ with no JS error; spindle's walk captures no stack either
  const ms = [];
  const catAll = [];
  for (let pass = 0; pass < passes; pass++) {
    const map = new Map();
    const cat = { path_filestat_get: 0, path_open: 0, fd_fdstat_get: 0, fd_filestat_get: 0, fd_read: 0, fd_close: 0 };
    const t0 = cpu();
    for (const [, n, a] of ops) {
      const s0 = per ? performance.now() : 0;
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
      if (per) cat[n] += performance.now() - s0;
    }
    ms.push(cpu() - t0);
    catAll.push(cat);
  }
  parentPort.postMessage({ ms, stats: null, cat: catAll });
} else {
  const { dist: named, root: rootPath, calls, passes, per } = workerData;
  const raw = named.endsWith('@raw') || named.endsWith('@str');
  const viaMem = named.endsWith('@str');
  const dist = raw ? named.slice(0, -4) : named;
  const { performance } = await import('node:perf_hooks');
  const imp = (p) => import(pathToFileURL(join(dist, p)).href);
  const { SharedFdTable } = await imp('fs/shared-fd-table.js');
  const { hostDirEntryFor, threadFdTable } = await imp('fs/runtime-fs.js');
  const { nodeHostFs } = await imp('platform/node/host-fs.js');
  const { wasiPreview1 } = await imp('wasi/preview1.js');
  const { WasiErrno } = await imp('wasi/errno.js');
  const { GuestMemory } = await imp('wasi/guest-memory.js');
  const errnoOf = (f) => { try { return f(); } catch (x) { if (x instanceof WasiErrno) return x.errno; throw x; } };
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
  const gm = new GuestMemory(memory);
  const PATH = 1024, STAT = 4096, IOVS = 4200, OUT = 4300, BUF = 65536;
  const enc = new TextEncoder();
  const ops = calls.filter(([, n]) => n !== 'fd_prestat_get' && n !== 'fd_prestat_dir_name').map(([, n, a, r]) => ({ n, a, r, p: typeof a[2] === 'string' ? enc.encode(a[2]) : null }));
  const cpu = () => { process.cpuUsage(); return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6; };
  const ms = [];
  const stats = [];
  const catAll = [];
  for (let pass = 0; pass < passes; pass++) {
    const map = new Map([[3, 3]]);
    const cat = { path_filestat_get: 0, path_open: 0, fd_fdstat_get: 0, fd_filestat_get: 0, fd_read: 0, fd_close: 0 };
    const bytes = new Uint8Array(memory.buffer);
    const dv = new DataView(memory.buffer);
    const before = globalThis.__h52 ? { ...globalThis.__h52 } : null;
    const t0 = cpu();
    for (const { n, a, r, p } of ops) {
      const s0 = per ? performance.now() : 0;
      let e;
      switch (n) {
        case 'path_filestat_get':
          if (raw) {
            let path = a[2];
            if (viaMem) { bytes.set(p, PATH); path = gm.string(PATH, p.length); }
            const st = fds.get(map.get(a[0])).asDirectory().filestatOrErrno(a[1], path);
            e = typeof st === 'number' ? st : 0;
            break;
          }
          bytes.set(p, PATH);
          e = wasi.path_filestat_get(map.get(a[0]), a[1], PATH, p.length, STAT);
          break;
        case 'path_open':
          if (raw) {
            let fd = -1;
            let path = a[2];
            if (viaMem) { bytes.set(p, PATH); path = gm.string(PATH, p.length); }
            e = errnoOf(() => { fd = fds.insert(fds.get(map.get(a[0])).asDirectory().open(a[1], path, a[3], BigInt(a[4]), BigInt(a[5]), a[6])); return 0; });
            if (e === 0) map.set(a[7], fd);
            break;
          }
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
      if (per) cat[n] += performance.now() - s0;
      if (e !== r) throw new Error(`${n}(${JSON.stringify(a)}): errno ${e}, recorded ${r}`);
    }
    ms.push(cpu() - t0);
    catAll.push(cat);
    if (before) stats.push(Object.fromEntries(Object.keys(before).map((k) => [k, globalThis.__h52[k] - before[k]])));
  }
  parentPort.postMessage({ ms, stats: stats.length === 0 ? null : stats, cat: catAll });
}
