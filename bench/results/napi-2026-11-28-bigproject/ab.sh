#!/usr/bin/env bash
# ab.sh ROUNDS CFG...: bench/napi/ab/tasks-ab.mjs on each configuration file (rolldown --repeat 3
# bundling the big project), with vmstat before and after each.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd); rounds=$1; shift
for cfg in "$@"; do
  echo "== $cfg $(date -u +%H:%M:%S)"; vmstat 1 5
  node "$repo/bench/napi/ab/tasks-ab.mjs" "$rounds" "$cfg"
  vmstat 1 5
done
