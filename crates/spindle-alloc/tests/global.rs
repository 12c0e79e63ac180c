//! spindle-alloc as the Rust global allocator of this test binary: std collections, threads and
//! cross-thread drops all go through it.

use spindle_alloc::SpindleAlloc;
use std::collections::HashMap;
use std::sync::mpsc;
use std::thread;

#[global_allocator]
static A: SpindleAlloc = SpindleAlloc;

#[test]
fn std_collections_across_threads() {
    let (tx, rx) = mpsc::channel::<Vec<String>>();
    let hs: Vec<_> = (0..4)
        .map(|t| {
            let tx = tx.clone();
            thread::spawn(move || {
                let mut m: HashMap<u32, Vec<u8>> = HashMap::new();
                for i in 0..20_000u32 {
                    m.insert(i, vec![t as u8; (i % 300) as usize]);
                    if i % 7 == 0 {
                        m.remove(&(i / 2));
                    }
                }
                let v: Vec<String> = (0..1000).map(|i| format!("{t}-{i}")).collect();
                tx.send(v).unwrap();
                m.values().map(|v| v.len()).sum::<usize>()
            })
        })
        .collect();
    drop(tx);
    let mut n = 0;
    for v in rx {
        n += v.len(); // dropped here: freed on another thread than the one that allocated
    }
    assert_eq!(n, 4000);
    for h in hs {
        assert!(h.join().unwrap() > 0);
    }
    let mut big: Vec<u64> = Vec::new();
    for i in 0..3_000_000u64 {
        big.push(i); // realloc growth through the large path
    }
    assert_eq!(big[2_999_999], 2_999_999);
    spindle_alloc::validate_pool().unwrap();
}
