// replay-warm.mjs: what warming the WASI layer's JavaScript before a worker's first bundle would
// save (a pool worker's "prewarm" of its WASI code). Each argument is DIST@W: in a fresh worker,
// the first W recorded calls are replayed on a second fd table with its own root fd (its own
// directory cache: as a warm-up on a scratch directory would be), timed ("warm-up"); then the
// whole recording on the first table ("pass 1": directory cache empty, as a worker's first
// bundle) and again ("pass 2": all warm). W = 0: no warm-up. Interleaved as replay.mjs.
//
//   node replay-warm.mjs [--rounds N] DIST@0 DIST@300 DIST@1000 ...
//
// Replays one rolldown bundle's WASI file calls (calls.jsonl.gz, recorded with record-patch.js)
// through a spindle dist's own WASI imports, on a host directory holding the bench's project
// (bench/napi/project.mjs), in fresh worker threads; prints the thread CPU time
// (/proc/thread-self/schedstat) of each pass. Interleaves the dists given (A/B in one run).
//
//   node replay.mjs [--rounds N] [--passes P] [--project DIR] DIST_A DIST_B ...
//
// A DIST named `bare` (any path ending in /bare) runs the floor instead: the node:fs calls alone.
//
// Every answer (errno, and the filetype/size of each stat, the bytes read) is checked against
// the recording, so a dist that answers differently fails the run instead of being timed.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readFileSync, existsSync, mkdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), '../napi-2026-11-27-wasi');

