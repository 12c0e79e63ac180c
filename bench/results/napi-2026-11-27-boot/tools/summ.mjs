// reads BOOT lines from stdin, prints per-phase CPU deltas median
import { readFileSync } from 'node:fs';
const lines = readFileSync(0, 'utf8').split('\n').filter((l) => l.startsWith('BOOT '));
const phases = {};
for (const l of lines) { const { P } = JSON.parse(l.slice(5)); let prev = 0; for (const [k, c] of P) { (phases[k] ??= []).push(c - prev); prev = c; } (phases.total ??= []).push(prev); }
const med = (a) => { a = [...a].sort((x, y) => x - y); return a[a.length >> 1]; };
console.log(lines.length, 'workers;', Object.entries(phases).map(([k, a]) => `${k} ${med(a).toFixed(1)} (mean ${(a.reduce((x, y) => x + y) / a.length).toFixed(1)})`).join(' | '));
