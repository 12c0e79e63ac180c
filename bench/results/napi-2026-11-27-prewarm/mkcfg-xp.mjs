// node mkcfg-xp.mjs OUT JOB(bundle|parse) REPEAT: stock, base, xp with XP_FIRST=1 and 2, direct + dropin, Node 26 and 20
import { writeFileSync } from 'node:fs';
const [out, job, repeat] = process.argv.slice(2);
const N26 = '/work/wt/napi-node2/build/node-lines/26/node_modules/node26/bin/node';
const P = '/work/wt/napi-node2/tests/napi/project';
const D = '/work/scratch/napi-prewarm';
const args = (tree, route) => [`${D}/${tree}/tests/napi/work.mjs`, route, ...(job === 'parse' ? ['parse'] : ['bundle', '--project', P, '--repeat', repeat])];
const variants = (process.env.VARIANTS ?? 'base,xp:XP_FIRST=1,xp:XP_FIRST=2').split(' ');
const cfg = [];
for (const [line, node] of [['26', N26], ['20', process.execPath]]) {
  cfg.push({ label: `${line} stock`, node, args: args('base', 'stock') });
  for (const route of ['direct', 'dropin']) for (const v of variants.join(' ').split(/[ ;]/)) {
    const [tree, envs] = v.split(':');
    const env = Object.fromEntries((envs ?? '').split(',').filter(Boolean).map((kv) => kv.split('=')));
    cfg.push({ label: `${line} ${route} ${v}`, node, env, args: args(tree, route) });
  }
}
writeFileSync(out, JSON.stringify(cfg, null, 1));
