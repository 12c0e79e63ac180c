#!/usr/bin/env bash
# One-time (idempotent) set-up of everything spindle's build, tests and benchmarks need on Debian 12:
# apt packages (clang-19, lld-19, compiler-rt for wasm32), rustup targets, npm packages, the
# wasm32-wasip1-threads C sysroot (tools/wasi-sysroot.sh). Safe to run again: it skips what is there.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

# The browsers (Chromium, Firefox ESR, WebKitGTK) are installed by tools/browsers/setup.sh, which
# only the tests (tools/test.sh) run: the main job does not need them.
apt_pkgs=(clang-19 lld-19 libclang-rt-19-dev-wasm32 llvm-19)
missing=()
for p in "${apt_pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

command -v rustup >/dev/null || { say "rustup is required (https://rustup.rs)"; exit 1; }
installed=$(rustup target list --installed)
for t in wasm32-wasip1-threads wasm32-wasip1; do
  grep -qx "$t" <<<"$installed" || { say "rustup target add $t"; rustup target add "$t" >/dev/null; }
done

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

command -v node >/dev/null || { say "Node.js >= 20 is required"; exit 1; }
if [ ! -d "$repo/runtime/node_modules" ] || [ "$repo/runtime/package-lock.json" -nt "$repo/runtime/node_modules/.package-lock.json" ]; then
  say "npm ci (runtime)"
  (cd "$repo/runtime" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

# The benchmarks' baselines (@emnapi/wasi-threads, @tybys/wasm-util) and the Vite example (the
# browser tests build it): their own package.json each, dev-only.
for pkg in bench/runtime runtime/examples/vite; do
  if [ -f "$repo/$pkg/package-lock.json" ] && { [ ! -d "$repo/$pkg/node_modules" ] || [ "$repo/$pkg/package-lock.json" -nt "$repo/$pkg/node_modules/.package-lock.json" ]; }; then
    say "npm ci ($pkg)"
    (cd "$repo/$pkg" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
done

"$repo/tools/wasi-sysroot.sh" >/dev/null
say "ready"
