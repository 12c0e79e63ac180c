// node prof.mjs FILE.cpuprofile [N]: top self-time functions, and totals per url
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const N = Number(process.argv[3] ?? 40);
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas;
for (let i = 0; i < p.samples.length; i++) { const id = p.samples[i]; self.set(id, (self.get(id) ?? 0) + (dt[i + 1] ?? 0)); }
const fn = new Map(), url = new Map();
for (const [id, us] of self) { const n = byId.get(id); const cf = n.callFrame; const k = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber}`; fn.set(k, (fn.get(k) ?? 0) + us); const u = cf.url.split('/').slice(-3).join('/') || cf.functionName; url.set(u, (url.get(u) ?? 0) + us); }
const show = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, N).forEach(([k, v]) => console.log((v / 1000).toFixed(1).padStart(8), k));
console.log('total', (p.endTime - p.startTime) / 1000); show(fn); console.log('--- by url'); show(url);
// inclusive time of selected function names
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const [id, us] of self) { const seen = new Set(); for (let x = id; x !== undefined; x = parent.get(x)) { const n = byId.get(x); const k = `${n.callFrame.functionName} ${n.callFrame.url.split('/').pop()}`; if (seen.has(k)) continue; seen.add(k); incl.set(k, (incl.get(k) ?? 0) + us); } }
console.log('--- inclusive'); [...incl].sort((a, b) => b[1] - a[1]).slice(0, N).forEach(([k, v]) => console.log((v / 1000).toFixed(1).padStart(8), k));
