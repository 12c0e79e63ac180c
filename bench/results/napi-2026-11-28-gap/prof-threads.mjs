// node cat.mjs DIR: per profile (thread), self time by category; for the busiest thread, JS self time
// grouped by the wasm->JS boundary frame (the import called from wasm) and top JS functions.
import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[2];
for (const f of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const p = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const dt = new Map();
  for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const isWasm = (n) => n.callFrame.url.startsWith('wasm://') || /^\$?(func\d+|.*wasm-function)/.test(n.callFrame.functionName) && !n.callFrame.url;
  const cat = new Map(); const boundary = new Map(); const jsself = new Map();
  const add = (m, k, t) => m.set(k, (m.get(k) ?? 0) + t);
  let total = 0;
  for (const [id, t] of dt) {
    const n = byId.get(id); const fn = n.callFrame.functionName; total += t;
    let c;
    if (['(idle)', '(program)', '(garbage collector)', '(root)'].includes(fn)) c = fn;
    else if (isWasm(n)) c = 'wasm';
    else {
      c = 'js';
      // nearest ancestor whose parent is wasm: the import
      let cur = id, last = id;
      while (cur !== undefined) { const m = byId.get(cur); if (isWasm(m)) break; last = cur; cur = parent.get(cur); }
      const b = byId.get(last); add(boundary, cur === undefined ? '(from JS) ' : `${b.callFrame.functionName} ${b.callFrame.url.split('/').slice(-2).join('/')}`, t);
      add(jsself, `${fn || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`, t);
    }
    add(cat, c, t);
  }
  const ms = (t) => (t / 1000).toFixed(0);
  const busy = total - (cat.get('(idle)') ?? 0);
  if (busy < 100000) continue;
  console.log(`== ${f}: busy ${ms(busy)} ms: ` + [...cat].sort((a, b) => b[1] - a[1]).map(([k, t]) => `${k} ${ms(t)}`).join(', '));
  console.log('  js by import: ' + [...boundary].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([k, t]) => `${k}=${ms(t)}`).join('; '));
  console.log('  js self top: ' + [...jsself].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, t]) => `${k}=${ms(t)}`).join('; '));
}
