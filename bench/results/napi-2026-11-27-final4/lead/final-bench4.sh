# Final benches of the 16:29-19:29 session, one at a time, in the clone $1 (at main).
set -x
C=$1
cd $C
R=bench/results
F=/work/scratch/lead/fb4
NL=/work/wt/lead/build/node-lines
v() { vmstat 1 5 > "$1" 2>&1; }
v $F/vm-0.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only napi --runs 5 --param napi.engines=none --out $R/napi-2026-11-27-final4 ; v $F/vm-1.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only napi --runs 5 --param napi.lines=none --param napi.jobs=rolldown --param napi.engines=chromium,firefox --out $R/napi-2026-11-27-final4-browsers ; v $F/vm-1b.txt
for n in 26 24 22; do
  flock /work/scratch/bench.lock $NL/$n/node_modules/node$n/bin/node runtime/dist/cli.js bench --only real-programs,first-output --runs 5 --out $R/real-programs-node$n-2026-11-27-final ; v $F/vm-rp$n.txt
done
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only real-programs,first-output --runs 5 --out $R/real-programs-node20-2026-11-27-final ; v $F/vm-rp20.txt
echo ALLDONE
