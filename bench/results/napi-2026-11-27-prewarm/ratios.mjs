// node ratios.mjs BUNDLE.txt [PARSE.txt]: each row as a ratio to its line's stock row, median (min)
import { readFileSync } from 'node:fs';
const parse = (f) => { const [h, ...rows] = readFileSync(f, 'utf8').trim().split('\n'); const keys = h.split(' | ');
  return rows.map((r) => { const c = r.split(' | '); return Object.fromEntries(keys.map((k, i) => [k, i ? c[i].match(/(-?[\d.]+|NaN)\((-?[\d.]+|NaN)\)/).slice(1).map(Number) : c[i]])); }); };
const [bf, pf] = process.argv.slice(2);
const b = parse(bf), p = pf ? parse(pf) : [];
const r = (a, s) => (a / s).toFixed(2);
console.log('| config | load | first | job (mean of 3) | load+first (medians, ms) | oxc job |\n|---|---:|---:|---:|---:|---:|');
for (const row of b) {
  const line = row.label.split(' ')[0]; const s = b.find((x) => x.label === `${line} stock`);
  const o = p.find((x) => x.label === row.label), os = p.find((x) => x.label === `${line} stock`);
  const f = (k) => row === s ? `${row[k][0]} (${row[k][1]})` : `${r(row[k][0], s[k][0])} (${r(row[k][1], s[k][1])})`;
  const lf = row.loadMs[0] + row.firstMs[0], slf = s.loadMs[0] + s.firstMs[0];
  console.log(`| ${row.label} | ${f('loadMs')} | ${f('firstMs')} | ${f('jobMs')} | ${lf}${row === s ? '' : ` = ${r(lf, slf)}`} | ${o ? (o === os ? `${o.jobMs[0]} (${o.jobMs[1]})` : `${r(o.jobMs[0], os.jobMs[0])} (${r(o.jobMs[1], os.jobMs[1])})`) : ''} |`);
}
