#!/usr/bin/env bash
# replay.sh NODE26 DIST...: replay-big.mjs on both recordings, Node 20 (node) and Node 26, with vmstat before and after.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); n26=$1; shift
vmstat 1 5
for node in node "$n26"; do
  echo "== $($node --version) direct (root /tmp/h52/big)"; $node "$here/replay-big.mjs" --rounds 8 --passes 3 --calls calls-direct.jsonl.gz --root /tmp/h52/big "$@"
  echo "== $($node --version) drop-in (root /)"; $node "$here/replay-big.mjs" --rounds 8 --passes 3 --calls calls-dropin.jsonl.gz --root / "$@"
done
vmstat 1 5
