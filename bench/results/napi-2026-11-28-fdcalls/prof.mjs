// node prof.mjs FILE.cpuprofile [IMPORT]: a --cpu-prof profile's self and inclusive time by function, and the self time
// of the functions under one WASI import (fd_read, path_open, ...).
// node prof.mjs FILE.cpuprofile: self time by function; inclusive time under each WASI import.
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const name = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
const self = new Map(); const incl = new Map(); const under = new Map();
let total = 0;
const imports = /^(fd_read|fd_close|fd_filestat_get|fd_fdstat_get|path_open|path_filestat_get)$/;
for (const [id, t] of dt) {
  const n = byId.get(id); total += t;
  self.set(name(n), (self.get(name(n)) ?? 0) + t);
  const seen = new Set(); let cur = id; let imp = null;
  while (cur !== undefined) { const m = byId.get(cur); const k = name(m); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + t); } if (imports.test(m.callFrame.functionName)) imp = m.callFrame.functionName; cur = parent.get(cur); }
  if (imp) { const key = imp + ' > ' + name(n); under.set(key, (under.get(key) ?? 0) + t); }
}
const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([n, t]) => `${(t / 1000).toFixed(1).padStart(8)} ms  ${n}`).join('\n');
console.log(`total ${(total / 1000).toFixed(1)} ms\n-- self\n${top(self, 40)}\n-- inclusive\n${top(incl, 40)}`);
const filt = process.argv[3];
if (filt) console.log(`-- self under ${filt}\n${top(new Map([...under].filter(([k]) => k.startsWith(filt + ' >'))), 30)}`);
