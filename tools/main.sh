#!/usr/bin/env bash
# The main job: set up (idempotent), build the runtime and the example programs, run a C
# pthreads program with 4 threads and a Rust program with 16 threads on spindle, then
# `spindle bench --quick`, which ends by printing where the tables and charts are.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
"$repo/tools/setup.sh"
step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

step "build: memory-FS module (tools/build-fs-module.sh)"
bash tools/build-fs-module.sh >/dev/null

step "build: runtime and guest programs"
(cd runtime && npm run --silent build)
bash tests/guests/build.sh

step "run: C pthreads, 4 threads (spindle run build/guests/c/threads4.wasm)"
node runtime/dist/cli.js run build/guests/c/threads4.wasm
step "run: Rust std::thread, 16 threads (spindle run build/guests/rust/sixteen_threads.wasm)"
node runtime/dist/cli.js run build/guests/rust/sixteen_threads.wasm

step "bench: spindle bench --quick (math, malloc, runtime experiments against their baselines)"
node runtime/dist/cli.js bench --quick
