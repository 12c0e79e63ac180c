#!/usr/bin/env bash
# One-time (idempotent) set-up of what the main job (tools/main.sh) needs on Debian 12: apt packages
# (clang-19, lld-19, compiler-rt for wasm32), rustup targets, the runtime's and the benchmarks' npm
# packages, the wasm32-wasip1-threads C sysroot (tools/wasi-sysroot.sh). What only the tests need
# (nightly + Miri, rustfmt + clippy, the Vite example, more Node lines) is installed by
# tools/setup-tests.sh. Safe to run again: it skips what is there.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

# The browsers (Chromium, Firefox ESR, WebKitGTK) are installed by tools/browsers/setup.sh, which
# only the tests (tools/setup-tests.sh) run: the main job does not need them.
bash "$repo/tools/apt-install.sh" clang-19 lld-19 libclang-rt-19-dev-wasm32 llvm-19

command -v rustup >/dev/null || { say "rustup is required (https://rustup.rs)"; exit 1; }
installed=$(rustup target list --installed)
for t in wasm32-wasip1-threads wasm32-wasip1; do
  grep -qx "$t" <<<"$installed" || { say "rustup target add $t"; rustup target add "$t" >/dev/null; }
done

command -v node >/dev/null || { say "Node.js >= 20 is required"; exit 1; }
if [ ! -d "$repo/runtime/node_modules" ] || [ "$repo/runtime/package-lock.json" -nt "$repo/runtime/node_modules/.package-lock.json" ]; then
  say "npm ci (runtime)"
  (cd "$repo/runtime" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

# The benchmarks' baselines (@emnapi/wasi-threads, @tybys/wasm-util): their own package.json, dev-only.
for pkg in bench/runtime; do
  if [ -f "$repo/$pkg/package-lock.json" ] && { [ ! -d "$repo/$pkg/node_modules" ] || [ "$repo/$pkg/package-lock.json" -nt "$repo/$pkg/node_modules/.package-lock.json" ]; }; then
    say "npm ci ($pkg)"
    (cd "$repo/$pkg" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
done

"$repo/tools/wasi-sysroot.sh" >/dev/null
say "ready"
