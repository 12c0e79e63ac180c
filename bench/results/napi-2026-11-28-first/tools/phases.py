#!/usr/bin/env python3
# phases.py ROUNDS CFG.json: interleaved runs; per config, median per phase per thread class (PHASE lines of the patched work.mjs)
import sys, json, subprocess, statistics as st, collections
rounds = int(sys.argv[1]); cfgs = json.load(open(sys.argv[2]))
res = collections.defaultdict(lambda: collections.defaultdict(list))
def parse(err):
    snaps = []
    for l in err.split('\n'):
        if l.startswith('PHASE '):
            p = l.split(); d = {}
            for x in p[2:]:
                if not x: continue
                tid, comm, ms, wt = x.split(':'); d[tid] = (comm, float(ms), float(wt))
            snaps.append((p[1], d))
    return snaps
for r in range(rounds):
    for c in cfgs:
        p = subprocess.run([c['node'], *c['args']], capture_output=True, text=True, env={**__import__('os').environ, **c.get('env', {})})
        j = json.loads(p.stdout.strip().split('\n')[-1])
        snaps = parse(p.stderr); main = min(snaps[0][1], key=int)
        R = res[c['label']]
        for k in ('loadMs', 'firstMs', 'jobMs', 'loadCpuMs'): R[k].append(j[k])
        for (n0, a), (n1, b) in zip(snaps, snaps[1:]):
            if n1.startswith('load-start'): continue
            ph = {'load-end': 'load', 'bundle-end_0': 'b1', 'bundle-end_1': 'b2', 'bundle-end_2': 'b3'}.get(n1)
            if not ph: continue
            rows = {t: b[t][1] - a.get(t, (None, 0))[1] for t in b}
            work = {t: v for t, v in rows.items() if t != main and not b[t][0].startswith(('node-V8', 'DelayedT', 'SignalI')) and not (b[t][0] == 'node' and int(t) - int(main) in (2,3,4,5))}
            bt = max(work, key=work.get) if work else None
            v8 = sum(v for t, v in rows.items() if b[t][0].startswith('node-V8') or (b[t][0] == 'node' and int(t) - int(main) in (2,3,4,5)))
            R[ph + '.main'].append(rows[main]); R[ph + '.v8'].append(v8)
            R[ph + '.bt'].append(work.get(bt, 0) if ph != 'load' else 0)
            R[ph + '.oth'].append(sum(v for t, v in work.items() if t != bt or ph == 'load'))
            R[ph + '.tot'].append(sum(rows.values()))
            if ph != 'load' and bt:
                R[ph + '.btwait'].append(b[bt][2] - a.get(bt, (None, 0, 0))[2])
                R[ph + '.btstart'].append(b[bt][1] - work[bt] if bt in a else -1)
            R[ph + '.mainwait'].append(b[main][2] - a[main][2])
keys = list(next(iter(res.values())).keys())
for c in cfgs:
    R = res[c['label']]
    print(c['label'].ljust(18), ' '.join(f"{k}={st.median(R[k]):.0f}({min(R[k]):.0f})" for k in keys))
