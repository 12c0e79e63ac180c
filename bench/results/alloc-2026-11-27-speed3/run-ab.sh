#!/usr/bin/env bash
# run-ab.sh OUTNAME RUNS WORK KINDS NAME=DIR...   (under the bench lock, vmstat before and after)
set -uo pipefail
out=/work/scratch/alloc-speed/runs/$1; shift
{
  echo "start $(date -u +%H:%M:%S)"
  flock /work/scratch/bench.lock bash -c "echo locked \$(date -u +%H:%M:%S); vmstat 1 5; node /work/scratch/alloc-speed/ab.mjs $*; echo rc=\$? end \$(date -u +%H:%M:%S); vmstat 1 5"
} > "$out.txt" 2>&1
