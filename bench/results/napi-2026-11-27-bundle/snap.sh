#!/usr/bin/env bash
# snap.sh NAME: a copy of the worktree's current runtime/dist as an A/B tree (direct + dropin routes)
set -euo pipefail
wt=${WT:-/work/wt/napi-node}
d=/work/scratch/napi-node/$1
rm -rf "$d"; mkdir -p "$d/runtime" "$d/tests/napi" "$d/runtime/examples"
cp -a "$wt/runtime/dist" "$d/runtime/dist"
cp "$wt/runtime/package.json" "$d/runtime/"
ln -s "$wt/runtime/node_modules" "$d/runtime/node_modules"
cp "$wt/tests/napi/work.mjs" "$wt/tests/napi/corpus.mjs" "$wt/tests/napi/rolldown-direct.cjs" "$d/tests/napi/"
ln -s "$wt/tests/napi/stock" "$d/tests/napi/stock"
ln -s "$wt/tests/napi/project" "$d/tests/napi/project"
cp -al "$wt/runtime/examples/napi" "$d/runtime/examples/napi"
rm -rf "$d/runtime/examples/napi/node_modules/spindle/dist"
cp -a "$wt/runtime/dist" "$d/runtime/examples/napi/node_modules/spindle/dist"
echo "$d"
