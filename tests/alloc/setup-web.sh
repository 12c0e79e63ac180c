#!/usr/bin/env bash
# Test-only set-up for spindle-alloc on wasm32-unknown-unknown (examples/alloc-rayon-web), run by
# tools/setup-tests.sh; idempotent (skips what is there):
#   - rustup's nightly with rust-src (the example rebuilds std with atomics: -Z build-std);
#   - wasm-bindgen-cli of exactly the version the example's Cargo.toml pins, from crates.io, into
#     the user's cache, ${XDG_CACHE_HOME:-~/.cache}/spindle/tools/wasm-bindgen-VERSION/ (shared by
#     every clone on the machine: a fresh clone does not compile it again). Without its default
#     feature (rustls for the test runner's downloads, unused here): about 185 s of CPU instead of
#     228 s, once per machine. Prints the path of the wasm-bindgen binary.
# Not part of tools/setup.sh: tools/main.sh does not need any of it. Browsers: tools/browsers/setup.sh.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { printf '\033[1m[setup-web]\033[0m %s\n' "$*" >&2; }

if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^rust-src'; then
  say "rustup toolchain install nightly --component rust-src"
  rustup toolchain install nightly --profile minimal --component rust-src >/dev/null
fi

version=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' "$repo/examples/alloc-rayon-web/Cargo.toml")
[ -n "$version" ] || { say "examples/alloc-rayon-web/Cargo.toml pins no wasm-bindgen version (wasm-bindgen = \"=X.Y.Z\")"; exit 1; }
root="${XDG_CACHE_HOME:-$HOME/.cache}/spindle/tools/wasm-bindgen-$version"
if ! "$root/bin/wasm-bindgen" --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
  say "cargo install wasm-bindgen-cli $version (a few minutes, once per machine)"
  # Not --locked: its lock file names crate versions this registry may not serve yet.
  cargo install -q wasm-bindgen-cli --version "=$version" --no-default-features --root "$root"
fi
echo "$root/bin/wasm-bindgen"
