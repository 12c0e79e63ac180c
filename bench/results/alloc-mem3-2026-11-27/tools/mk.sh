#!/usr/bin/env bash
# mk.sh NAME [patch.py]: copies the worktree's crates to src-NAME, applies the instrumentation, builds NAME.wasm (mb_mem.c)
set -euo pipefail
n=$1; s=/work/scratch/alloc-mem3; cd $s
rm -rf src-$n; mkdir -p src-$n; (cd /work/wt/alloc-mem && tar -c --exclude=target Cargo.toml Cargo.lock rustfmt.toml crates) | tar -x -C src-$n
[ -d tgt ] && cp -r tgt src-$n/target 2>/dev/null || true
cd src-$n && python3 $s/instr.py && { [ -z "${EXTRA:-}" ] || python3 $s/$EXTRA; }
RUSTC_BOOTSTRAP=1 cargo build -q --release --target wasm32-wasip1-threads -p spindle-alloc-c --features weak
/work/wt/alloc-mem/tools/wasi-cc -O2 $s/mb_mem.c target/wasm32-wasip1-threads/release/libspindle_alloc_c.a -o $s/$n.wasm
