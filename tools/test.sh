#!/usr/bin/env bash
# Runs every test of the project after setting up what they need (tools/setup-tests.sh). The
# runtime's tests run on the Node on the PATH (20 or later), then those whose outcome depends on
# the Node line run again on Node 26 (tools/node-lines.sh; also on 22 and 24 with
# SPINDLE_ALL_NODE_LINES=1, the longer mode).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
"$repo/tools/setup-tests.sh"
# Each step line starts with the time since the start of the test command (where the time goes).
step() { printf '\n\033[1m== [%d:%02d] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

# First, as it fails fast: formatting, clippy -D warnings (native and wasm32) and module layering.
step "lint: Rust crates (tools/lint-rust.sh: rustfmt, clippy, layers)"
bash tools/lint-rust.sh

step "build: memory-FS module (tools/build-fs-module.sh)"
bash tools/build-fs-module.sh >/dev/null

step "build: runtime (TypeScript, with unused locals/parameters as errors) and its layering check"
(cd runtime && npm run --silent build && npm run --silent lint)

step "set-up: napi-rs packages, Node 26, the peer-problem addon (tests/napi; after the runtime build: the drop-in installs a copy of it)"
bash tests/napi/setup.sh
bash tests/napi/peer/build.sh >/dev/null

step "build: guest test programs (wasm32-wasip1-threads)"
bash tests/guests/build.sh

step "build: spindle-alloc C archive and its wasm tests"
bash tests/alloc/build.sh

step "build: spindle-alloc on wasm32-unknown-unknown (examples/alloc-rayon-web, both allocators)"
bash examples/alloc-rayon-web/build.sh >/dev/null

step "build: in-program filesystem (libspindle-fs.a, libspindle.a) and its guest tests"
bash tests/fs-guests/build.sh

step "build: the escape suite of host directories (tests/escape)"
bash tests/escape/build.sh

step "build: in-program filesystem with OPFS mounts (libspindle-fs-opfs.a) and its guest"
bash tests/fs-guests/opfs_build.sh >/dev/null

step "set-up: wasmtime 46 (portability tests of the in-program FS) and the benchmark baselines"
bash bench/harness/setup.sh

step "test: Rust crates (native)"
cargo test --workspace --release -q 2>&1

# The allocator computes addresses as integers (chunk arithmetic), hence permissive provenance.
step "test: spindle-alloc single-thread logic under Miri, 32-bit (i686)"
MIRIFLAGS=-Zmiri-permissive-provenance cargo +nightly miri test -q -p spindle-alloc \
  --target i686-unknown-linux-gnu --test miri --test miri_oom 2>&1

# SPINDLE_TEST_ALL=1: a suite whose tool or build is missing FAILS (runtime/test/helpers.mjs `needs`):
# everything is installed and built above. The summary lists every skipped or todo test with its reason.
step "test: runtime (node:test)"
mkdir -p build
(cd runtime && SPINDLE_TEST_ALL=1 npm test --silent) | tee build/test-runtime.tap
skipped=$(grep -E '^\s*(not )?ok .*# (SKIP|TODO)' build/test-runtime.tap || true)
if [ -n "$skipped" ]; then
  printf '\n\033[1m== not run or known to fail (SKIP/TODO), with the reason:\033[0m\n%s\n' "$(sed -E 's/^\s*(not )?ok [0-9]+ - //' <<<"$skipped")" >&2
fi

# Node 20 (V8 11.3) hosts threads beyond the pool only in a process started with
# --experimental-wasm-stack-switching (the CLI restarts threaded programs with it: compile-policy.ts),
# so the first pass skips the hosting suite there: run it again in such a process.
if [ "$(node -p 'process.versions.v8.split(".").slice(0, 2).join(".")')" = "11.3" ]; then
  step "test: runtime (node:test) host-threads on Node $(node --version) started with --experimental-wasm-stack-switching"
  (cd runtime && SPINDLE_TEST_ALL=1 node --experimental-wasm-stack-switching --test --test-reporter=tap test/host-threads.test.mjs) | tee build/test-runtime-stack-switching.tap
fi

# The other Node lines: again, on each line's node (the spindle processes the tests start run on
# it too), every runtime test whose outcome can depend on the Node line: V8's tiering and wasm
# features, node:fs and libuv (host directories, times), worker_threads, the test runner itself.
# Left out, as they would only repeat the first pass: the browser suites (Node serves files and
# drives the browser there; the runtime runs in the browser's engine) and the checks of the
# repository's own files (guests-coverage), and napi.test.mjs, which the first pass runs on Node 26
# too (its packages on the PATH's Node and on Node 26, each against the stock loader on that Node).
NOT_NODE_LINE_DEPENDENT='^test/(browser.*|opfs|demo|napi-browser|napi|alloc-rayon-web|guests-coverage)\.test\.mjs$'
for major in $(bash tools/node-lines.sh --test-lines); do
  node_bin=$(bash tools/node-lines.sh "$major")
  step "test: runtime (node:test) on Node $("$node_bin" --version), the suites that depend on the Node line"
  files=$(cd runtime && ls test/*.test.mjs | grep -Ev "$NOT_NODE_LINE_DEPENDENT")
  (cd runtime && SPINDLE_TEST_ALL=1 "$node_bin" --test --test-reporter=tap --test-concurrency=2 $files) | tee "build/test-runtime-node$major.tap"
  skipped=$(grep -E '^\s*(not )?ok .*# (SKIP|TODO)' "build/test-runtime-node$major.tap" || true)
  if [ -n "$skipped" ]; then
    printf '\n\033[1m== Node %s: not run or known to fail (SKIP/TODO), with the reason:\033[0m\n%s\n' "$major" "$(sed -E 's/^\s*(not )?ok [0-9]+ - //' <<<"$skipped")" >&2
  fi
done
step "done: every test passed"
