#!/usr/bin/env bash
# Builds the escape suite (tests/escape/*.c) into build/tests/escape/ (gitignored):
#   <name>.wasm       the program as an unmodified WASI program (the runtime's host directories)
#   <name>_ifs.wasm   the same linked with libspindle-fs.a (the in-program FS, whose host preopens
#                     are forwarded to the host's WASI imports)
# Usage: bash tests/escape/build.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/build/tests/escape"
mkdir -p "$out"
prefix=$("$repo/tools/build-c-libs.sh" | tail -n 1)
cc="$repo/tools/wasi-cc"
"$repo/tools/wasi-sysroot.sh" >/dev/null
flags=(-Wall -Werror -I"$here")
pids=()
for src in "$here"/*.c; do
  name=$(basename "$src" .c)
  "$cc" "${flags[@]}" "$src" -o "$out/$name.wasm" & pids+=($!)
  "$cc" "${flags[@]}" "$src" "$prefix/lib/libspindle-fs.a" -o "$out/${name}_ifs.wasm" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
