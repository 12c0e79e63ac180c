#!/usr/bin/env bash
# math T threads (fixed total work) on Node 26: hosted (default) vs --no-host-threads, interleaved.
N26=build/node-lines/26/node_modules/node26/bin/node; M=build/bench/harness/programs/math.wasm
for r in 1 2 3 4 5 6 7; do
  for T in 8 16; do
    for mode in --host-threads --no-host-threads; do
      out=$($N26 runtime/dist/cli.cjs run $mode $M $T)
      echo "$r T=$T $mode $(echo "$out" | sed -E 's/.*elapsed_ms=([0-9.]+).*/\1/')"
    done
  done
done
