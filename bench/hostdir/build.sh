#!/usr/bin/env bash
# Builds the host-directory bench: build/bench/hostdir/ops.wasm (ops.c as an unmodified WASI
# program) and the reference fs workload's plain module (bench/fs/build.sh). Prints the output dir.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/build/bench/hostdir"
mkdir -p "$out"
"$repo/tools/wasi-cc" -Wall -Werror "$here/ops.c" -o "$out/ops.wasm"
bash "$repo/bench/fs/build.sh" >/dev/null
echo "$out"
