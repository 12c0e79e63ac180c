#!/bin/bash
# flags.sh NODE ROUNDS DIST: the replay (replay-split.mjs: pass 1 all cold, pass 2 cache cold,
# pass 3 warm; 2 workers per process) under V8 flag sets, interleaved one process per flag set per
# round (V8 flags are per process). Prints one replay line per process, prefixed with the flags.
node=$1; rounds=$2; dist=$3
here=$(cd "$(dirname "$0")" && pwd)
replay=$here/replay-split.mjs
sets=("" "--no-lazy" "--always-sparkplug")
for ((r = 0; r < rounds; r++)); do
  for s in "${sets[@]}"; do
    echo "[${s:-default}] $("$node" $s "$replay" --rounds 2 "$dist" | tail -1)"
  done
done
