//! std::sync::Barrier: 8 threads each write their slot, meet at the barrier, then read every
//! slot; each must see all 8 writes. Exactly one thread is the barrier leader per round.
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

const N: usize = 8;
const ROUNDS: u32 = 5;

fn main() {
    let barrier = Arc::new(Barrier::new(N));
    let slots: Arc<Vec<AtomicU32>> = Arc::new((0..N).map(|_| AtomicU32::new(0)).collect());
    let leaders = Arc::new(AtomicU32::new(0));
    let hs: Vec<_> = (0..N)
        .map(|i| {
            let (barrier, slots, leaders) = (barrier.clone(), slots.clone(), leaders.clone());
            thread::spawn(move || {
                let mut ok = true;
                for round in 1..=ROUNDS {
                    slots[i].store(round, Ordering::SeqCst);
                    if barrier.wait().is_leader() {
                        leaders.fetch_add(1, Ordering::SeqCst);
                    }
                    ok &= slots.iter().all(|s| s.load(Ordering::SeqCst) >= round);
                    barrier.wait();
                }
                ok
            })
        })
        .collect();
    let all_ok = hs.into_iter().all(|h| h.join().unwrap());
    println!("threads {N} rounds {ROUNDS} all saw every write: {all_ok}");
    println!("leaders {}", leaders.load(Ordering::SeqCst));
}
