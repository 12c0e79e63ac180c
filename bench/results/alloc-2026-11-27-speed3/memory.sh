#!/usr/bin/env bash
# memory.sh NAME=DIR...: peak linear memory (mem_kb) of c_spindle.wasm of each build: ring T=1/2/4 and
# article T=1/4 at 2M pairs, ring T=1 at 3M/4M/8M pairs, 1 and 64 threads holding 256 blocks each.
# Run from the repository (node runtime/dist/cli.js); one run each (the figures are deterministic
# at T=1; T>1 can move with thread interleaving).
set -uo pipefail
repo=${REPO:-/work/wt/alloc-mem}
run() { node "$repo/runtime/dist/cli.js" run --threads "$2" "$1" "${@:3}" | grep -o 'mem_kb=[0-9]*'; }
for nd in "$@"; do n=${nd%%=*} d=${nd#*=}
  line="$n:"
  for wt in ring:1 ring:2 ring:4 article:1 article:4; do w=${wt%:*} t=${wt#*:}
    line="$line $w T=$t $(run $d/c_spindle.wasm $t $w $t 2000000);"
  done
  for p in 3000000 4000000 8000000; do line="$line ring T=1 $p pairs $(run $d/c_spindle.wasm 1 ring 1 $p);"; done
  line="$line threads T=1 $(run $d/c_spindle.wasm 1 threads 1 256); threads T=64 $(run $d/c_spindle.wasm 64 threads 64 256)"
  echo "$line"
done
