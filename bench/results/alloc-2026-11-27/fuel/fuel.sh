#!/bin/bash
# fuel.sh WASM ARGS...: the least fuel (wasm operators) with which the program completes (binary search)
W=/work/wt/alloc-mem/build/bench/venv/bin/wasmtime
lo=1; hi=100000000000
while [ $((hi - lo)) -gt $((hi / 20000)) ]; do
  mid=$(((lo + hi) / 2))
  if $W run -W threads=y,shared-memory=y,fuel=$mid -S threads=y "$@" >/dev/null 2>&1; then hi=$mid; else lo=$mid; fi
done
echo "$hi"
