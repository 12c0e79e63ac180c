#!/usr/bin/env bash
# Set-up for the tests (tools/test.sh) on top of the main job's (tools/setup.sh), idempotently:
#   rustfmt and clippy                 tools/lint-rust.sh
#   nightly + Miri + rust-src          spindle-alloc's single-thread tests under Miri
#   the Vite example's npm packages    the browser tests build it
#   the browsers and their drivers     tools/browsers/setup.sh (Chromium, Firefox ESR, WebKitGTK)
#   the other Node lines               tools/node-lines.sh --test-lines (26; 22, 24 and 26 with
#                                      SPINDLE_ALL_NODE_LINES=1)
#   wasm-bindgen-cli (pinned)          tests/alloc/setup-web.sh: examples/alloc-rayon-web's build
# The napi tests' packages need the runtime built first: tools/test.sh runs tests/napi/setup.sh
# after the build.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
say() { printf '\033[1m[setup-tests]\033[0m %s\n' "$*" >&2; }

"$repo/tools/setup.sh"

rust_has() { rustup component list --installed 2>/dev/null | grep -q "^$1"; }
if ! rust_has rustfmt || ! rust_has clippy; then
  say "rustup component add rustfmt clippy"
  rustup component add rustfmt clippy >/dev/null
fi

# The allocator's tests under Miri, on i686: nightly + miri + rust-src.
nightly_has() { rustup +nightly component list --installed 2>/dev/null | grep -q "^$1"; }
if ! nightly_has miri || ! nightly_has rust-src; then
  say "rustup toolchain install nightly --component miri,rust-src"
  rustup toolchain install nightly --profile minimal --component miri,rust-src >/dev/null
fi

pkg=runtime/examples/vite
if [ ! -d "$repo/$pkg/node_modules" ] || [ "$repo/$pkg/package-lock.json" -nt "$repo/$pkg/node_modules/.package-lock.json" ]; then
  say "npm ci ($pkg)"
  (cd "$repo/$pkg" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

bash "$repo/tools/browsers/setup.sh"

bash "$repo/tools/node-lines.sh" $(bash "$repo/tools/node-lines.sh" --test-lines) >/dev/null
bash "$repo/tests/alloc/setup-web.sh" >/dev/null
say "ready"
