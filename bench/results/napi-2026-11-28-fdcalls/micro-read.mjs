// Cost of one fs.readSync of a small file (4 KiB asked, then 32 at the end) by the buffer it reads into (a plain
// Uint8Array, a shared wasm memory, a SharedArrayBuffer, a fresh view of the memory) and the position (number or BigInt).
// Needs the big project at /tmp/h52/big (../napi-2026-11-28-bigproject). node micro-read.mjs
import { openSync, readSync, closeSync, readdirSync, fstatSync } from 'node:fs';
const dir = '/tmp/h52/big/node_modules/date-fns/esm';
const files = [];
for (const d of readdirSync(dir)) { try { const f = `${dir}/${d}/index.js`; fstatSync(openSync(f, 'r')); files.push(f); } catch {} if (files.length > 400) break; }
const fds = files.map((f) => openSync(f, 'r'));
const plain = new Uint8Array(1 << 21);
const mem = new WebAssembly.Memory({ initial: 64, maximum: 64, shared: true });
const shared = new Uint8Array(mem.buffer);
const sab = new Uint8Array(new SharedArrayBuffer(1 << 21));
const cpu = () => process.cpuUsage().user + process.cpuUsage().system;
const runs = { plainNum: [plain, false], plainBig: [plain, true], wasmNum: [shared, false], wasmBig: [shared, true], sabNum: [sab, false], wasmViewNum: [shared, false, true] };
for (let round = 0; round < 5; round++) {
  const out = [];
  for (const [k, [buf, big, view]] of Object.entries(runs)) {
    const t0 = process.hrtime.bigint();
    for (let rep = 0; rep < 10; rep++) for (const fd of fds) {
      const b = view ? buf.subarray(65536, 65536 + 4096) : buf;
      const n = readSync(fd, b, view ? 0 : 65536, 4096, big ? 0n : 0);
      readSync(fd, b, view ? 0 : 65536, 32, big ? BigInt(n) : n);
    }
    out.push(`${k} ${(Number(process.hrtime.bigint() - t0) / 1e3 / (fds.length * 20)).toFixed(2)}us`);
  }
  console.log(out.join('  '));
}
