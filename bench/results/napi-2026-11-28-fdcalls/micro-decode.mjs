// Decoding a guest path (UTF-8 in a shared wasm memory) to a string: GuestMemory.string's way (copy to a scratch
// buffer, TextDecoder fatal), TextDecoder on the shared view itself (Node only), Buffer latin1Slice after an ASCII scan (Node only).
const mem = new WebAssembly.Memory({ initial: 4, maximum: 64, shared: true });
const b = new Uint8Array(mem.buffer);
const paths = ['node_modules/@mui/material/node_modules/react/index.js', 'src/feature9/index.tsx', 'node_modules/date-fns/esm/addDays/package.json', 'tsconfig.json', 'node_modules/@emotion/react/dist/emotion-react.browser.esm.js/tsconfig.json'];
const enc = new TextEncoder();
const at = []; let p = 1024;
for (const s of paths) { const e = enc.encode(s); b.set(e, p); at.push([p, e.length]); p += 256; }
const decoder = new TextDecoder('utf-8', { fatal: true });
let scratch = new Uint8Array(256);
function cur(start, n) {
  const s = scratch;
  if (n <= 64) { for (let i = 0; i < n; i++) s[i] = b[start + i]; } else s.set(b.subarray(start, start + n));
  return decoder.decode(s.subarray(0, n));
}
function direct(start, n) { return decoder.decode(b.subarray(start, start + n)); }
const B = Buffer.from(mem.buffer);
function latin(start, n) { for (let i = start; i < start + n; i++) if (b[i] >= 0x80) return cur(start, n); return B.latin1Slice(start, start + n); }
const fns = { cur, direct, latin };
for (const [k, f] of Object.entries(fns)) for (const [s, n] of at) if (f(s, n) !== cur(s, n)) throw new Error(k);
let sink = 0;
for (let round = 0; round < 5; round++) {
  const out = [];
  for (const [k, f] of Object.entries(fns)) {
    const t0 = process.hrtime.bigint();
    for (let r = 0; r < 40000; r++) for (const [s, n] of at) { const str = f(s, n); sink += str.length + str.charCodeAt(n >> 1); }
    out.push(`${k} ${(Number(process.hrtime.bigint() - t0) / 200000).toFixed(0)}ns`);
  }
  console.log(out.join('  '));
}
