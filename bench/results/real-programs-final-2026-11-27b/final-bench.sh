set -x
cd /work/scratch/lead/ci5
R=bench/results
F=/work/scratch/lead/fb2
v() { vmstat 1 5 > "$1" 2>&1; }
v $F/vm-0.txt
(cd /work/scratch/alloc-speed && REPO=/work/scratch/lead/ci5 flock /work/scratch/bench.lock node ab.mjs 11 ring:1,ring:2,article:1 c,rust pre-arena=base-4ef6059 main=base-wt-mem3 > $F/alloc-ab.txt 2>&1); v $F/vm-1.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only real-programs,first-output --runs 5 --out $R/real-programs-final-2026-11-27b ; v $F/vm-2.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only napi --runs 5 --param napi.engines=none --out $R/napi-2026-11-27-final2 ; v $F/vm-3.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only malloc-web --runs 5 --out $R/malloc-web-2026-11-27-final2 ; v $F/vm-4.txt
echo ALLDONE
