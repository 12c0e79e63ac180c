set -x
cd /work/scratch/lead/ci2
R=bench/results
v() { vmstat 1 5 > "$1" 2>&1; }
mkdir -p /work/scratch/lead/fb
v /work/scratch/lead/fb/vm-0.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only real-programs,first-output --runs 5 --out $R/real-programs-final-2026-11-27 ; v /work/scratch/lead/fb/vm-1.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only thread-cost --runs 5 --param thread-cost.configs=spindle-hosted-node26,spindle-workers-node26,node-workers-limits-node26,wasmtime-46 --param thread-cost.lines=26 --out $R/threads-jspi-2026-11-27-quiet ; v /work/scratch/lead/fb/vm-2.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only malloc-web --runs 5 --out $R/malloc-web-2026-11-27-final ; v /work/scratch/lead/fb/vm-3.txt
flock /work/scratch/bench.lock node runtime/dist/cli.js bench --only napi --runs 5 --param napi.engines=none --out $R/napi-2026-11-27-final ; v /work/scratch/lead/fb/vm-4.txt
echo ALLDONE
