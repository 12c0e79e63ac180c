//! 16 threads doing real work together: each hashes its own range with FNV-1a and bumps a shared
//! atomic counter; main prints each checksum, the combined checksum and the counter.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

fn fnv1a(range: std::ops::Range<u32>) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for i in range {
        for b in i.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
    }
    h
}

fn main() {
    let counted = Arc::new(AtomicU64::new(0));
    let hs: Vec<_> = (0..16u32)
        .map(|t| {
            let counted = counted.clone();
            thread::spawn(move || {
                let r = t * 100_000..(t + 1) * 100_000;
                counted.fetch_add(r.len() as u64, Ordering::Relaxed);
                fnv1a(r)
            })
        })
        .collect();
    let mut combined = 0u64;
    for (t, h) in hs.into_iter().enumerate() {
        let sum = h.join().unwrap();
        combined ^= sum;
        println!("thread {t:2} checksum {sum:016x}");
    }
    println!("combined {combined:016x}");
    println!("items {}", counted.load(Ordering::Relaxed));
}