if (isMainThread) {
  const args = process.argv.slice(2);
  const opt = (n, d) => { const i = args.indexOf(n); if (i < 0) return d; const v = args[i + 1]; args.splice(i, 2); return v; };
  const rounds = Number(opt('--rounds', '10'));
  const passes = 3;
  const project = resolve(opt('--project', '/tmp/napiwasi/project'));
  if (!existsSync(join(project, 'src/main.ts'))) {
    const { makeProject } = await import(pathToFileURL(join(here, '../../napi/project.mjs')).href);
    mkdirSync(project, { recursive: true });
    makeProject(project);
  }
  const dists = args.map((d) => { const [p, w] = d.split('@'); return { p: resolve(p), w: Number(w ?? 0), name: d }; });
  const calls = gunzipSync(readFileSync(join(here, 'calls.jsonl.gz'))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  const res = dists.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < dists.length; i++) {
      const k = r % 2 === 0 ? i : dists.length - 1 - i;
      res[k].push(await new Promise((ok, ko) => {
        const w = new Worker(fileURLToPath(import.meta.url), { workerData: { dist: dists[k].p, warm: dists[k].w, project, calls, passes } });
        w.once('message', ok); w.once('error', ko);
      }));
    }
  }
  const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
  const base = res[0].map((x) => x[0]);
  for (let i = 0; i < dists.length; i++) {
    const p = [0, 1, 2].map((k) => res[i].map((x) => x[k]));
    const f = (xs) => `${med(xs).toFixed(1)} (min ${Math.min(...xs).toFixed(1)})`;
    console.log(`${dists[i].name}: warm-up ${f(p[0])}, pass 1 ${f(p[1])}, pass 2 ${f(p[2])}, warm-up + pass 1 ${(med(p[0]) + med(p[1])).toFixed(1)} (medians, ms of the thread's CPU)`);
  }
} else if (workerData.dist.endsWith('/bare')) {
  // The floor: only the node:fs calls spindle's WASI layer makes for these calls (a readlink of
  // the cached directory's /proc/<pid>/fd link and a lookup through it per path call; open,
  // fstat for the type, fstat (bigint), reads, close per file), with no WASI layer around them.
  const { project, calls, passes } = workerData;
  const fs = await import('node:fs');
  const FD = `/proc/${process.pid}/fd/`;
  const root = fs.openSync(project, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  const dirs = new Map();
  const dirOf = (key) => {
    let d = dirs.get(key);
    if (d === undefined) { d = fs.openSync(`${FD}${root}/${key}`, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY); dirs.set(key, d); }
    fs.readlinkSync(`${FD}${d}`, { encoding: 'latin1' });
    return d;
  };
  const BIG = { bigint: true, throwIfNoEntry: false }, NUM = { throwIfNoEntry: false };
  // Every directory the paths name, opened before the passes (spindle's cache holds them after the first bundle).
  const isDir = (key) => fs.statSync(join(project, key), NUM)?.isDirectory() === true;
  for (const [, n, a] of calls) if (n.startsWith('path_')) { const p = a[2].split('/'); for (let k = 1; k < p.length; k++) if (isDir(p.slice(0, k).join('/'))) dirOf(p.slice(0, k).join('/')); }
  const buf = new Uint8Array(65536);
  const ops = calls.filter(([, n]) => n.startsWith('path_') || n === 'fd_filestat_get' || n === 'fd_read' || n === 'fd_close');
  // process.cpuUsage() first: getrusage brings this thread's run time up to date, which a read of
  // schedstat alone does not (on this VM a reading can be a few ms stale).
  const cpu = () => { process.cpuUsage(); return Number(fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6; };
  const out = [];
  for (let pass = 0; pass < passes; pass++) {
    const map = new Map();
    const t0 = cpu();
    for (const [, n, a] of ops) {
      if (n === 'path_filestat_get' || n === 'path_open') {
        const parts = a[2].split('/');
        if (n === 'path_filestat_get' && (parts.length < 2 || parts.includes('.'))) { fs.lstatSync(`${FD}${root}/${a[2]}`, BIG); continue; }
        const key = parts.slice(0, -1).join('/');
        const name = parts[parts.length - 1];
        // A name under a file ("src/main.ts/tsconfig.json"): the name between, looked up in the directory above.
        if (parts.length >= 3 && !dirs.has(key)) { fs.lstatSync(`${FD}${dirOf(parts.slice(0, -2).join('/'))}/${parts[parts.length - 2]}`, NUM); continue; }
        const d = parts.length < 2 ? root : dirOf(key);
        if (n === 'path_filestat_get') { fs.lstatSync(`${FD}${d}/${name}`, BIG); continue; }
        try {
          const os = fs.openSync(`${FD}${d}/${name}`, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
          fs.fstatSync(os);
          map.set(a[7], { os, off: 0 });
        } catch { /* ENOENT, as recorded */ }
      } else if (n === 'fd_filestat_get') fs.fstatSync(map.get(a[0]).os, { bigint: true });
      else if (n === 'fd_read') { const f = map.get(a[0]); f.off += fs.readSync(f.os, buf, 0, a[1][0], f.off); }
      else if (n === 'fd_close') { fs.closeSync(map.get(a[0]).os); map.delete(a[0]); }
    }
    out.push(cpu() - t0);
  }
  parentPort.postMessage(out);
} else {
  const { dist, warm, project, calls, passes } = workerData;
  const imp = (p) => import(pathToFileURL(join(dist, p)).href);
  const { SharedFdTable } = await imp('fs/shared-fd-table.js');
  const { hostDirEntryFor, threadFdTable } = await imp('fs/runtime-fs.js');
  const { nodeHostFs } = await imp('platform/node/host-fs.js');
  const { wasiPreview1 } = await imp('wasi/preview1.js');
  const memory = new WebAssembly.Memory({ initial: 4, maximum: 64, shared: true });
  const host = {
    memory, args: [], env: [], threadId: 1, writeOutput: () => 0, readStdin: () => new Uint8Array(0), stdinReady: () => true,
    exit: (code) => { throw new Error(`exit ${code}`); },
  };
  const makeWasi = () => {
    const table = SharedFdTable.create();
    const root = nodeHostFs.root(project);
    table.insertEntry(hostDirEntryFor(root.fd, root.path, 0, 1));
    const fds = threadFdTable({ table: table.buffer, mounts: [{ guest: project, host: project, readOnly: false }], memfs: null }, host, false, nodeHostFs);
    return wasiPreview1(host, { fds });
  };
  const wasiA = makeWasi(), wasiB = makeWasi();
  const PATH = 1024, STAT = 4096, IOVS = 4200, OUT = 4300, BUF = 65536;
  const enc = new TextEncoder();
  // The paths encoded once: the replay times the WASI layer, not the encoding of its input.
  const ops = calls.filter(([, n]) => n !== 'fd_prestat_get' && n !== 'fd_prestat_dir_name').map(([, n, a, r]) => ({ n, a, r, p: typeof a[2] === 'string' ? enc.encode(a[2]) : null }));
  // process.cpuUsage() first: getrusage brings this thread's run time up to date, which a read of
  // schedstat alone does not (on this VM a reading can be a few ms stale).
  const cpu = () => { process.cpuUsage(); return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6; };
  const out = [];
  for (let pass = 0; pass < passes; pass++) {
    const wasi = pass === 0 ? wasiB : wasiA;
    const list = pass === 0 ? ops.slice(0, warm) : ops;
    const map = new Map([[3, 3]]);
    const bytes = new Uint8Array(memory.buffer);
    const dv = new DataView(memory.buffer);
    const t0 = cpu();
    for (const { n, a, r, p } of list) {
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
    out.push(cpu() - t0);
  }
  parentPort.postMessage(out);
}
