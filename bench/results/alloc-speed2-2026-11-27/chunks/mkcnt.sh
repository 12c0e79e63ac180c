#!/usr/bin/env bash
# mkcnt.sh: copies the worktree's crates into src-cnt, adds counters + span log, builds ts-cnt/c_spindle.wasm (chunk timings + counters)
set -euo pipefail
s=/work/scratch/alloc-speed; cd $s
rm -rf src-cnt/crates; (cd /work/wt/alloc-mem && tar -c --exclude=target Cargo.toml Cargo.lock rustfmt.toml crates) | tar -x -C src-cnt
cd src-cnt && python3 - <<'EOF'
f='crates/spindle-alloc/src/arena.rs'; s=open(f).read()
def rep(a,b):
    global s
    assert a in s, a
    s=s.replace(a,b,1)
rep("static LIMIT: AtomicUsize", "pub static LOG: [AtomicUsize; 64] = [const { AtomicUsize::new(0) }; 64];\npub static CNT: [AtomicUsize; 12] = [const { AtomicUsize::new(0) }; 12];\n#[inline(always)] fn cnt(i: usize) { CNT[i].fetch_add(1, Ordering::Relaxed); }\nstatic LIMIT: AtomicUsize")
rep("    let bsize = CLASSES[c].size as usize;\n    // SAFETY: we own `h` and every block of its arena.\n    unsafe {\n        let mut consolidated","    cnt(0);\n    let bsize = CLASSES[c].size as usize;\n    // SAFETY: we own `h` and every block of its arena.\n    unsafe {\n        let mut consolidated")
rep("            let word = *hdr(self.b);","            cnt(6); let word = *hdr(self.b);")
rep("        let bytes = if a.bytes == 0 { FIRST_SPAN_BYTES } else { SPAN_BYTES };","        cnt(7); let bytes = if a.bytes == 0 { FIRST_SPAN_BYTES } else { SPAN_BYTES };")
if "let now = (*h).allocated.read();" in s: rep("        let now = (*h).allocated.read();","        let now = (*h).allocated.read(); cnt(5);")
else: rep("        let a = &mut (*h).arena;\n        // Mark:","        let a = &mut (*h).arena; cnt(5);\n        // Mark:")
rep("pub static LOG:", "pub static PLOG: [AtomicUsize; 64] = [const { AtomicUsize::new(0) }; 64];\npub static LOG:")
rep("        a.bytes += bytes;\n        retire_victim(a);","        a.bytes += bytes;\n        CNT[9].store(a.bytes, Ordering::Relaxed);\n        { let k = CNT[7].load(Ordering::Relaxed); if k < 32 { LOG[2*k].store(CNT[0].load(Ordering::Relaxed), Ordering::Relaxed); LOG[2*k+1].store(bytes, Ordering::Relaxed); } }\n        retire_victim(a);")
rep("        a.bytes -= (*s).bytes();\n        a.closed = false;","        a.bytes -= (*s).bytes();\n        CNT[9].store(a.bytes, Ordering::Relaxed); cnt(3);\n        a.closed = false;")
rep("        while b != 0 {\n            let s = size_at(b);","        cnt(8); while b != 0 { cnt(4);\n            let s = size_at(b);")
rep("return take(h, carve_victim(a, bsize), bsize, c);","cnt(1); return take(h, carve_victim(a, bsize), bsize, c);")
(rep("return take_first(h, j, p, c);","cnt(2); return take_first(h, j, p, c);") if "take_first" in s else rep("return take(h, b, size, bin);","cnt(2); return take(h, b, size, bin);"))
open(f,'w').write(s)
f='crates/spindle-alloc/src/lib.rs'; s=open(f).read()
s+="\npub fn counters() -> [usize; 12] { core::array::from_fn(|i| arena::CNT[i].load(core::sync::atomic::Ordering::Relaxed)) }\n"
s+="\npub fn pass_log() -> [usize; 64] { core::array::from_fn(|i| arena::PLOG[i].load(core::sync::atomic::Ordering::Relaxed)) }\n"
s+="\npub fn span_log() -> [usize; 64] { core::array::from_fn(|i| arena::LOG[i].load(core::sync::atomic::Ordering::Relaxed)) }\n"
open(f,'w').write(s)
f='crates/spindle-alloc-c/src/lib.rs'; s=open(f).read()
s+="""
#[no_mangle]
pub unsafe extern "C" fn spindle_alloc_counters(out: *mut usize) {
    let c = spindle_alloc::counters();
    for i in 0..12 { unsafe { *out.add(i) = c[i] }; }
}
#[no_mangle]
pub unsafe extern "C" fn spindle_alloc_span_log(out: *mut usize) {
    let c = if unsafe { *out } == 7 { spindle_alloc::pass_log() } else { spindle_alloc::span_log() };
    for i in 0..64 { unsafe { *out.add(i) = c[i] }; }
}
"""
open(f,'w').write(s)
EOF
RUSTC_BOOTSTRAP=1 cargo build -q --release --target wasm32-wasip1-threads -p spindle-alloc-c --features weak
/work/wt/alloc-mem/tools/wasi-cc -O2 /work/scratch/alloc-speed/mb_cnt.c target/wasm32-wasip1-threads/release/libspindle_alloc_c.a -o ../ts-cnt/c_spindle.wasm
