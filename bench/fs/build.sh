#!/usr/bin/env bash
# Builds the filesystem benchmark's programs into build/bench/fs/ (gitignored):
#   fs-inprogram.wasm   workload.c linked with libspindle.a (in-program FS + spindle-alloc)
#   fs-plain.wasm       workload.c as it is (files through the host's WASI fs); exports malloc/free,
#                       which @emnapi/wasi-threads needs to spawn a thread (as bench/runtime's programs)
#   fs-native           gcc -O2 -pthread (native syscalls; run on tmpfs)
# Usage: bash bench/fs/build.sh   (prints the output directory)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/build/bench/fs"
mkdir -p "$out"
prefix=$("$repo/tools/build-c-libs.sh" | tail -n 1)
"$repo/tools/wasi-cc" -O2 -Wall -Werror "$here/workload.c" "$prefix/lib/libspindle.a" -o "$out/fs-inprogram.wasm"
"$repo/tools/wasi-cc" -O2 -Wall -Werror "$here/workload.c" -Wl,--export=malloc,--export=free -o "$out/fs-plain.wasm"
gcc -O2 -Wall -Werror -pthread "$here/workload.c" -o "$out/fs-native"
echo "$out"
