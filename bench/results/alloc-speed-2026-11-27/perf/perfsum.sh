#!/usr/bin/env bash
# perfsum.sh DIR [KIND=c] [WORK=ring] [N=20000000]: CPU samples (5 kHz: 0.2 ms each) per wasm function, T=1
d=$1 k=${2:-c} w=${3:-ring} n=${4:-20000000}
f=$(mktemp /tmp/alloc-speed-perf.XXXX)
perf record -q -o $f -F 5000 node --perf-basic-prof /work/wt/alloc-mem/runtime/dist/cli.js run --threads 1 $d/${k}_spindle.wasm $w 1 $n 2>/dev/null | grep -o 'ms=[0-9.]*' | tr '\n' ' '
perf report -i $f -n --sort sym 2>/dev/null | grep -E "^ +[0-9].*JS:" | awk '{n=$2; s=$NF; sub(/^JS:/,"",s); sub(/-[0-9]+-turbofan$/,"",s); if (s ~ /ring_worker|article|main|worker|closure|bench/) w+=n; else {a+=n; if (n>=20) out=out" "s"="n}} END {print "workload="w" alloc="a" |"out}'
rm -f $f
