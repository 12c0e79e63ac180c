#!/usr/bin/env bash
# Builds the peer-problem addon (peer.c) into build/napi/peer.wasm with tools/wasi-cc (clang-19 +
# the wasi-libc of Rust's wasm32-wasip1-threads, the same futex ABI as emnapi's
# lib/wasm32-wasip1-threads) and emnapi's C library (tests/napi/setup.sh installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
emnapi="$here/node_modules/emnapi"
[ -d "$emnapi/lib/wasm32-wasip1-threads" ] || { echo "peer build: emnapi is missing: run 'bash tests/napi/setup.sh'" >&2; exit 1; }
out="$repo/build/napi"
mkdir -p "$out"
"$repo/tools/wasi-cc" -O2 -DBUILDING_NODE_EXTENSION -I"$emnapi/include/node" -L"$emnapi/lib/wasm32-wasip1-threads" \
  -mexec-model=reactor -Wl,--export-table,--growable-table,--export=malloc,--export=free \
  -Wl,--export=napi_register_wasm_v1,--export=emnapi_create_env,--export=emnapi_delete_env \
  -Wl,--export-if-defined=node_api_module_get_api_version_v1 -Wl,--import-undefined \
  -Wl,--max-memory=268435456 \
  -o "$out/peer.wasm" "$here/peer.c" -lemnapi-mt
echo "$out/peer.wasm"
