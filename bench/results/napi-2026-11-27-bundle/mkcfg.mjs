// node mkcfg.mjs OUT REPEAT VARIANT... : configs for tasks-ab (stock + each variant x direct/dropin, Node 20 and 26)
import { writeFileSync } from 'node:fs';
const [out, repeat, ...variants] = process.argv.slice(2);
const N26 = '/work/wt/napi-node/build/node-lines/26/node_modules/node26/bin/node';
const P = '/work/scratch/napi-node/project';
const cfg = [];
for (const [line, node] of [['26', N26], ['20', process.execPath]]) {
  cfg.push({ label: `${line} stock`, node, args: [`/work/scratch/napi-node/${variants[0]}/tests/napi/work.mjs`, 'stock', 'bundle', '--project', P, '--repeat', repeat] });
  for (const route of ['direct', 'dropin']) for (const v of variants) cfg.push({ label: `${line} ${route} ${v}`, node, args: [`/work/scratch/napi-node/${v}/tests/napi/work.mjs`, route, 'bundle', '--project', P, '--repeat', repeat] });
}
writeFileSync(out, JSON.stringify(cfg, null, 1));
