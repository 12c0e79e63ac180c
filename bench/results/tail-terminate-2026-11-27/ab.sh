#!/bin/bash
# Interleaved A/B of the tail-call count in thread-guards.ts (pool threads) and of its composition
# with preempt.ts (hosted threads): plain (the module as it is), then per runtime, old (main at
# c1bca44: `git archive main runtime/src runtime/tsconfig.json runtime/package.json | tar -x -C
# /tmp/tt/old`, `npx tsc -p .` in its runtime/) and new (this branch's runtime/dist):
#   guarded  the module with a shared memory through thread-guards.js (old: left unchanged, no site)
#   hosted   that, then preempt.js (old: preempt counts the tail calls; new: the guard's tick does)
# bench/runtime/hosts/loop-budget.mjs, 1e8 iterations or tail calls per measure. Run under
# `flock /work/scratch/bench.lock`; summarize with `python3 summarize.py ab.out`.
set -e
cd /work/wt/malloc-ring
script=bench/runtime/hosts/loop-budget.mjs
old=/tmp/tt/old/runtime/dist/preempt.js new=$PWD/runtime/dist/preempt.js
for run in 1 2 3 4 5; do
  for line in 26 24; do
    exe=build/node-lines/$line/node_modules/node$line/bin/node
    for tier in default opt; do
      flags=(); [ $tier = opt ] && flags=(--no-liftoff)
      echo "run=$run node=$line tier=$tier cfg=plain $("$exe" "${flags[@]}" $script "$new" plain 100000000)"
      for mode in guarded hosted; do
        for cfg in old new; do
          p=$new; [ $cfg = old ] && p=$old
          echo "run=$run node=$line tier=$tier cfg=$cfg-$mode $("$exe" "${flags[@]}" $script "$p" $mode 100000000)"
        done
      done
    done
  done
done
