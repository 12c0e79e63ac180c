#!/usr/bin/env bash
# Builds the runtime's shared filesystem module (crates/spindle-fs-module: spindle-fs as its own
# Wasm module on its own shared memory, see docs/in-program-fs.md) and puts it where the runtime
# package finds it:
#
#   build/fs-module/spindle-fs.wasm      the build output
#   runtime/dist/spindle-fs.wasm         copied there if runtime/dist exists (npm run build also
#                                        copies it, runtime/scripts/bundle.mjs)
#
# Needs what tools/setup.sh installs (rustup target wasm32-wasip1-threads). Idempotent: cargo
# rebuilds only what changed. Nightly features (#[thread_local], memory.atomic.wait32) are
# enabled with RUSTC_BOOTSTRAP=1; its own target dir keeps the `--cfg spindle_fs_module` build
# apart from the in-program archives. Built with the `opfs` feature (OPFS mounts in browsers:
# the module then imports `spindle_opfs.*`, which the runtime gives on every thread).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
target=wasm32-wasip1-threads
RUSTC_BOOTSTRAP=1 RUSTFLAGS="--cfg spindle_fs_module" \
  cargo build -q --release --target $target -p spindle-fs-module --features wasm-wait,opfs \
  --target-dir target/fs-module
mkdir -p build/fs-module
cp target/fs-module/$target/release/spindle_fs_module.wasm build/fs-module/spindle-fs.wasm
if [ -d runtime/dist ]; then
  cp build/fs-module/spindle-fs.wasm runtime/dist/spindle-fs.wasm
fi
echo "$repo/build/fs-module/spindle-fs.wasm"
