#!/usr/bin/env bash
# snap.sh WORKTREE OUT: a frozen copy of WORKTREE's built runtime/dist as an A/B tree in OUT, for
# both routes: tests/napi/work.mjs (direct) and the drop-in install of runtime/examples/napi (its
# spindle/dist replaced by this dist). Build WORKTREE's runtime first (and `bash tests/napi/setup.sh`
# once, for the stock loader, the project and the drop-in's install). Packages are linked, not copied.
set -euo pipefail
wt=$(cd "$1" && pwd); d=$2
rm -rf "$d"; mkdir -p "$d/runtime/examples" "$d/tests/napi"
cp -a "$wt/runtime/dist" "$d/runtime/dist"
cp "$wt/runtime/package.json" "$d/runtime/"
ln -s "$wt/runtime/node_modules" "$d/runtime/node_modules"
cp "$wt/tests/napi/work.mjs" "$wt/tests/napi/corpus.mjs" "$wt/tests/napi/rolldown-direct.cjs" "$d/tests/napi/"
ln -s "$wt/tests/napi/stock" "$d/tests/napi/stock"
ln -s "$wt/tests/napi/project" "$d/tests/napi/project"
# oxc's corpus is read from the repository's own sources.
ln -s "$wt/runtime/src" "$d/runtime/src"; ln -s "$wt/runtime/test" "$d/runtime/test"; ln -s "$wt/bench" "$d/bench"
cp -al "$wt/runtime/examples/napi" "$d/runtime/examples/napi"
rm -rf "$d/runtime/examples/napi/node_modules/spindle/dist"
cp -a "$wt/runtime/dist" "$d/runtime/examples/napi/node_modules/spindle/dist"
echo "$d"
