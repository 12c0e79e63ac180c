#!/usr/bin/env bash
# Builds the runtime of another commit (the baseline of the hostdir experiment, --param hostdir.baseline=DIR) in a scratch git worktree:
#   bash bench/hostdir/build-base.sh COMMIT DIR     -> prints DIR/runtime/dist/cli.js
# DIR must not exist yet (or be such a worktree already); the worktree borrows this checkout's
# runtime/node_modules (TypeScript, esbuild). Remove it with: git worktree remove --force DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
commit=$1 dir=$2
[ -d "$dir" ] || git -C "$repo" worktree add --detach "$dir" "$commit" >&2
[ -e "$dir/runtime/node_modules" ] || ln -s "$repo/runtime/node_modules" "$dir/runtime/node_modules"
(cd "$dir/runtime" && npx tsc -p . >&2 && node scripts/bundle.mjs >&2)
echo "$dir/runtime/dist/cli.js"
