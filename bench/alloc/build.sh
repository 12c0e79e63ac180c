#!/usr/bin/env bash
# Builds every configuration of the allocator benchmark into build/bench/alloc/ (gitignored):
#   c_dlmalloc.wasm  c_spindle.wasm          bench/alloc/c/malloc_bench.c, wasi-libc dlmalloc / spindle-alloc
#   rust_default.wasm rust_spindle.wasm      bench/alloc/rust, Rust's default allocator / spindle-alloc
#   rust_mimalloc.wasm                       the mimalloc crate compiled with clang-19 + the wasi sysroot
#                                            (skipped with a note if it does not build)
#   c_native                                 the C workloads natively (glibc malloc; mimalloc via LD_PRELOAD)
#   hello_*.wasm                             stripped hello worlds for the code-size comparison
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/build/bench/alloc"
mkdir -p "$out"
prefix=$("$repo/tools/build-c-libs.sh")
cc="$repo/tools/wasi-cc"
src="$here/c/malloc_bench.c"
"$cc" -O2 "$src" -o "$out/c_dlmalloc.wasm"
"$cc" -O2 "$src" "$prefix/lib/libspindle-alloc.a" -o "$out/c_spindle.wasm"
clang-19 -O2 -pthread "$src" -o "$out/c_native"
"$cc" -O2 -Wl,--strip-all "$repo/tests/alloc/c/hello.c" -o "$out/hello_c_dlmalloc.wasm"
"$cc" -O2 -Wl,--strip-all "$repo/tests/alloc/c/hello.c" "$prefix/lib/libspindle-alloc.a" -o "$out/hello_c_spindle.wasm"

t=wasm32-wasip1-threads
cd "$here/rust"
cargo build -q --release --target $t
cp target/$t/release/alloc-bench.wasm "$out/rust_default.wasm"
cargo build -q --release --target $t --features spindle --target-dir target/spindle
cp target/spindle/$t/release/alloc-bench.wasm "$out/rust_spindle.wasm"
sysroot=$("$repo/tools/wasi-sysroot.sh")
if CC_wasm32_wasip1_threads=clang-19 AR_wasm32_wasip1_threads=llvm-ar-19 \
   CFLAGS_wasm32_wasip1_threads="--target=$t --sysroot=$sysroot -resource-dir $sysroot/resource -pthread -matomics -mbulk-memory" \
   cargo build -q --release --target $t --features mimalloc --target-dir target/mimalloc 2>"$out/mimalloc-build.log"; then
  cp target/mimalloc/$t/release/alloc-bench.wasm "$out/rust_mimalloc.wasm"
else
  echo "bench/alloc/build.sh: mimalloc for wasm did not build (see $out/mimalloc-build.log); skipped" >&2
  rm -f "$out/rust_mimalloc.wasm"
fi
# Hello worlds in Rust (stripped) for the code-size comparison.
cd "$here/hello-rust"
cargo build -q --release --target $t
llvm-strip-19 --strip-all target/$t/release/hello-rust.wasm -o "$out/hello_rust_default.wasm"
cargo build -q --release --target $t --features spindle --target-dir target/spindle
llvm-strip-19 --strip-all target/spindle/$t/release/hello-rust.wasm -o "$out/hello_rust_spindle.wasm"
