#!/usr/bin/env bash
# Builds the C libraries of spindle for wasm32-wasip1-threads and installs them in an
# install-prefix layout that C users point their compiler at:
#
#   build/wasm32-wasip1-threads/lib/libspindle-alloc.a            malloc family (replaces dlmalloc)
#   build/wasm32-wasip1-threads/lib/libspindle-alloc-validate.a   same + spindle_alloc_validate()
#   build/wasm32-wasip1-threads/include/spindle.h                 the extras (stats, flush)
#
# Use:  tools/wasi-cc prog.c build/wasm32-wasip1-threads/lib/libspindle-alloc.a -o prog.wasm
#   or: clang --target=wasm32-wasip1-threads ... -Lbuild/wasm32-wasip1-threads/lib -lspindle-alloc
# Usage: tools/build-c-libs.sh [PREFIX]   (default: build/wasm32-wasip1-threads)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$repo/build/wasm32-wasip1-threads}
target=wasm32-wasip1-threads
mkdir -p "$prefix/lib" "$prefix/include"
cd "$repo"
# Every export is a weak definition (feature `weak`: nightly `linkage`, hence RUSTC_BOOTSTRAP=1), so
# a program's own memalign, malloc_usable_size, ... wins, as with libc.
RUSTC_BOOTSTRAP=1 cargo build -q --release --target $target -p spindle-alloc-c --features weak
cp target/$target/release/libspindle_alloc_c.a "$prefix/lib/libspindle-alloc.a"
# The checker build goes to its own target dir so the two archives do not overwrite each other.
RUSTC_BOOTSTRAP=1 cargo build -q --release --target $target -p spindle-alloc-c --features weak,validate \
  --target-dir target/validate
cp target/validate/$target/release/libspindle_alloc_c.a "$prefix/lib/libspindle-alloc-validate.a"
cp crates/spindle-alloc-c/include/spindle.h "$prefix/include/spindle.h"
echo "$prefix"

# ---- spindle-wasi-fs (in-program filesystem; owner: issue 5 part i) ---------------------------
#   lib/libspindle-fs.a   the in-program filesystem alone (allocates with the program's malloc)
#   lib/libspindle.a      filesystem + spindle-alloc's malloc family in one archive
#   include/spindle-fs.h  spindle_fs_mount(), SPINDLE_FS_FD_BASE
# Built with blocking lock waits (memory.atomic.wait32), which needs RUSTC_BOOTSTRAP=1 on stable.
RUSTC_BOOTSTRAP=1 cargo build -q --release --target $target -p spindle-wasi-fs-c --features wasm-wait \
  --target-dir target/wasi-fs
cp target/wasi-fs/$target/release/libspindle_wasi_fs_c.a "$prefix/lib/libspindle-fs.a"
RUSTC_BOOTSTRAP=1 cargo build -q --release --target $target -p spindle-wasi-fs-c --features wasm-wait,alloc \
  --target-dir target/wasi-fs-alloc
cp target/wasi-fs-alloc/$target/release/libspindle_wasi_fs_c.a "$prefix/lib/libspindle.a"
cp crates/spindle-wasi-fs/include/spindle-fs.h "$prefix/include/spindle-fs.h"
