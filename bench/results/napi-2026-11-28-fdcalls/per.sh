#!/usr/bin/env bash
# per.sh NODE26 ROUNDS DIST...: replay-fd.mjs --per (thread CPU per pass, and per call kind the
# time inside the calls) on both recordings of ../napi-2026-11-28-bigproject, Node 20 (node) then
# Node 26, vmstat before and after. The direct recording needs the project at /tmp/h52/big
# (../napi-2026-11-28-bigproject/README.md), the drop-in's paths are absolute under '/' to it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); n26=$1; rounds=$2; shift 2
vmstat 1 5
for node in node "$n26"; do
  echo "== $($node --version) direct (root /tmp/h52/big)"; $node "$here/replay-fd.mjs" --per --rounds "$rounds" --passes 3 --calls calls-direct.jsonl.gz --root /tmp/h52/big "$@"
  echo "== $($node --version) drop-in (root /)"; $node "$here/replay-fd.mjs" --per --rounds "$rounds" --passes 3 --calls calls-dropin.jsonl.gz --root / "$@"
done
vmstat 1 5
