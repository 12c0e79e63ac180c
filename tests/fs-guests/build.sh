#!/usr/bin/env bash
# Builds the in-program filesystem's guest tests into build/tests/fs/ (gitignored):
#   <name>.wasm          C programs (c/<name>.c) linked with libspindle-fs.a
#   <name>_alloc.wasm    the same linked with libspindle.a (fs + spindle-alloc), for the
#                        threaded ones (append_threads, threads_share, dir_threads)
#   stdio_plain.wasm     stdio.c WITHOUT the library (the checker must flag it)
#   enospc.wasm, enospc_alloc.wasm   oom/enospc.c with libspindle-fs.a / libspindle.a and a 32 MiB
#                        maximum memory (writing until memory runs out gives ENOSPC, not a trap)
#   <name>_rt.wasm       c/<name>.c WITHOUT the library, built with -DFS_GUEST_PLAIN (unmodified
#                        programs on the runtime's filesystem: memory mounts, host directories;
#                        all but mounts.c, which uses the library's API), and runtime/<name>.c
#   fs_rust_rt.wasm      the Rust program without the crate or the archive (FS_GUEST_PLAIN=1)
#   conformance_ifs.wasm runtime/conformance.c linked with libspindle-fs.a (the in-program FS)
#   conformance_rust.wasm, conformance_rust_rt.wasm  rust/src/bin/conformance.rs with the crate
#                        (in-program FS) and without it (the runtime's FS, wasmtime)
#   fs_rust_wasip1_rt.wasm  the same for plain wasm32-wasip1 (no threads; its own memory)
#   fs_rust.wasm         Rust std::fs program using the spindle-wasi-fs crate (rust/)
#   fs_rust_libflag.wasm the same program without the crate, linked with libspindle-fs.a through
#                        RUSTFLAGS="-L native=... -l static=spindle-fs" (the no-source-change route
#                        for Rust: the archive comes before libc, so its preopen table is used)
#   fs_rust_linkarg.wasm the same through RUSTFLAGS="-C link-arg=.../libspindle-fs.a" (after libc:
#                        wasi-libc's preopen table stays, the archive's weak one is unused)
# First builds and installs the C archives (tools/build-c-libs.sh).
# Usage: bash tests/fs-guests/build.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/build/tests/fs"
mkdir -p "$out"
prefix=$("$repo/tools/build-c-libs.sh" | tail -n 1)
cc="$repo/tools/wasi-cc"
"$repo/tools/wasi-sysroot.sh" >/dev/null
flags=(-Wall -Werror -I"$prefix/include" -I"$here/c")
pids=()
for src in "$here"/c/*.c; do
  name=$(basename "$src" .c)
  "$cc" "${flags[@]}" "$src" "$prefix/lib/libspindle-fs.a" -o "$out/$name.wasm" & pids+=($!)
done
for name in append_threads threads_share dir_threads; do
  "$cc" "${flags[@]}" "$here/c/$name.c" "$prefix/lib/libspindle.a" -o "$out/${name}_alloc.wasm" & pids+=($!)
done
"$cc" "${flags[@]}" "$here/c/stdio.c" -o "$out/stdio_plain.wasm" & pids+=($!)
# oom/: in-program only, with a 32 MiB maximum memory so that memory runs out quickly.
"$cc" "${flags[@]}" "$here/oom/enospc.c" "$prefix/lib/libspindle-fs.a" -Wl,--max-memory=33554432 -o "$out/enospc.wasm" & pids+=($!)
"$cc" "${flags[@]}" "$here/oom/enospc.c" "$prefix/lib/libspindle.a" -Wl,--max-memory=33554432 -o "$out/enospc_alloc.wasm" & pids+=($!)
for src in "$here"/c/*.c "$here"/runtime/*.c; do
  name=$(basename "$src" .c)
  [ "$name" = mounts ] && continue
  "$cc" "${flags[@]}" -DFS_GUEST_PLAIN "$src" -o "$out/${name}_rt.wasm" & pids+=($!)
done
# runtime/conformance.c on the in-program FS too (conformance_ifs.wasm): the same corners.
"$cc" "${flags[@]}" "$here/runtime/conformance.c" "$prefix/lib/libspindle-fs.a" -o "$out/conformance_ifs.wasm" & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
if [ -d "$here/rust" ] && [ -f "$here/rust/Cargo.toml" ]; then
  (cd "$here/rust" && cargo build -q --release --target wasm32-wasip1-threads)
  cp "$here/rust/target/wasm32-wasip1-threads/release/fs_rust.wasm" "$out/fs_rust.wasm"
  cp "$here/rust/target/wasm32-wasip1-threads/release/conformance.wasm" "$out/conformance_rust.wasm"
  (cd "$here/rust" && RUSTFLAGS="-C link-arg=$prefix/lib/libspindle-fs.a" \
    cargo build -q --release --target wasm32-wasip1-threads --no-default-features --target-dir target/linkarg)
  cp "$here/rust/target/linkarg/wasm32-wasip1-threads/release/fs_rust.wasm" "$out/fs_rust_linkarg.wasm"
  (cd "$here/rust" && RUSTFLAGS="-L native=$prefix/lib -l static=spindle-fs" \
    cargo build -q --release --target wasm32-wasip1-threads --no-default-features --target-dir target/libflag)
  cp "$here/rust/target/libflag/wasm32-wasip1-threads/release/fs_rust.wasm" "$out/fs_rust_libflag.wasm"
  (cd "$here/rust" && FS_GUEST_PLAIN=1 cargo build -q --release --target wasm32-wasip1-threads --no-default-features --target-dir target/plain)
  cp "$here/rust/target/plain/wasm32-wasip1-threads/release/fs_rust.wasm" "$out/fs_rust_rt.wasm"
  cp "$here/rust/target/plain/wasm32-wasip1-threads/release/conformance.wasm" "$out/conformance_rust_rt.wasm"
  (cd "$here/rust" && FS_GUEST_PLAIN=1 cargo build -q --release --target wasm32-wasip1 --no-default-features --target-dir target/plain)
  cp "$here/rust/target/plain/wasm32-wasip1/release/fs_rust.wasm" "$out/fs_rust_wasip1_rt.wasm"
fi
