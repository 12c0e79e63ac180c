// Pre-rewritten variants of a module: none (marker only), pre (a791360^: bulk + waits),
// main (dc0f7bb: + a call per atomic access), new (this branch: inline checks, elision).
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
const [src, out] = process.argv.slice(2);
const bytes = new Uint8Array(readFileSync(src));
const name = basename(src, '.wasm');
const marker = 'spindle.thread-guards';
const enc = new TextEncoder().encode(marker);
const content = [enc.length, ...enc, 0];
writeFileSync(`${out}/${name}.none.wasm`, Buffer.concat([bytes, Buffer.from([0, content.length, ...content])]));
for (const [v, dir] of [['pre', './old/pre/dist'], ['main', './old/dc0f7bb/dist'], ['new', '/work/wt/guards/runtime/dist']]) {
  const { guardThreads } = await import(`${dir}/thread-guards.js`);
  const t = process.hrtime.bigint();
  const r = guardThreads(bytes);
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.unchanged) throw new Error(`${v}: ${r.unchanged}`);
  writeFileSync(`${out}/${name}.${v}.wasm`, r.bytes);
  console.log(name, v, JSON.stringify({ ...r, bytes: r.bytes.length }), `${ms.toFixed(1)} ms`);
}
