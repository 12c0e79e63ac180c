#!/bin/bash
# hello first output + CPU, Node 20 and Node 26, same session: emnapi, node:wasi, main before (ESM bundle),
# new (landed dist/cli.cjs, warm code cache), new with no cache (SPINDLE_CACHE_DIR=none), new cold (empty cache dir, written at exit), node -e 0
cd /work/scratch/startup
H=/work/wt/startup/build/bench/harness/programs/hello.wasm; B=/work/wt/startup/bench/runtime/hosts
NEW=${NEW:-/work/wt/startup/runtime/dist/cli.cjs}
for N in node /work/nodes/26/bin/node; do
  echo "== $($N --version) $(date -u +%T)"; $N $NEW run $H > /dev/null
  vmstat 1 3 | tail -2 | awk '{print "idle before", $15}'
  python3 fo.py ${RUNS:-12} "emnapi=$N --no-warnings $B/emnapi-run.mjs --wasi node --pool 0 $H" "nodewasi=$N --no-warnings $B/node-wasi-run.mjs $H" "before=$N v/esm/cli.js run $H" "new=$N $NEW run $H" "new-nocache=env SPINDLE_CACHE_DIR=none $N $NEW run $H" "new-cold=./cold.sh $N $NEW run $H" "e0=$N -e 0"
  vmstat 1 3 | tail -2 | awk '{print "idle after", $15}'
done
rm -rf /tmp/spindle-cold-*
