#!/usr/bin/env bash
# Set-up for the tests (tools/test.sh) on top of the main job's (tools/setup.sh): rustfmt and
# clippy, nightly + Miri, the Vite example's npm packages (the browser tests build it), and the
# Node lines the runtime's tests run on besides the Node on the PATH (tools/node-lines.sh: 26; also
# 22 and 24 with SPINDLE_ALL_NODE_LINES=1). Idempotent: it skips what is there.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
say() { printf '\033[1m[setup-tests]\033[0m %s\n' "$*" >&2; }

"$repo/tools/setup.sh"

# rustfmt and clippy (tools/lint-rust.sh, the first step of tools/test.sh).
rust_has() { rustup component list --installed 2>/dev/null | grep -q "^$1"; }
if ! rust_has rustfmt || ! rust_has clippy; then
  say "rustup component add rustfmt clippy"
  rustup component add rustfmt clippy >/dev/null
fi

# Miri (tools/test.sh runs spindle-alloc's single-thread tests under it, on i686): nightly + miri + rust-src.
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

bash "$repo/tools/node-lines.sh" $(bash "$repo/tools/node-lines.sh" --test-lines) >/dev/null
say "ready"
