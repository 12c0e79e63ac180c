#!/usr/bin/env bash
# Builds spindle-alloc's wasm guest tests into build/tests/alloc/ (gitignored):
#   api.wasm threads.wasm oom.wasm   C programs (tests/alloc/c) linked with libspindle-alloc-validate.a
#                                    (oom.wasm with a 32 MiB maximum memory)
#   own_memalign.wasm own_usable_size.wasm   programs that define memalign / malloc_usable_size
#   grow_handoff.wasm                memory one thread grew, handed to another through the allocator
#   initial_memory.wasm              the free end of the initial memory is used before the memory grows
#   alloc_rust.wasm                  Rust program with spindle-alloc as #[global_allocator]
#   hello_c_{dlmalloc,spindle}.wasm, hello_rust{,_default}.wasm   size comparison (stripped)
# First builds and installs the C archive (tools/build-c-libs.sh). Usage: bash tests/alloc/build.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/build/tests/alloc"
mkdir -p "$out"
prefix=$("$repo/tools/build-c-libs.sh")
cc="$repo/tools/wasi-cc"
lib="$prefix/lib/libspindle-alloc-validate.a"
for t in api threads grow_handoff; do
  "$cc" -Wall -Werror -I"$prefix/include" "$here/c/$t.c" "$lib" -o "$out/$t.wasm"
done
# 256 KiB of initial memory: a free end of about 150 KiB above the data and the 64 KiB stack.
"$cc" -Wall -Werror -I"$prefix/include" "$here/c/initial_memory.c" "$lib" -Wl,--initial-memory=262144 -o "$out/initial_memory.wasm"
"$cc" -Wall -Werror -I"$prefix/include" "$here/c/oom.c" "$lib" -Wl,--max-memory=33554432 -o "$out/oom.wasm"
# Programs that define one allocation function themselves: their definition must win (weak
# exports), as with libc.
for t in own_memalign own_usable_size; do
  "$cc" -Wall -Werror -I"$prefix/include" "$here/c/$t.c" "$lib" -o "$out/$t.wasm"
done
"$cc" -Wall -Werror -Wl,--strip-all "$here/c/hello.c" -o "$out/hello_c_dlmalloc.wasm"
"$cc" -Wall -Werror -Wl,--strip-all "$here/c/hello.c" "$prefix/lib/libspindle-alloc.a" -o "$out/hello_c_spindle.wasm"
# The archive must have replaced dlmalloc entirely: no dlmalloc function may be left in a module
# (checked on the unstripped test programs, whose name sections list every function).
for t in api own_memalign own_usable_size; do
  if llvm-nm-19 "$out/$t.wasm" 2>/dev/null | grep -E ' (dlmalloc|dlfree|dlrealloc|internal_memalign|sbrk)$'; then
    echo "tests/alloc/build.sh: dlmalloc is still linked into $t.wasm" >&2
    exit 1
  fi
done
(cd "$here/rust" && cargo build -q --release --target wasm32-wasip1-threads)
for b in alloc_rust hello_rust hello_rust_default; do
  cp "$here/rust/target/wasm32-wasip1-threads/release/$b.wasm" "$out/$b.wasm"
done
