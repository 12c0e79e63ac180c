// node mkcfg.mjs OUT REPEAT TREE... : configurations for tasks-ab.mjs: the stock loader (from the
// first TREE), then each TREE (snap.sh) through the direct API and the drop-in, rolldown bundling
// tests/napi/project REPEAT times, on Node 26 (tools/node-lines.sh) and on this node. Add oxc's
// `parse` by hand (args: [work.mjs, ROUTE, 'parse']).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const [out, repeat, ...trees] = process.argv.slice(2);
if (!out || !repeat || !trees.length) throw new Error('usage: node mkcfg.mjs OUT REPEAT TREE...');
const node26 = execFileSync('bash', [join(repo, 'tools', 'node-lines.sh'), '26'], { encoding: 'utf8' }).trim();
const project = join(repo, 'tests', 'napi', 'project');
const work = (tree) => join(resolve(tree), 'tests', 'napi', 'work.mjs');
const bundle = (tree, route) => [work(tree), route, 'bundle', '--project', project, '--repeat', repeat];
const cfg = [];
for (const [line, node] of [['26', node26], ['20', process.execPath]]) {
  cfg.push({ label: `${line} stock`, node, args: bundle(trees[0], 'stock') });
  for (const route of ['direct', 'dropin']) for (const t of trees) cfg.push({ label: `${line} ${route} ${basename(t)}`, node, args: bundle(t, route) });
}
writeFileSync(out, JSON.stringify(cfg, null, 1));
