#!/usr/bin/env bash
# perf-ab.sh ROUNDS KIND NAME=DIR...: CPU samples per wasm function (perf, 5 kHz), ring T=1, 20M pairs, interleaved
r=$1 k=$2; shift 2
for i in $(seq 1 $r); do for nd in "$@"; do n=${nd%%=*} d=${nd#*=}; echo "$k $n $(/work/scratch/alloc-speed/perfsum.sh $d $k)"; done; done
