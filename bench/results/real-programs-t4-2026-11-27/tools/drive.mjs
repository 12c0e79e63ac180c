// node drive.mjs ROUNDS OUT.json CONFIG... ; CONFIG = name=cmd arg arg (split on spaces)
// Rounds interleave configs, alternating order. Records ms, TRACE lines, stderr tail.
import { spawnSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const [rounds, out, ...specs] = process.argv.slice(2);
const cfgs = specs.map((s) => { const i = s.indexOf('='); return { name: s.slice(0, i), argv: s.slice(i + 1).split(' ') }; });
const res = [];
for (let r = 0; r < Number(rounds); r++) {
  const order = r % 2 ? [...cfgs].reverse() : cfgs;
  for (const c of order) {
    const hogs = [];
    const nh = /h(\d)$/.exec(c.name); // name ending in hN: N busy processes run beside it
    for (let i = 0; i < (nh ? Number(nh[1]) : 0); i++) hogs.push(spawn('taskset', ['-c', String(1 - (i % 2)), process.execPath, '-e', 'for(;;);'], { stdio: 'ignore' }));
    if (hogs.length) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150);
    const t = process.hrtime.bigint();
    const p = spawnSync(c.argv[0], c.argv.slice(1), { encoding: 'utf8', env: { ...process.env, ...(c.env ?? {}) }, timeout: 60000 });
    const wall = Number(process.hrtime.bigint() - t) / 1e6;
    for (const h of hogs) h.kill('SIGKILL');
    const m = /ms=([0-9.]+)/.exec(p.stdout ?? '');
    const traces = ((p.stdout ?? '') + '\n' + (p.stderr ?? '')).split('\n').filter((l) => l.startsWith('TRACE') || l.startsWith('STAT') || l.startsWith('T0') || l.startsWith('YSTAT'));
    res.push({ round: r, name: c.name, pid: p.pid, ms: m ? Number(m[1]) : null, wall, traces, err: (p.stderr ?? '').slice(-2000), code: p.status });
    process.stdout.write(`${r} ${c.name} ${m ? m[1] : 'FAIL ' + p.status} wall=${wall.toFixed(0)}\n`);
  }
}
writeFileSync(out, JSON.stringify(res, null, 1));
const by = {};
for (const x of res) if (x.ms != null) (by[x.name] ??= []).push(x.ms);
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
for (const [k, v] of Object.entries(by)) console.log(k, 'n', v.length, 'min', Math.min(...v), 'median', med(v), 'all', v.join(' '));
