// Interleaved A/B: base vs new spindle CLI, Node 20 and 26: malloc ring and math at T=1,2,4 (in-program ms and
// exit wall ms) and first output of a threaded program (malloc.wasm with no arguments prints its usage at once).
// BASE=<checkout of main before> NEW=<this checkout> node ab.mjs ROUNDS OUT.json   (from the repository root;
// malloc.wasm and math.wasm built as bench/hosts/real-programs.mjs builds them: tools/wasi-cc -O2)
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const [rounds, outFile] = process.argv.slice(2);
const H = 'build/bench/hosts';
const nodes = { n20: process.execPath, n26: 'build/node-lines/26/node_modules/node26/bin/node' }; // tools/node-lines.sh 26
const clis = { base: `${process.env.BASE}/runtime/dist/cli.js`, new: `${process.env.NEW}/runtime/dist/cli.js` };
const work = [];
for (const t of [1, 2, 4]) work.push({ w: `malloc T=${t}`, args: [`${H}/malloc.wasm`, 'ring', String(t), '1000000'], re: /ms=([0-9.]+)/ });
for (const t of [1, 2, 4]) work.push({ w: `math T=${t}`, args: [`${H}/math.wasm`, String(t), '100000000'], re: /elapsed_ms=([0-9.]+)/ });
work.push({ w: 'first output (threaded, usage)', args: [`${H}/malloc.wasm`], re: null });
work.push({ w: 'large threaded --version', args: [`${H}/large-mt.wasm`, '--version'], re: null });
const run = (node, cli, args) => new Promise((resolve) => {
  const t0 = process.hrtime.bigint(); let first = null; let out = '';
  const p = spawn(node, [cli, 'run', ...args]);
  const on = (d) => { if (first === null) first = Number(process.hrtime.bigint() - t0) / 1e6; out += d; };
  p.stdout.on('data', on); p.stderr.on('data', on);
  p.on('close', () => resolve({ first, exit: Number(process.hrtime.bigint() - t0) / 1e6, out }));
});
const S = {};
for (let r = 0; r < Number(rounds); r++) for (const [nn, node] of Object.entries(nodes)) for (const wk of work) {
  for (const cn of (r % 2 ? ['new', 'base'] : ['base', 'new'])) {
    const res = await run(node, clis[cn], wk.args);
    const k = `${nn} ${wk.w} ${cn}`; S[k] ??= { metric: [], exit: [] };
    S[k].metric.push(wk.re ? Number(wk.re.exec(res.out)[1]) : res.first); S[k].exit.push(res.exit);
  }
}
writeFileSync(outFile, JSON.stringify(S, null, 1));
const med = (a) => { const s = [...a].sort((x, y) => x - y); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const f = (x) => x.toFixed(1);
for (const [k, v] of Object.entries(S)) console.log(`${k.padEnd(44)} metric min ${f(Math.min(...v.metric))} med ${f(med(v.metric))} | exit min ${f(Math.min(...v.exit))} med ${f(med(v.exit))}`);
for (const nn of Object.keys(nodes)) for (const w of ['malloc', 'math']) for (const cn of ['base', 'new']) {
  const a = S[`${nn} ${w} T=4 ${cn}`].metric, b = S[`${nn} ${w} T=2 ${cn}`].metric;
  console.log(`${nn} ${w} ${cn}: T=4/T=2 by median ${(med(a) / med(b)).toFixed(3)}, by min ${(Math.min(...a) / Math.min(...b)).toFixed(3)}`);
}
