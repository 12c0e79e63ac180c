#!/usr/bin/env python3
"""CPU time per operation of the fs workload at T=1 and T=2, from perf samples: does an operation
cost more CPU when two threads run? (Wall-clock scaling on a VM also depends on how fast each vCPU
is at the moment; CPU samples per operation do not.) Needs Linux `perf` (apt: linux-perf).

  python3 bench/fs/profile-scaling.py [WASM=build/bench/fs/fs-inprogram.wasm] [RUNS=3]

Runs the workload RUNS times with `threads 3000 /tmp 1` and RUNS times with `threads 3000 /tmp 2`
(3000 rounds per thread) under `perf record -F 5000` with `node --perf-basic-prof`, and prints
the wasm samples per 1000 operations at T=1 and T=2 (their ratio: 1.00 = no extra CPU per
operation at T=2) and the 30 hottest functions side by side. Timings, not a test."""
import collections, os, re, subprocess, sys, tempfile

repo = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
wasm = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, 'build', 'bench', 'fs', 'fs-inprogram.wasm')
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
ROUNDS, OPS_PER_ROUND = 3000, 64 * 3
cli = os.path.join(repo, 'runtime', 'dist', 'cli.js')


def profile(threads):
    samples, ops, ns = collections.Counter(), 0, []
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, 'perf.data')
        for _ in range(runs):
            out = subprocess.run(['perf', 'record', '-q', '-F', '5000', '-o', data, 'node', '--perf-basic-prof', cli, 'run',
                                  wasm, 'threads', str(ROUNDS), '/tmp', str(threads)], capture_output=True, text=True, check=True).stdout
            n = ROUNDS * OPS_PER_ROUND * threads
            ops += n
            ns.append(int(re.search(r'elapsed_ns=(\d+)', out).group(1)) / n)
            syms = subprocess.run(['perf', 'script', '-i', data, '-F', 'ip,sym'], capture_output=True, text=True).stdout
            for line in syms.splitlines():
                parts = line.strip().split(' ', 1)
                if len(parts) == 2:
                    samples[re.sub(r'-\d+-turbofan$', '', parts[1])[:70]] += 1
    return {k: v * 1000 / ops for k, v in samples.items()}, ns


def wasm_total(d):  # TurboFan-compiled wasm functions ("JS:name" without a JS file)
    return sum(v for k, v in d.items() if k.startswith('JS:') and 'file://' not in k)


one, ns1 = profile(1)
two, ns2 = profile(2)
print('ns/op (wall, all threads): T=1', [round(x) for x in ns1], 'T=2', [round(x) for x in ns2])
print(f'wasm samples per 1000 ops: T=1 {wasm_total(one):.3f}, T=2 {wasm_total(two):.3f}, ratio {wasm_total(two) / wasm_total(one):.2f}')
for k in sorted(one, key=lambda k: -one[k])[:30]:
    print(f'{one[k]:7.3f} {two.get(k, 0):7.3f}  x{two.get(k, 0) / one[k]:.2f}  {k}')
