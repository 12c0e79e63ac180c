#!/usr/bin/env bash
# Builds the example twice into examples/alloc-rayon-web/pkg-{default,spindle}/ (gitignored):
# wasm32-unknown-unknown with atomics (nightly -Z build-std: the shipped std is built without
# them), then wasm-bindgen --target web (loads in a browser without a bundler).
#
# Needs: rustup's nightly with rust-src, and wasm-bindgen-cli of the version Cargo.toml pins
# (tests/alloc/setup-web.sh installs both, idempotently; wasm-bindgen into the user's cache). Usage:
#   bash examples/alloc-rayon-web/build.sh [WASM_BINDGEN]   (default: the one setup-web.sh installed)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
version=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' "$here/Cargo.toml")
bindgen=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/spindle/tools/wasm-bindgen-$version/bin/wasm-bindgen}
if [ ! -x "$bindgen" ]; then
  echo "examples/alloc-rayon-web/build.sh: $bindgen is missing: run 'bash tests/alloc/setup-web.sh' (installs wasm-bindgen-cli $version)" >&2
  exit 1
fi
cd "$here"
# +atomics,+bulk-memory and a shared, imported memory with the TLS symbols exported: what
# wasm-bindgen's thread transform needs (wasm-bindgen-rayon's documented flags); 1 GiB maximum.
link_args=(--shared-memory --import-memory --max-memory=1073741824
  --export=__wasm_init_tls --export=__tls_size --export=__tls_align --export=__tls_base)
RUSTFLAGS="-C target-feature=+atomics,+bulk-memory,+mutable-globals"
for a in "${link_args[@]}"; do RUSTFLAGS+=" -C link-arg=$a"; done
export RUSTFLAGS
for alloc in default spindle; do
  features=(); [ "$alloc" = spindle ] && features=(--features spindle)
  # One target dir: std is built once; each build's module is turned into pkg-$alloc at once.
  cargo +nightly build -q --release --target wasm32-unknown-unknown -Z build-std=panic_abort,std "${features[@]}"
  "$bindgen" --target web --out-dir "pkg-$alloc" target/wasm32-unknown-unknown/release/alloc_rayon_web.wasm
  # wasm-bindgen-rayon's worker imports its main module as '../../..' (the package directory, which
  # a bundler resolves through package.json); without a bundler, name the file.
  sed -i "s|import('../../..')|import('../../../alloc_rayon_web.js')|" pkg-$alloc/snippets/wasm-bindgen-rayon-*/src/workerHelpers.js
  grep -q "import('../../../alloc_rayon_web.js')" pkg-$alloc/snippets/wasm-bindgen-rayon-*/src/workerHelpers.js \
    || { echo "build.sh: wasm-bindgen-rayon's workerHelpers.js changed: its main-module import was not found" >&2; exit 1; }
done
echo "$here/pkg-default $here/pkg-spindle"
