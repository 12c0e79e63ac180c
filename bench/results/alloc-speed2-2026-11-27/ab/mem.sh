#!/usr/bin/env bash
# mem.sh DIR: mem_kb of c_spindle.wasm on ring T=1,2,4 and article T=1,4 (2M pairs), one run each
d=$1
for wt in ring:1 ring:2 ring:4 article:1 article:4; do w=${wt%:*} t=${wt#*:}
  r=$(node /work/wt/alloc-mem/runtime/dist/cli.js run --threads $t $d/c_spindle.wasm $w $t 2000000 | grep RESULT)
  echo "$w T=$t $(echo "$r" | grep -o 'mem_kb=[0-9]*') $(echo "$r" | grep -o 'ms=[0-9.]*')"
done | tr '\n' ';'; echo
