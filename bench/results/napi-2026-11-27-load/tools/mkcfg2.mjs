// node mkcfg2.mjs OUT REPEAT LINES ROUTES VARIANT[:ENV=V,...]...
import { writeFileSync } from 'node:fs';
const [out, repeat, lines, routes, ...variants] = process.argv.slice(2);
const NODE = { 26: '/work/wt/napi-node2/build/node-lines/26/node_modules/node26/bin/node', 20: '/usr/bin/env' };
const P = '/work/scratch/napi-load/project';
const cfg = [];
for (const line of lines.split(',')) {
  const node = line === '20' ? process.execPath : NODE[line];
  const base = variants[0].split(':')[0];
  cfg.push({ label: `${line} stock`, node, args: [`/work/scratch/napi-load/${base}/tests/napi/work.mjs`, 'stock', ...(process.env.JOB === 'parse' ? ['parse'] : ['bundle', '--project', P, '--repeat', repeat])] });
  for (const route of routes.split(',')) for (const v of variants) {
    const [dir, envs] = v.split(':');
    const env = Object.fromEntries((envs ?? '').split(',').filter(Boolean).map((kv) => kv.split('=')));
    cfg.push({ label: `${line} ${route} ${v}`, node, env, args: [`/work/scratch/napi-load/${dir}/tests/napi/work.mjs`, route, ...(process.env.JOB === 'parse' ? ['parse'] : ['bundle', '--project', P, '--repeat', repeat])] });
  }
}
writeFileSync(out, JSON.stringify(cfg, null, 1));
