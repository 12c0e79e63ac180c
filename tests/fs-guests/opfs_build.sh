#!/usr/bin/env bash
# Builds the OPFS flavour of the in-program filesystem and its guest:
#   build/wasm32-wasip1-threads/lib/libspindle-fs-opfs.a  libspindle-fs.a + OPFS mounts (imports
#       spindle_opfs.*, so programs linked with it run only on spindle in a browser)
#   build/tests/opfs/opfs_guest.wasm                      tests/fs-guests/opfs_guest.c linked with it
#   build/tests/opfs/opfs_guest_mem.wasm                  the same with libspindle-fs.a (memory
#       mounts only: a program that asks for an opfs mount without the feature)
#   build/tests/opfs/opfs_guest_rt.wasm                   the same WITHOUT the library (an unmodified
#       program: on the runtime's shared FS, with run(wasm, { mounts: ['/data=opfs:DIR'] }))
#   build/tests/opfs/opfs_workload.wasm                   bench/fs/workload.c with libspindle-fs-opfs.a
# Usage: bash tests/fs-guests/opfs_build.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
target=wasm32-wasip1-threads
prefix=$repo/build/$target
out=$repo/build/tests/opfs
mkdir -p "$out" "$prefix/lib" "$prefix/include"
cd "$repo"
RUSTC_BOOTSTRAP=1 cargo build -q --release --target $target -p spindle-wasi-fs-c \
  --features wasm-wait,spindle-wasi-fs/opfs --target-dir target/wasi-fs-opfs
cp target/wasi-fs-opfs/$target/release/libspindle_wasi_fs_c.a "$prefix/lib/libspindle-fs-opfs.a"
[ -f "$prefix/lib/libspindle-fs.a" ] || tools/build-c-libs.sh >/dev/null
"$repo/tools/wasi-sysroot.sh" >/dev/null
flags=(-Wall -Werror -I"$prefix/include")
tools/wasi-cc "${flags[@]}" "$here/opfs_guest.c" "$prefix/lib/libspindle-fs-opfs.a" -o "$out/opfs_guest.wasm"
tools/wasi-cc "${flags[@]}" "$here/opfs_guest.c" "$prefix/lib/libspindle-fs.a" -o "$out/opfs_guest_mem.wasm"
tools/wasi-cc "${flags[@]}" "$here/opfs_guest.c" -o "$out/opfs_guest_rt.wasm"
echo "$out"
# The reference fs workload (bench/fs/workload.c) with OPFS mounts, for the browser-opfs bench experiment (bench/browser/opfs.mjs).
tools/wasi-cc -Wall "$repo/bench/fs/workload.c" "$prefix/lib/libspindle-fs-opfs.a" -o "$out/opfs_workload.wasm"
