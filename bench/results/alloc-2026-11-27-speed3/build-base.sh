#!/usr/bin/env bash
# Builds c_spindle.wasm and rust_spindle.wasm of the CURRENT bench programs (bench/alloc/c, bench/alloc/rust
# of the worktree) against spindle-alloc at commit $1, into /work/scratch/alloc-speed/base-$1/.
set -euo pipefail
c=$1
repo=/work/wt/alloc-mem
s=/work/scratch/alloc-speed
src=$s/src-$c out=$s/base-$c
mkdir -p "$src" "$out"
if [ "${c%%-*}" = wt ]; then  # wt-NAME: the worktree's current files
  rm -rf "$src/crates"; (cd $repo && tar -c --exclude=target Cargo.toml Cargo.lock rustfmt.toml crates) | tar -x -C "$src"
else
  git -C $repo archive "$c" Cargo.toml Cargo.lock rustfmt.toml crates | tar -x -C "$src"
fi
mkdir -p "$src/bench/alloc"; rm -rf "$src/bench/alloc/rust/src"; mkdir -p "$src/bench/alloc/rust"
cp -r $repo/bench/alloc/rust/src $repo/bench/alloc/rust/Cargo.toml $repo/bench/alloc/rust/Cargo.lock "$src/bench/alloc/rust/"
t=wasm32-wasip1-threads
(cd "$src" && RUSTC_BOOTSTRAP=1 cargo build -q --release --target $t -p spindle-alloc-c --features weak)
$repo/tools/wasi-cc -O2 $repo/bench/alloc/c/malloc_bench.c "$src/target/$t/release/libspindle_alloc_c.a" -o "$out/c_spindle.wasm"
(cd "$src/bench/alloc/rust" && cargo build -q --release --target $t --features spindle --target-dir target/spindle)
cp "$src/bench/alloc/rust/target/spindle/$t/release/alloc-bench.wasm" "$out/rust_spindle.wasm"
ls -la "$out"
