"""issue 16: before (64b7c69) vs after the restructure (d906f62), CPU time (user+sys of the
child, less sensitive to the machine's load than wall time) and the program's own figure,
interleaved, N rounds. Usage: python3 ab.py N"""
import os, re, resource, subprocess, sys, statistics, json, tempfile, shutil
N = int(sys.argv[1]); S = '/work/scratch/lead'
WT = f'{S}/after/build/bench/bin/wasmtime'
WTR = [WT, 'run', '-W', 'threads=y,shared-memory=y', '-S', 'threads=y']
def cases(side):
    d = f'{S}/{side}'; cli = ['node', f'{d}/runtime/dist/cli.js', 'run']
    return {
        'malloc ring T=1 c-spindle (wasmtime)': (WTR + [f'{d}/build/bench/alloc/c_spindle.wasm', 'ring', '1', '4000000'], r'elapsed_ms=([\d.]+)|ms=([\d.]+)'),
        'malloc ring T=1 c-spindle (spindle CLI)': (cli + [f'{d}/build/bench/alloc/c_spindle.wasm', 'ring', '1', '4000000'], None),
        'fs in-program main 200 rounds (wasmtime)': (WTR + ['--dir', '@DIR::/tmp', f'{d}/build/bench/fs/fs-inprogram.wasm', 'main', '200', '/tmp'], r'elapsed_ns=(\d+)'),
        'fs shared (spindle CLI --mount) main 100': (cli + ['--mount', '/tmp=memory', f'{d}/build/bench/fs/fs-plain.wasm', 'main', '100', '/tmp'], r'elapsed_ns=(\d+)'),
        'math T=1 50M (spindle CLI)': (cli + [f'{d}/build/bench/harness/programs/math.wasm', '1', '50000000'], r'elapsed_ms=([\d.]+)'),
        'hello (spindle CLI)': (cli + [f'{d}/build/bench/harness/programs/hello.wasm'], None),
    }
res = {}
for i in range(N):
    for side in ('old', 'after'):
        for name, (cmd, pat) in cases(side).items():
            tmp = tempfile.mkdtemp(dir='/dev/shm'); cmd = [c.replace('@DIR', tmp) for c in cmd]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            p = subprocess.run(cmd, capture_output=True, text=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            shutil.rmtree(tmp, ignore_errors=True)
            if p.returncode != 0: print('FAIL', side, name, p.stdout[-300:], p.stderr[-300:]); continue
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            own = None
            if pat:
                m = re.search(pat, p.stdout)
                own = float(next(g for g in m.groups() if g)) if m else None
            res.setdefault(name, {}).setdefault(side, []).append((cpu, own))
    print(f'round {i+1}/{N} load {os.getloadavg()[0]:.1f}', flush=True)
json.dump(res, open(f'{S}/ab16cpu/res.json', 'w'))
print('| case | CPU s before min / median | after min / median | after/before (min, median) | own figure before / after (median) |')
print('|---|---|---|---|---|')
for name, by in res.items():
    o = [c for c, _ in by['old']]; a = [c for c, _ in by['after']]
    oo = [x for _, x in by['old'] if x is not None]; ao = [x for _, x in by['after'] if x is not None]
    own = f'{statistics.median(oo):.4g} / {statistics.median(ao):.4g}' if oo and ao else '-'
    print(f'| {name} | {min(o):.3f} / {statistics.median(o):.3f} | {min(a):.3f} / {statistics.median(a):.3f} | {min(a)/min(o):.3f}, {statistics.median(a)/statistics.median(o):.3f} | {own} |')
