#!/usr/bin/env bash
# Builds the programs of the browser demo and benchmarks into build/bench/browser/ (gitignored),
# all C, all wasm32-wasip1-threads (tools/wasi-cc, -O2):
#   math.wasm            bench/programs/math.c                       (a) pure math
#   spawn_latency.wasm   bench/programs/spawn_latency.c              thread spawn latency
#   c_dlmalloc.wasm      bench/alloc/c/malloc_bench.c, wasi-libc's dlmalloc     (b) malloc
#   c_spindle.wasm       the same, linked with libspindle-alloc.a               (b) malloc
#   fs-inprogram.wasm    bench/fs/workload.c linked with libspindle.a (in-program FS)   (c)
#   fs-plain.wasm        the same workload, files through the host's WASI calls         (c)
# A target is rebuilt only when one of its inputs is newer. Prints the output directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/build/bench/browser"
mkdir -p "$out"
prefix=$("$repo/tools/build-c-libs.sh" | tail -n 1)
cc="$repo/tools/wasi-cc"

# build TARGET SOURCE [LIB]: rebuilds TARGET when it is missing or older than SOURCE or LIB.
build() {
  local target="$out/$1" src="$2" lib="${3:-}"
  if [ -f "$target" ] && [ "$target" -nt "$src" ] && { [ -z "$lib" ] || [ "$target" -nt "$lib" ]; }; then return; fi
  echo "bench/browser/build.sh: $1" >&2
  "$cc" -O2 "$src" ${lib:+"$lib"} -o "$target"
}
build math.wasm "$repo/bench/programs/math.c"
build spawn_latency.wasm "$repo/bench/programs/spawn_latency.c"
build c_dlmalloc.wasm "$repo/bench/alloc/c/malloc_bench.c"
build c_spindle.wasm "$repo/bench/alloc/c/malloc_bench.c" "$prefix/lib/libspindle-alloc.a"
build fs-inprogram.wasm "$repo/bench/fs/workload.c" "$prefix/lib/libspindle.a"
build fs-plain.wasm "$repo/bench/fs/workload.c"
echo "$out"
