#!/usr/bin/env bash
# Builds a wasm32-wasip1-threads C sysroot without wasi-sdk (idempotent).
#
#   include/  wasi-libc headers, from the `ziglang` PyPI wheel
#             (lib/libc/include/generic-musl overlaid with wasm-wasi-musl)
#   lib/wasm32-wasip1-threads/  Rust's self-contained wasm32-wasip1-threads libc.a and crt1-command.o (as crt1.o),
#             plus an empty libpthread.a (wasi-libc keeps pthreads inside libc.a)
#   resource/ a clang resource dir with compiler-rt's wasm32 builtins where clang-19 looks for them
#
# Output: $SPINDLE_SYSROOT (default: <repo>/.toolchain/sysroot). Prints the sysroot path.
# Needs: python3 + pip (for the wheel), rustup with the wasm32-wasip1-threads target, llvm-ar-19.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
sysroot=${SPINDLE_SYSROOT:-$repo/.toolchain/sysroot}
stamp=$sysroot/.complete-v2
if [ -f "$stamp" ]; then echo "$sysroot"; exit 0; fi

rustup target add wasm32-wasip1-threads >/dev/null 2>&1 || {
  echo "wasi-sysroot: 'rustup target add wasm32-wasip1-threads' failed; install rustup first" >&2; exit 1; }
rustlib=$(rustc --print sysroot)/lib/rustlib/wasm32-wasip1-threads/lib/self-contained
[ -f "$rustlib/libc.a" ] || { echo "wasi-sysroot: $rustlib/libc.a missing" >&2; exit 1; }

cache=${XDG_CACHE_HOME:-$HOME/.cache}/spindle
mkdir -p "$cache/wheel"
wheel=$(ls "$cache"/wheel/ziglang-*.whl 2>/dev/null | head -n 1 || true)
if [ -z "$wheel" ]; then
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$cache/wheel" 'ziglang==0.17.1' >&2
  wheel=$(ls "$cache"/wheel/ziglang-*.whl | head -n 1)
fi

rm -rf "$sysroot.tmp" && mkdir -p "$sysroot.tmp/include" "$sysroot.tmp/lib/wasm32-wasip1-threads"
python3 - "$wheel" "$sysroot.tmp/include" <<'PY'
import sys, zipfile, os
wheel, out = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(wheel)
# generic-musl first, then wasm-wasi-musl on top (the wasi-specific headers win).
for flavour in ("generic-musl", "wasm-wasi-musl"):
    prefix = f"ziglang/lib/libc/include/{flavour}/"
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            dest = os.path.join(out, name[len(prefix):])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(z.read(name))
PY
libdir=$sysroot.tmp/lib/wasm32-wasip1-threads
cp "$rustlib/libc.a" "$libdir/libc.a"
cp "$rustlib/crt1-command.o" "$libdir/crt1.o"
cp "$rustlib/crt1-command.o" "$libdir/crt1-command.o"
cp "$rustlib/crt1-reactor.o" "$libdir/crt1-reactor.o"
for empty in pthread m rt dl util; do llvm-ar-19 rc "$libdir/lib$empty.a"; done

# clang's resource dir, with compiler-rt builtins where clang looks for them for this triple
# (Debian's libclang-rt-19-dev-wasm32 installs them as lib/wasi/libclang_rt.builtins-wasm32.a).
clangres=$(clang-19 -print-resource-dir)
builtins=$clangres/lib/wasi/libclang_rt.builtins-wasm32.a
[ -f "$builtins" ] || { echo "wasi-sysroot: $builtins missing; apt-get install libclang-rt-19-dev-wasm32" >&2; exit 1; }
mkdir -p "$sysroot.tmp/resource/lib/wasm32-unknown-wasip1-threads"
ln -s "$clangres/include" "$sysroot.tmp/resource/include"
cp "$builtins" "$sysroot.tmp/resource/lib/wasm32-unknown-wasip1-threads/libclang_rt.builtins.a"
rm -rf "$sysroot" && mv "$sysroot.tmp" "$sysroot"
touch "$stamp"
echo "$sysroot"
