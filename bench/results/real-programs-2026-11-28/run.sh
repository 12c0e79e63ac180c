#!/usr/bin/env bash
# run.sh OUT: issue 17's real-programs experiment (every part) and first-output, 9 runs, once per
# Node line (the PATH's node = 20, then tools/node-lines.sh's 22, 24, 26), one after another, with
# vmstat before and after each. Run from a built clone (tools/main.sh).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd); out=$(mkdir -p "$1" && cd "$1" && pwd)
cd "$repo"
for n in 20 22 24 26; do
  node=node; [ $n = 20 ] || node=$(bash tools/node-lines.sh $n)
  echo "== Node $n $(date -u +%H:%M:%S)"; vmstat 1 3 | tail -1
  $node runtime/dist/cli.js bench --only real-programs,first-output --runs 9 --out "$out/node$n" > "$out/node$n.log" 2>&1 || echo "rc=$?"
  vmstat 1 3 | tail -1
  grep -A9 "^## Goals" "$out/node$n/summary.md"
done
