# Final benches of the 19:15-22:15 session, one at a time, in the clone $1 (at main).
set -x
C=$1
cd $C
R=bench/results
F=/work/scratch/lead/fb5
NL=/work/wt/lead/build/node-lines
v() { vmstat 1 5 > "$1" 2>&1; }
v $F/vm-0.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only napi --runs 7 --param napi.engines=none --out $R/napi-2026-11-27-final5 ; v $F/vm-1.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only napi --runs 5 --param napi.lines=none --param napi.jobs=rolldown --param napi.engines=chromium,firefox --out $R/napi-2026-11-27-final5-browsers ; v $F/vm-1b.txt
for n in 26 24 22 20; do
  if [ $n = 20 ]; then nb=node; else nb=$NL/$n/node_modules/node$n/bin/node; fi
  flock /work/scratch/bench.lock $nb runtime/dist/cli.js bench --only real-programs,first-output --runs 5 --param real-programs.parts=large,hello --out $R/real-programs-node$n-2026-11-27-final5 ; v $F/vm-rp$n.txt
  flock /work/scratch/bench.lock $nb runtime/dist/cli.js bench --only real-programs --runs 15 --param real-programs.parts=math,malloc --out $R/real-programs-node$n-2026-11-27-final5-runs15 ; v $F/vm-r15-$n.txt
done
echo ALLDONE
