"""The growth guard's cost in CPU time: the same runtime (a snapshot of this branch's dist), the
program's bytes pre-rewritten by each version of the rewrite (the CLI leaves a marked module as it is):
  none  marker only (no guard at all)        pre   a791360^ (bulk + waits)
  main  dc0f7bb (a call per atomic access)   new   this branch (inline checks, elision)
  build:main / build:new  the unmodified module on a build of main (dc0f7bb) / of this branch.
Each round runs every variant in a shuffled order, twice: the full workload and a tiny one (the
fixed cost: start-up, compile, rewrite); workload CPU = CPU(full) - CPU(tiny) of the same round.
Usage: python3 ab2.py N CASES...   ($NODE: the node binary; $TAG: result file; $BUDGET: seconds)"""
import os, re, resource, subprocess, sys, statistics, json, random, time
S = '/work/scratch/guards'
NODE = os.environ.get('NODE', 'node')
N = int(sys.argv[1]); wanted = sys.argv[2:]
def cli(dist): return [NODE, f'{S}/{dist}/cli.js', 'run']
def case(prog, big, small, threads, pat):
    out = {}
    for v in ('none', 'pre', 'main', 'new'):
        out[v] = (cli('dist-new') + ['--threads', str(threads), f'{S}/variants/{prog}.{v}.wasm'], big, small)
    out['build:main'] = (cli('dist-main') + ['--threads', str(threads), f'{S}/{prog}.wasm'], big, small)
    out['build:new'] = (cli('dist-new') + ['--threads', str(threads), f'{S}/{prog}.wasm'], big, small)
    return out, pat
MS = r'\bms=([\d.]+)'; EL = r'elapsed_ms=([\d.]+)'
CASES = {
    'ring1': case('c_spindle', ['ring', '1', '24000000'], ['ring', '1', '1000'], 1, MS),
    'ring2': case('c_spindle', ['ring', '2', '24000000'], ['ring', '2', '1000'], 2, MS),
    'rust-ring1': case('rust_spindle', ['ring', '1', '24000000'], ['ring', '1', '1000'], 1, MS),
    'dl-ring1': case('c_dlmalloc', ['ring', '1', '8000000'], ['ring', '1', '1000'], 1, MS),
    'math1': case('math', ['1', '200000000'], ['1', '1000'], 1, EL),
    'math2': case('math', ['2', '200000000'], ['2', '1000'], 2, EL),
}
def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, 'SPINDLE_CACHE_DIR': 'none'})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0: raise RuntimeError(f'exit {p.returncode}: {p.stdout[-300:]} {p.stderr[-300:]}')
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), p.stdout
res = {}; t0 = time.time(); BUDGET = float(os.environ.get('BUDGET', '480')); tag = os.environ.get('TAG', 'run')
for i in range(N):
    if time.time() - t0 > BUDGET: print('budget reached', flush=True); break
    for name in wanted:
        cmds, pat = CASES[name]
        order = list(cmds.items()); random.shuffle(order)
        for v, (cmd, big, small) in order:
            try:
                cpu_big, out = run(cmd + big)
                cpu_small, _ = run(cmd + small)
            except RuntimeError as e:
                print('FAIL', name, v, e, flush=True); continue
            m = re.search(pat, out); c = re.search(r'checksum=(\w+)', out)
            res.setdefault(name, {}).setdefault(v, []).append((cpu_big, cpu_small, float(m.group(1)), c.group(1)))
    print(f'round {i+1}/{N} load {os.getloadavg()[0]:.1f} {time.time()-t0:.0f}s', flush=True)
    json.dump(res, open(f'{S}/ab/{tag}.json', 'w'))
for name, by in res.items():
    print(f'\n{name} (checksums: {sorted({r[3] for rs in by.values() for r in rs})}; rounds: {min(len(r) for r in by.values())})')
    print('| variant | workload CPU s min / median | fixed CPU s median | own figure ms median | workload CPU median vs none / pre / main |')
    print('|---|---|---|---|---|')
    work = {v: [b - s for b, s, _, _ in r] for v, r in by.items()}
    med = {v: statistics.median(w) for v, w in work.items()}
    for v in ('none', 'pre', 'main', 'new', 'build:main', 'build:new'):
        if v not in by: continue
        r = by[v]
        print(f'| {v} | {min(work[v]):.3f} / {med[v]:.3f} | {statistics.median([s for _, s, _, _ in r]):.3f} | '
              f'{statistics.median([o for _, _, o, _ in r]):.1f} | {med[v]/med["none"]:.3f} / {med[v]/med["pre"]:.3f} / {med[v]/med["main"]:.3f} |')
