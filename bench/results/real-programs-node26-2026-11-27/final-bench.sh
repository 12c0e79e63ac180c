# Final benches of the 13:34-16:34 session, one at a time, in a fresh clone at main ($1).
set -x
C=$1
cd $C
R=bench/results
F=/work/scratch/lead/fb3
NL=/work/wt/lead/build/node-lines
v() { vmstat 1 5 > "$1" 2>&1; }
v $F/vm-0.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only napi --runs 5 --param napi.engines=none --out $R/napi-2026-11-27-final3 ; v $F/vm-1.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only napi --runs 5 --param napi.lines=none --param napi.jobs=rolldown --param napi.engines=chromium,firefox --out $R/napi-2026-11-27-final3-browsers ; v $F/vm-1b.txt
(cd /work/scratch/alloc-speed && REPO=$C flock /work/scratch/bench.lock node ab.mjs 11 ring:1,ring:2,article:1 c,rust pre-arena=base-4ef6059 start=base-wt-as3main final=base-wt-as3final > $F/alloc-ab.txt 2>&1); v $F/vm-2.txt
for n in 26 24 22; do
  runs=5; [ $n = 26 ] || runs=3
  flock /work/scratch/bench.lock $NL/$n/node_modules/node$n/bin/node runtime/dist/cli.js bench --only real-programs,first-output --runs $runs --out $R/real-programs-node$n-2026-11-27 ; v $F/vm-rp$n.txt
done
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only real-programs,first-output --runs 5 --out $R/real-programs-node20-2026-11-27 ; v $F/vm-rp20.txt
echo ALLDONE
