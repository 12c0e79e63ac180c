// Replays a recording of one rolldown bundle's WASI file calls (a results folder's calls-*.jsonl.gz,
// recorded with bench/results/napi-2026-11-27-wasi/record-patch.js) through several WASI layers,
// each in a fresh worker per round, PASSES passes per worker (pass 1 = a worker's first bundle,
// later passes = later bundles on the same worker, caches warm), rounds interleaved ABBA. Prints
// the thread CPU per pass (/proc/thread-self/schedstat), median (min), and each layer's ratio to
// the first. A layer's errnos and read lengths must equal the recording's.
//
//   node replay.mjs --calls FILE [--root DIR] [--rounds N] [--passes P] [--per] LAYER...
//   LAYER  a built runtime/dist (spindle's WASI imports: preview1.js over the Node host directory)
//          nodewasi  node:wasi (uvwasi in C++, the stock loader's WASI in Node), preopen DIR
//          abs       a floor: one fs call per call on the absolute host path (lstat; open + fstat;
//                    fstat, read, close), no confinement and no WASI layer; errnos not checked
//   --root   the preopen the recording was made with: '/' for the drop-in (the default), the
//            project for the direct route (the paths are relative to it)
//   --per    also time each call (performance.now around it, the timer's cost in every layer)
//            and print, per layer, the median ms per call kind of the last pass (not for abs)
//
// This is the replay of bench/results/napi-2026-11-28-bigproject (replay-big.mjs) and -fdcalls,
// with node:wasi added; those folders keep their own copies as the record of what they ran.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const NAMED = new Set(['abs', 'nodewasi']);

async function main() {
  const args = process.argv.slice(2);
  const opt = (n, d) => { const i = args.indexOf(n); if (i < 0) return d; const v = args[i + 1]; args.splice(i, 2); return v; };
  const rounds = Number(opt('--rounds', '6'));
  const passes = Number(opt('--passes', '3'));
  const root = opt('--root', '/');
  const per = args.includes('--per');
  if (per) args.splice(args.indexOf('--per'), 1);
  const callsFile = opt('--calls');
  if (!callsFile || !args.length) throw new Error('usage: node replay.mjs --calls FILE [--root DIR] [--rounds N] [--passes P] [--per] LAYER... (LAYER: a built runtime/dist, nodewasi or abs)');
  const layers = args.map((d) => (NAMED.has(d) ? d : resolve(d)));
  const calls = gunzipSync(readFileSync(callsFile)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  const res = layers.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < layers.length; i++) {
      const k = r % 2 === 0 ? i : layers.length - 1 - i;
      res[k].push(await new Promise((ok, ko) => {
        const w = new Worker(fileURLToPath(import.meta.url), { workerData: { layer: layers[k], root, calls, passes, per } });
        w.once('message', ok); w.once('error', ko);
      }));
    }
  }
  const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
  console.log(`${callsFile} root ${root}, ${rounds} rounds x ${passes} passes, Node ${process.versions.node}; thread CPU ms per pass, median (min)`);
  for (let i = 0; i < layers.length; i++) {
    const byPass = Array.from({ length: passes }, (_, p) => res[i].map((x) => x.ms[p]));
    const ratio = byPass.map((xs, p) => (med(xs) / med(res[0].map((x) => x.ms[p]))).toFixed(3)).join(' / ');
    console.log(`${layers[i]}: ${byPass.map((xs, p) => `pass ${p + 1} ${med(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)})`).join(', ')}; ratio to the first: ${ratio}`);
    const kinds = res[i].filter((x) => x.kinds).map((x) => x.kinds);
    if (kinds.length) console.log(`   last pass by call kind, ms: ${Object.keys(kinds[0]).map((k) => `${k} ${med(kinds.map((x) => x[k])).toFixed(1)}`).join(', ')}`);
  }
}

/** This thread's CPU time in ms (the cpuUsage call makes the kernel's figure current). */
function cpuMs() {
  process.cpuUsage();
  return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6;
}

/** The recording's calls a layer replays (the preopen's own calls are the layer's set-up). */
const replayed = (calls) => calls.filter(([, n]) => n !== 'fd_prestat_get' && n !== 'fd_prestat_dir_name');

async function replay({ layer, root, calls, passes, per }) {
  if (layer === 'abs') return { ms: await replayAbs(root, calls, passes) };
  const { wasi, memory } = layer === 'nodewasi' ? await nodeWasi(root) : await spindleWasi(layer, root);
  return replayImports(wasi, memory, replayed(calls), passes, per);
}

/**
 * Each pass: every call through `wasi`'s imports, guest buffers in `memory`; thread CPU per pass,
 * and with `per` the last pass's time per call kind.
 */
