set -x
C=$1; cd $C; R=bench/results; F=/work/scratch/lead/fb4; NL=/work/wt/lead/build/node-lines
for n in 20 22 24 26; do
  if [ $n = 20 ]; then nb=node; else nb=$NL/$n/node_modules/node$n/bin/node; fi
  flock /work/scratch/bench.lock $nb runtime/dist/cli.js bench --only real-programs --runs 9 --param real-programs.parts=math,malloc --out $R/real-programs-node$n-2026-11-27-final-runs9 ; vmstat 1 5 > $F/vm-r9-$n.txt
done
echo ALLDONE
