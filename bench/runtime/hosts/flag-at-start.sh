#!/bin/bash
# What starting Node 20 with --experimental-wasm-stack-switching (which makes spindle host threads
# beyond the pool, runtime/src/jspi.ts) costs a run that hosts nothing: math T=1 (one long loop,
# bench/programs/math.c: its elapsed_ms) and threads4 (4 threads, the pool's), each process's wall
# time, interleaved plain / flag, RUNS rounds. Prints one line per run.
#   bash flag-at-start.sh REPO [RUNS]
REPO=$1; RUNS=${2:-5}
CLI=$REPO/runtime/dist/cli.js
for i in $(seq 1 "$RUNS"); do
  for mode in plain flag; do
    flag=(); [ $mode = flag ] && flag=(--experimental-wasm-stack-switching)
    t0=$(date +%s%N); out=$(node "${flag[@]}" "$CLI" run "$REPO/build/bench/harness/programs/math.wasm" 1); t1=$(date +%s%N)
    echo "math mode=$mode wall_ms=$(( (t1 - t0) / 1000000 )) $(grep -o 'elapsed_ms=[0-9.]*' <<<"$out")"
    t0=$(date +%s%N); node "${flag[@]}" "$CLI" run "$REPO/build/guests/c/threads4.wasm" > /dev/null; rc=$?; t1=$(date +%s%N)
    echo "threads4 mode=$mode wall_ms=$(( (t1 - t0) / 1000000 )) rc=$rc"
  done
done
