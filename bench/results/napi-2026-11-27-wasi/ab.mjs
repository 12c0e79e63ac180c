// rolldown's bundle (tests/napi/work.mjs) A/B in one interleaved run: the stock loader and
// spindle's direct route from two copies of runtime/dist, side by side.
//
//   node ab.mjs --node BIN --rounds N --repeat R --project DIR NAME=DIST ...
//
// Each copy is a tree under /tmp/napiwasi/ab/NAME with runtime/dist (copied), runtime/node_modules
// and tests/napi/stock (links), and tests/napi's work.mjs, corpus.mjs and rolldown-direct.cjs
// (copied: rolldown-direct.cjs requires ../../runtime/dist from where it really is). The stock
// route runs from the first copy. Prints medians (min) of job_ms and job_cpu_ms, and the ratios
// to stock's medians in the same run.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const args = process.argv.slice(2);
const opt = (n, d) => { const i = args.indexOf(n); if (i < 0) return d; const v = args[i + 1]; args.splice(i, 2); return v; };
const node = opt('--node', process.execPath);
const rounds = Number(opt('--rounds', '7'));
const repeat = opt('--repeat', '3');
const project = resolve(opt('--project', '/tmp/napiwasi/project'));
const copies = args.map((a) => { const [name, dist] = a.split('='); return { name, dist: resolve(dist) }; });
for (const c of copies) {
  const root = join('/tmp/napiwasi/ab', c.name);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'tests/napi'), { recursive: true });
  cpSync(c.dist, join(root, 'runtime/dist'), { recursive: true });
  cpSync(join(repo, 'runtime/package.json'), join(root, 'runtime/package.json'));
  symlinkSync(join(repo, 'runtime/node_modules'), join(root, 'runtime/node_modules'));
  symlinkSync(join(repo, 'tests/napi/stock'), join(root, 'tests/napi/stock'));
  for (const f of ['work.mjs', 'corpus.mjs', 'rolldown-direct.cjs']) cpSync(join(repo, 'tests/napi', f), join(root, 'tests/napi', f));
  c.root = root;
}
const configs = [{ name: 'stock', route: 'stock', root: copies[0].root }, ...copies.map((c) => ({ name: c.name, route: 'direct', root: c.root }))];
const res = new Map(configs.map((c) => [c.name, []]));
let digest;
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? configs : [...configs].reverse();
  for (const c of order) {
    const out = execFileSync(node, [join(c.root, 'tests/napi/work.mjs'), c.route, 'bundle', '--project', project, '--repeat', repeat], { encoding: 'utf8' });
    const j = JSON.parse(out.trim().split('\n').pop());
    if (digest !== undefined && j.digest !== digest) throw new Error(`${c.name}: digest ${j.digest}, expected ${digest}`);
    digest = j.digest;
    res.get(c.name).push(j);
  }
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const stock = res.get('stock');
const m = (rows, k) => med(rows.map((x) => x[k]));
console.log(`node ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}, ${rounds} rounds, repeat ${repeat}`);
console.log('| | job_ms median (min) | ratio | job_cpu_ms median (min) | ratio | first_ms median | cpu_ms median |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [name, rows] of res) {
  const j = m(rows, 'jobMs'), c = m(rows, 'jobCpuMs');
  console.log(`| ${name} | ${j} (${Math.min(...rows.map((x) => x.jobMs))}) | ${(j / m(stock, 'jobMs')).toFixed(2)} | ${c} (${Math.min(...rows.map((x) => x.jobCpuMs))}) | ${(c / m(stock, 'jobCpuMs')).toFixed(2)} | ${m(rows, 'firstMs')} | ${m(rows, 'cpuMs')} |`);
}
