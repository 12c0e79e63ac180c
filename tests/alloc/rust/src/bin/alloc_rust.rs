//! spindle-alloc as the global allocator of a Rust wasm32-wasip1-threads program: API semantics
//! through GlobalAlloc (sizes, alignments, realloc, zeroing), std collections on many threads with
//! cross-thread drops, 2,000 short threads (heap adoption), and the checker. Prints "rust ok".

use spindle_alloc::SpindleAlloc;
// Replaces wasi-libc's dlmalloc too (the recommended set-up; see crates/spindle-alloc/README.md).
use spindle_alloc_c as _;
use std::alloc::{alloc, alloc_zeroed, dealloc, realloc, Layout};
use std::collections::{BTreeMap, HashMap};
use std::sync::mpsc;
use std::thread;

#[global_allocator]
static A: SpindleAlloc = SpindleAlloc;

fn api() {
    // SAFETY: layouts are valid; every block is freed with its layout.
    unsafe {
        let mut n = 1usize;
        while n <= 16 << 20 {
            for size in [n, n + 1, n + n / 3] {
                let l = Layout::from_size_align(size, 8).unwrap();
                let p = alloc(l);
                assert!(!p.is_null(), "alloc {size}");
                p.write_bytes(0x5A, size.min(4096));
                dealloc(p, l);
            }
            n *= 2;
        }
        let mut a = 1usize;
        while a <= 256 << 10 {
            for size in [1, a, 3 * a + 1, 100_000] {
                let l = Layout::from_size_align(size, a).unwrap();
                let p = alloc(l);
                assert_eq!(p as usize % a, 0, "align {a} size {size}");
                let q = realloc(p, l, size * 2 + 5);
                assert_eq!(q as usize % a, 0, "realloc keeps align {a}");
                dealloc(q, Layout::from_size_align(size * 2 + 5, a).unwrap());
            }
            a *= 2;
        }
        for size in [10usize, 5000, 100_000, 3 << 20] {
            let l = Layout::from_size_align(size, 16).unwrap();
            let d = alloc(l);
            d.write_bytes(0xFF, size);
            dealloc(d, l);
            let z = alloc_zeroed(l);
            assert!((0..size).all(|i| *z.add(i) == 0), "alloc_zeroed({size}) dirty");
            dealloc(z, l);
        }
    }
}

fn threads() {
    let (tx, rx) = mpsc::channel::<Vec<String>>();
    let hs: Vec<_> = (0..4)
        .map(|t| {
            let tx = tx.clone();
            thread::spawn(move || {
                let mut m: HashMap<u32, Vec<u8>> = HashMap::new();
                let mut b = BTreeMap::new();
                for i in 0..30_000u32 {
                    m.insert(i, vec![t as u8; (i % 700) as usize]);
                    b.insert(i.wrapping_mul(2654435761), i);
                    if i % 3 == 0 {
                        m.remove(&(i / 2));
                    }
                }
                for (k, v) in &m {
                    assert!(v.iter().all(|&x| x == t as u8), "key {k} corrupted");
                }
                tx.send((0..2000).map(|i| format!("{t}:{i}")).collect()).unwrap();
                spindle_alloc::validate_heap().unwrap();
                m.len() + b.len()
            })
        })
        .collect();
    drop(tx);
    let mut n = 0;
    for v in rx {
        for (i, s) in v.iter().enumerate() {
            assert!(s.ends_with(&format!(":{i}")));
        }
        n += v.len(); // dropped here, on another thread than the allocating one
    }
    assert_eq!(n, 8000);
    for h in hs {
        assert!(h.join().unwrap() > 0);
    }
}

fn short_threads(count: usize) {
    let before = spindle_alloc::stats().committed;
    let mut keep = Vec::new();
    for i in 0..count / 2 {
        let a = thread::spawn(move || vec![i as u8; 100 + i % 3000]);
        let b = thread::spawn(move || (0..50).map(|j| j * i).collect::<Vec<usize>>());
        keep.push(a.join().unwrap());
        b.join().unwrap();
        if keep.len() > 64 {
            keep.clear();
        }
    }
    let grew = spindle_alloc::stats().committed - before;
    assert!(grew < 16 << 20, "committed memory grew by {grew} over {count} threads");
}

fn main() {
    let count = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2000);
    api();
    threads();
    short_threads(count);
    spindle_alloc::validate_pool().unwrap();
    spindle_alloc::validate_heap().unwrap();
    println!("rust ok");
}
