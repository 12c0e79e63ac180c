//! 1,000 short-lived threads, started in waves of 8 (a pool of 8 is reused, never exhausted);
//! each adds its index to a shared total. Expected total: 0 + 1 + ... + 999 = 499500.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

fn main() {
    let total = Arc::new(AtomicU64::new(0));
    let mut started = 0u32;
    for wave in 0..125u64 {
        let hs: Vec<_> = (0..8u64)
            .map(|j| {
                let t = total.clone();
                thread::spawn(move || {
                    t.fetch_add(wave * 8 + j, Ordering::SeqCst);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
            started += 1;
        }
    }
    println!("threads {started}");
    println!("total {}", total.load(Ordering::SeqCst));
}
