#!/usr/bin/env bash
# The Rust habits, checked (tools/test.sh runs this first: it fails fast). Any finding fails.
#  1. rustfmt (rustfmt.toml) on every crate of the repository: the workspace and every crate
#     with a workspace of its own (fuzz targets, guest and benchmark programs), found by their
#     `[workspace]` line, so a new crate is checked without being listed here.
#  2. clippy -D warnings (lints: [workspace.lints] in Cargo.toml) natively on the workspace and
#     the fuzz crates, and for wasm32-wasip1-threads in every configuration that is built:
#     the C archives with and without OPFS (spindle-fs, spindle-wasi-fs, spindle-alloc, -c),
#     the memory-FS module (`--cfg spindle_fs_module`), and the guest and benchmark programs
#     (each standalone crate for its own target: a table below, which a new crate must join).
#  3. the module layering of each crate (tools/check-crate-layers.mjs, the table in src/lib.rs).
# Fix formatting with `cargo fmt --all` (and the same in the crate's directory); a clippy
# finding says what to change.
# Usage: bash tools/lint-rust.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
target=wasm32-wasip1-threads
say() { printf '\033[1m[lint-rust]\033[0m %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

# Every standalone crate (its own [workspace]) other than the root.
standalone=()
while IFS= read -r manifest; do
  [ "$manifest" = Cargo.toml ] && continue
  grep -q '^\[workspace\]' "$manifest" && standalone+=("$(dirname "$manifest")")
done < <(git ls-files '*Cargo.toml' | sort)

say "rustfmt --check: the workspace and ${#standalone[@]} standalone crates"
cargo fmt --all --check || fail "formatting differs (above): run 'cargo fmt --all'"
for dir in "${standalone[@]}"; do
  (cd "$dir" && cargo fmt --all --check) || fail "formatting differs in $dir (above): run 'cargo fmt --all' there"
done

clippy() { cargo clippy -q --release "$@" -- -D warnings; }

say "clippy: workspace, native"
clippy --workspace --all-targets
for dir in "${standalone[@]}"; do
  case "$dir" in
    */fuzz)
      # libfuzzer-sys compiles libFuzzer (C++): with the clang that tools/setup.sh installs.
      say "clippy: $dir, native"
      (cd "$dir" && CXX=clang++-19 CC=clang-19 clippy --all-targets) ;;
  esac
done

# wasm32: the nightly features of the wasm-wait builds, as every build script of them does.
export RUSTC_BOOTSTRAP=1
say "clippy: wasm32, the C archives without OPFS (libspindle.a) and spindle-alloc-c's checker"
clippy --target $target --target-dir target/lint/wasm -p spindle-wasi-fs-c -p spindle-alloc-c \
  --features spindle-wasi-fs-c/wasm-wait,spindle-wasi-fs-c/alloc,spindle-alloc-c/validate
say "clippy: wasm32, the in-program FS with OPFS (libspindle-fs-opfs.a)"
clippy --target $target --target-dir target/lint/wasm -p spindle-wasi-fs-c --features wasm-wait,spindle-wasi-fs/opfs
say "clippy: wasm32, the memory-FS module (--cfg spindle_fs_module)"
RUSTFLAGS="--cfg spindle_fs_module" clippy --target $target --target-dir target/lint/module \
  -p spindle-fs-module --features wasm-wait,opfs
unset RUSTC_BOOTSTRAP
# Each standalone crate is linted for the target it is built for; a new one must be added here.
for dir in "${standalone[@]}"; do
  case "$dir" in
    */fuzz) ;;
    bench/alloc/rust)
      # Its `mimalloc` feature builds C with the wasi sysroot (bench/alloc/run.mjs sets it up).
      say "clippy: $dir, wasm32 (default and spindle features)"
      (cd "$dir" && clippy --target $target --all-targets && clippy --target $target --all-targets --features spindle) ;;
    bench/alloc/hello-rust | tests/*/rust)
      say "clippy: $dir, wasm32"
      (cd "$dir" && clippy --target $target --all-targets) ;;
    examples/alloc-rayon-web)
      # wasm32-unknown-unknown with atomics needs nightly -Z build-std (its build.sh): nightly
      # clippy's lints change daily, so this crate is formatted but not linted here.
      say "clippy: $dir NOT RUN (wasm32-unknown-unknown + atomics builds only with nightly -Z build-std)" ;;
    *) fail "$dir: a crate with its own workspace that this script does not know: add it to the case above (its target and features)" ;;
  esac
done

say "layers: tools/check-crate-layers.mjs"
node tools/check-crate-layers.mjs
