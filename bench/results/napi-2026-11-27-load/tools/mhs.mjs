import { readFileSync } from 'node:fs';
const b = readFileSync('/work/wt/napi-node2/tests/napi/stock/node_modules/@rolldown/binding-wasm32-wasi/rolldown-binding.wasm32-wasi.wasm');
const tg = await import('/work/wt/napi-node2/runtime/dist/thread-guards.js');
const layout = tg.readLayout(b); const code = layout.code;
const bodies = []; const c = new tg.Cursor(b, code.start); for (let n = c.u32(); n > 0; n--) { const size = c.u32(); bodies.push([c.pos, c.pos + size]); c.pos += size; }
function oldM(b, start, end) {
  for (let i = b.indexOf(0xfc, start); i >= 0 && i < end - 1; i = b.indexOf(0xfc, i + 1)) { const sub = b[i + 1] & 0x7f; if (sub === 8 || sub === 10 || sub === 11) return true; }
  for (let i = b.indexOf(0xfe, start); i >= 0 && i < end - 1; i = b.indexOf(0xfe, i + 1)) { if (b[i + 1] !== 3) return true; }
  return false;
}
function newM(b, start, end) {
  const body = b.subarray(start, end); const last = body.length - 1;
  for (let i = body.indexOf(0xfc); i >= 0 && i < last; i = body.indexOf(0xfc, i + 1)) { const sub = body[i + 1] & 0x7f; if (sub === 8 || sub === 10 || sub === 11) return true; }
  for (let i = body.indexOf(0xfe); i >= 0 && i < last; i = body.indexOf(0xfe, i + 1)) { if (body[i + 1] !== 3) return true; }
  return false;
}
const { budgetPoints } = await import('/work/wt/napi-node2/runtime/dist/wasm-code.js');
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (const [name, f] of [['old', oldM], ['new', newM], ['old', oldM], ['new', newM], ['tailscan', (b, s, e) => budgetPoints(b, s, e, false).tailCalls.length > 0]]) {
  const ts = [];
  let hits = 0;
  for (let r = 0; r < 5; r++) { const t0 = cpu(); hits = 0; for (const [s, e] of bodies) if (f(b, s, e)) hits++; ts.push(Math.round(cpu() - t0)); }
  console.log(name, bodies.length, 'bodies', hits, 'hits, cpu ms', ts.join(' '));
}
