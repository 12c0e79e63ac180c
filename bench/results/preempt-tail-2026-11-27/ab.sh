#!/bin/bash
# Interleaved A/B of the preemptible compile: plain, main's preempt.js (old), this branch's (new).
# old: main at d43b178 (`git archive main runtime | tar -x -C /tmp/mr/main`, then `npx tsc -p .` in
# its runtime/); new: runtime/dist of the branch preempt-tail (6d5c061, landed as e1d6a64). Run under
# `flock /work/scratch/bench.lock`; summarize with `python3 summarize.py ab.out`.
set -e
cd /work/wt/malloc-ring
script=bench/runtime/hosts/loop-budget.mjs
old=/tmp/mr/main/runtime/dist/preempt.js new=$PWD/runtime/dist/preempt.js
for run in 1 2 3 4 5 6 7; do
  for line in 26 24; do
    exe=build/node-lines/$line/node_modules/node$line/bin/node
    for tier in default opt; do
      flags=(); [ $tier = opt ] && flags=(--no-liftoff)
      for cfg in plain old new; do
        p=$new; mode=preemptible
        [ $cfg = old ] && p=$old
        [ $cfg = plain ] && mode=plain
        echo "run=$run node=$line tier=$tier cfg=$cfg $("$exe" "${flags[@]}" $script "$p" $mode 200000000)"
      done
    done
  done
done
