// node callers.mjs FILE.cpuprofile NAME: the call chains (4 frames) above function NAME, by time.
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const target = process.argv[3];
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const name = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
const agg = new Map();
for (const [id, t] of dt) {
  let cur = id; const chain = [];
  while (cur !== undefined) { chain.push(name(byId.get(cur))); cur = parent.get(cur); }
  const i = chain.findIndex((c) => c.startsWith(target + ' '));
  if (i < 0) continue;
  const key = chain.slice(i, i + 4).join(' < ');
  agg.set(key, (agg.get(key) ?? 0) + t);
}
console.log([...agg].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, t]) => `${(t / 1000).toFixed(1)} ms ${k}`).join('\n'));
