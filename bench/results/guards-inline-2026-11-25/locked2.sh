#!/bin/bash
cd /work/scratch/guards/ab
echo "locked $(date -u +%T)"; vmstat 1 5
TAG=r4 BUDGET=300 python3 ab2.py 8 math1 math2
echo "rewrite time, rolldown 12.4 MB, fresh process each, CPU ms"
for i in 1 2 3 4 5; do for d in old/dc0f7bb/dist dist-new; do echo -n "$d "; (cd .. && node rwtime.mjs /work/scratch/guards/$d rolldown.wasm); done; done
vmstat 1 5; echo "end $(date -u +%T)"
