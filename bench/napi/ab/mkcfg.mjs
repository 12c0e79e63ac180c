// node mkcfg.mjs OUT REPEAT TREE... [--project DIR] [--stock TREE]... : configurations for
// tasks-ab.mjs: the stock loader (from the first TREE), then each TREE (snap.sh) through the direct
// API and the drop-in, rolldown bundling tests/napi/project (or DIR: bench/napi/bigproject's real
// project) REPEAT times, on Node 26 (tools/node-lines.sh) and on this node. Each `--stock TREE`
// adds the stock loader of that tree's tests/napi (guarded-stock.sh: on spindle's guarded bytes).
// Add oxc's `parse` by hand (args: [work.mjs, ROUTE, 'parse']).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const args = process.argv.slice(2);
const taken = (name) => { const out = []; let i; while ((i = args.indexOf(name)) >= 0) out.push(args.splice(i, 2)[1]); return out; };
const project = resolve(taken('--project').pop() ?? join(repo, 'tests', 'napi', 'project'));
const stocks = taken('--stock');
const [out, repeat, ...trees] = args;
if (!out || !repeat || !trees.length) throw new Error('usage: node mkcfg.mjs OUT REPEAT TREE... [--project DIR] [--stock TREE]...');
const node26 = execFileSync('bash', [join(repo, 'tools', 'node-lines.sh'), '26'], { encoding: 'utf8' }).trim();
const work = (tree) => join(resolve(tree), 'tests', 'napi', 'work.mjs');
const bundle = (tree, route) => [work(tree), route, 'bundle', '--project', project, '--repeat', repeat];
const cfg = [];
for (const [line, node] of [['26', node26], ['20', process.execPath]]) {
  cfg.push({ label: `${line} stock`, node, args: bundle(trees[0], 'stock') });
  for (const t of stocks) cfg.push({ label: `${line} stock ${basename(t)}`, node, args: bundle(t, 'stock') });
  for (const route of ['direct', 'dropin']) for (const t of trees) cfg.push({ label: `${line} ${route} ${basename(t)}`, node, args: bundle(t, route) });
}
writeFileSync(out, JSON.stringify(cfg, null, 1));