function replayImports(wasi, memory, calls, passes, per) {
  const PATH = 1024, STAT = 4096, IOVS = 4200, OUT = 4300, BUF = 65536;
  const enc = new TextEncoder();
  const ops = calls.map(([, n, a, r]) => ({ n, a, r, p: typeof a[2] === 'string' ? enc.encode(a[2]) : null }));
  const bytes = new Uint8Array(memory.buffer);
  const dv = new DataView(memory.buffer);
  const ms = [];
  let kinds;
  for (let pass = 0; pass < passes; pass++) {
    const fds = new Map([[3, 3]]); // the recording's fd -> this layer's
    kinds = {};
    const t0 = cpuMs();
    for (const { n, a, r, p } of ops) {
      const c0 = per ? performance.now() : 0;
      let e;
      switch (n) {
        case 'path_filestat_get': bytes.set(p, PATH); e = wasi.path_filestat_get(fds.get(a[0]), a[1], PATH, p.length, STAT); break;
        case 'path_open':
          bytes.set(p, PATH);
          e = wasi.path_open(fds.get(a[0]), a[1], PATH, p.length, a[3], BigInt(a[4]), BigInt(a[5]), a[6], OUT);
          if (e === 0) fds.set(a[7], dv.getUint32(OUT, true));
          break;
        case 'fd_fdstat_get': e = wasi.fd_fdstat_get(fds.get(a[0]), STAT); break;
        case 'fd_filestat_get': e = wasi.fd_filestat_get(fds.get(a[0]), STAT); break;
        case 'fd_read':
          dv.setUint32(IOVS, BUF, true); dv.setUint32(IOVS + 4, a[1][0], true);
          e = wasi.fd_read(fds.get(a[0]), IOVS, 1, OUT);
          if (e === 0 && dv.getUint32(OUT, true) !== a[2]) throw new Error(`fd_read got ${dv.getUint32(OUT, true)} bytes, recorded ${a[2]}`);
          break;
        case 'fd_close': e = wasi.fd_close(fds.get(a[0])); fds.delete(a[0]); break;
        default: throw new Error(`no replay for ${n}`);
      }
      if (per) kinds[n] = (kinds[n] ?? 0) + performance.now() - c0;
      if (e !== r) throw new Error(`${n}(${JSON.stringify(a)}): errno ${e}, recorded ${r}`);
    }
    ms.push(cpuMs() - t0);
  }
  return { ms, kinds: per ? kinds : undefined };
}

/** spindle's WASI imports from a built dist: one shared fd table, the host directory `root` at fd 3. */
async function spindleWasi(dist, rootPath) {
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
  return { wasi: wasiPreview1(host, { fds }), memory };
}

/**
 * node:wasi's imports with `root` preopened (fd 3), on a shared memory: node:wasi writes into the
 * memory its instance exports, so a module of a few bytes imports the memory and exports it,
 * with the `_initialize` that WASI.initialize requires.
 */
async function nodeWasi(root) {
  const { WASI } = await import('node:wasi');
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 64, shared: true });
  const str = (s) => [s.length, ...Buffer.from(s)];
  const sec = (id, body) => [id, body.length, ...body];
  const module = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...sec(1, [1, 0x60, 0, 0]), // type 0: () -> ()
    ...sec(2, [1, ...str('env'), ...str('memory'), 0x02, 0x03, 64, 64]), // shared memory 64..64
    ...sec(3, [1, 0]), // one function of type 0
    ...sec(7, [2, ...str('memory'), 0x02, 0, ...str('_initialize'), 0x00, 0]),
    ...sec(10, [1, 2, 0, 0x0b]), // its body: no locals, end
  ]);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(module), { env: { memory } });
  const wasi = new WASI({ version: 'preview1', preopens: { [root]: root }, returnOnExit: true });
  wasi.initialize(instance);
  return { wasi: wasi.wasiImport, memory };
}

/** The floor: each call as one fs call on the absolute host path; errnos not checked. */
async function replayAbs(root, calls, passes) {
  const fs = await import('node:fs');
  const base = root === '/' ? '' : root;
  const BIG = { bigint: true, throwIfNoEntry: false };
  const buf = new Uint8Array(1 << 21);
  const ops = replayed(calls).filter(([, n]) => n.startsWith('path_') || n.startsWith('fd_f') || n === 'fd_read' || n === 'fd_close');
  Error.stackTraceLimit = 0; // node:wasi answers from C++ with no JS error; spindle's walk captures no stack either
  const ms = [];
  for (let pass = 0; pass < passes; pass++) {
    const open = new Map();
    const t0 = cpuMs();
    for (const [, n, a] of ops) {
      if (n === 'path_filestat_get') { try { fs.lstatSync(`${base}/${a[2]}`, BIG); } catch { /* ENOTDIR, as recorded */ } }
      else if (n === 'path_open') {
        try {
          const os = fs.openSync(`${base}/${a[2]}`, fs.constants.O_RDONLY);
          fs.fstatSync(os);
          open.set(a[7], { os, off: 0 });
        } catch { /* ENOENT, as recorded */ }
      } else if (n === 'fd_fdstat_get' || n === 'fd_filestat_get') { const f = open.get(a[0]); if (f) fs.fstatSync(f.os, { bigint: true }); }
      else if (n === 'fd_read') { const f = open.get(a[0]); f.off += fs.readSync(f.os, buf, 0, a[1][0], f.off); }
      else if (n === 'fd_close') { fs.closeSync(open.get(a[0]).os); open.delete(a[0]); }
    }
    ms.push(cpuMs() - t0);
  }
  return ms;
}

// Last, so that every declaration above is initialized when it runs.
if (isMainThread) await main();
else parentPort.postMessage(await replay(workerData));
