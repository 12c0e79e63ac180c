#!/usr/bin/env bash
# Builds every guest test program for wasm32-wasip1-threads into build/guests/ (gitignored):
#   build/guests/c/<name>.wasm            from tests/guests/c/<name>.c         (tools/wasi-cc; plus the
#                                         flags of a `// wasi-cc flags: ...` line in the source)
#   build/guests/c/<name>_spindle_alloc.wasm  the same linked with spindle-alloc (a few: alloc_variants)
#   build/guests/rust/<name>.wasm         from tests/guests/rust/src/bin/<name>.rs
#   build/guests/rust-wasip1/<name>.wasm  a few of them for plain wasm32-wasip1 (no threads)
# Make-like: a C program is rebuilt only when its source (or tools/wasi-cc) is newer than the
# .wasm; cargo runs only when a Rust source is newer than the last build. Prints nothing on
# success. Usage: bash tests/guests/build.sh [--force]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/build/guests"
force=0
[ "${1:-}" = "--force" ] && force=1
mkdir -p "$out/c/.tmp" "$out/rust" "$out/rust-wasip1"

# --- C: one job per stale program, at most $jobs at a time.
jobs=$(nproc 2>/dev/null || echo 2)
cc="$repo/tools/wasi-cc"
# Make sure the sysroot exists before the parallel compiles (each would otherwise try to build it).
[ -n "${WASI_SDK_PATH:-}" ] || "$repo/tools/wasi-sysroot.sh" >/dev/null
pids=() fails=0
for src in "$here"/c/*.c; do
  name=$(basename "$src" .c)
  wasm="$out/c/$name.wasm"
  if [ $force = 0 ] && [ "$wasm" -nt "$src" ] && [ "$wasm" -nt "$cc" ]; then continue; fi
  # Build in .tmp/ then move, so an interrupted build never leaves a fresh-looking bad .wasm
  # (same file name: wasm-ld records it as the module name that stack traces show).
  # A program's own flags: a line `// wasi-cc flags: ...` in its source (e.g. -mtail-call).
  flags=$(sed -n 's|^// wasi-cc flags: ||p' "$src")
  ( "$cc" -Wall -Werror $flags "$src" -o "$out/c/.tmp/$name.wasm" && mv "$out/c/.tmp/$name.wasm" "$wasm" ) &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || fails=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || fails=1; done
[ $fails = 0 ] || { echo "tests/guests/build.sh: a C guest failed to build (see above)" >&2; exit 1; }

# --- C guests that also run with spindle-alloc instead of wasi-libc's dlmalloc: <name>_spindle_alloc.wasm.
alloc_variants=(grow_consumer)
alloc_lib="$repo/build/wasm32-wasip1-threads/lib/libspindle-alloc.a"
"$repo/tools/build-c-libs.sh" >/dev/null # make-like: cargo rebuilds only what changed
for name in "${alloc_variants[@]}"; do
  src="$here/c/$name.c" wasm="$out/c/${name}_spindle_alloc.wasm"
  if [ $force = 0 ] && [ "$wasm" -nt "$src" ] && [ "$wasm" -nt "$cc" ] && [ "$wasm" -nt "$alloc_lib" ]; then continue; fi
  "$cc" -Wall -Werror "$src" "$alloc_lib" -o "$out/c/.tmp/${name}_spindle_alloc.wasm"
  mv "$out/c/.tmp/${name}_spindle_alloc.wasm" "$wasm"
done

# --- Rust: skip cargo entirely when nothing changed since the last successful build.
rust="$here/rust"
stamp="$out/rust/.stamp"
if [ $force = 1 ] || [ ! -e "$stamp" ] || [ -n "$(find "$rust/Cargo.toml" "$rust/src" -newer "$stamp" -print -quit)" ]; then
  target="$out/cargo-target"
  (cd "$rust" && CARGO_TARGET_DIR="$target" cargo build --release -q --target wasm32-wasip1-threads)
  for src in "$rust"/src/bin/*.rs; do
    name=$(basename "$src" .rs)
    cp "$target/wasm32-wasip1-threads/release/$name.wasm" "$out/rust/$name.wasm"
  done
  # Plain wasm32-wasip1 (memory defined by the module, no threads): single-threaded programs only.
  single=(hello args_env stdin_echo)
  (cd "$rust" && CARGO_TARGET_DIR="$target" cargo build --release -q --target wasm32-wasip1 "${single[@]/#/--bin=}")
  for name in "${single[@]}"; do
    cp "$target/wasm32-wasip1/release/$name.wasm" "$out/rust-wasip1/$name.wasm"
  done
  touch "$stamp"
fi
