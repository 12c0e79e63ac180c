#!/usr/bin/env python3
"""First-output micro bench: alternating runs; wall to first stdout byte, wall to exit, CPU (user+sys) via wait4.
usage: fo.py RUNS name=CMD... (CMD is a shell-like string split on spaces)"""
import os, sys, time, statistics, subprocess, select
runs = int(sys.argv[1])
configs = [(a.split('=',1)[0], a.split('=',1)[1].split()) for a in sys.argv[2:]]
res = {n: {'fo': [], 'exit': [], 'cpu': []} for n, _ in configs}
def one(cmd):
    r, w = os.pipe()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(w, 1); os.close(r); os.close(w)
        devnull = os.open('/dev/null', os.O_WRONLY); os.dup2(devnull, 2)
        os.execvp(cmd[0], cmd)
    os.close(w)
    first = None; out = b''
    while True:
        b = os.read(r, 65536)
        if not b: break
        if first is None: first = time.perf_counter()
        out += b
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter()
    os.close(r)
    if status != 0 or not out.startswith(b'hello') and b'0.1.0' not in out and out != b'':
        print('BAD', cmd, status, out[:80], file=sys.stderr)
    return ((first or t1) - t0) * 1000, (t1 - t0) * 1000, (ru.ru_utime + ru.ru_stime) * 1000
for i in range(-1, runs):
    for n, cmd in (configs if i % 2 == 0 else configs[::-1]):
        fo, ex, cpu = one(cmd)
        if i >= 0:
            res[n]['fo'].append(fo); res[n]['exit'].append(ex); res[n]['cpu'].append(cpu)
base = configs[0][0]
bm = statistics.median(res[base]['fo']); bc = statistics.median(res[base]['cpu'])
print(f"{'config':28} {'fo min':>7} {'fo med':>7} {'ratio':>6} {'exit med':>8} {'cpu min':>7} {'cpu med':>7} {'ratio':>6}")
for n, _ in configs:
    r = res[n]; m = statistics.median(r['fo']); c = statistics.median(r['cpu'])
    print(f"{n:28} {min(r['fo']):7.1f} {m:7.1f} {m/bm:6.3f} {statistics.median(r['exit']):8.1f} {min(r['cpu']):7.1f} {c:7.1f} {c/bc:6.3f}")
