//! Larson-style hand-off: chains of threads where each thread churns a shared array of blocks
//! (freeing blocks other threads allocated), starts the next thread of its chain with the array,
//! and exits without being joined. The successor's frees into the predecessor's heap race with
//! that heap's flush and abandonment at thread exit and with its adoption by new threads: the
//! path on which a rust larson benchmark run once reported an invalid free. Every block's pattern
//! is checked before it is freed; the pool and the final heap are validated.

mod common;
use common::{check, fill, Rng};
use spindle_alloc as sa;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;

const SLOTS: usize = 500;

struct Slots(Vec<(usize, usize, u64)>);
// SAFETY: (test) the array and its blocks belong to one thread at a time.
unsafe impl Send for Slots {}

fn step(mut slots: Slots, hops_left: u32, mut rng: Rng, done: Arc<AtomicUsize>) {
    for _ in 0..1_000 {
        let k = rng.below(SLOTS as u64) as usize;
        let (p, n, tag) = slots.0[k];
        let m = 16 + rng.below(1009) as usize;
        let t = rng.next();
        // SAFETY: slot blocks are live, filled with their tag; freed once.
        unsafe {
            check(p as *const u8, n, tag);
            sa::free(p as *mut u8);
            let q = sa::alloc(m, 16);
            assert!(!q.is_null());
            fill(q, m, t);
            slots.0[k] = (q as usize, m, t);
        }
    }
    if hops_left > 0 {
        // Detached: this thread exits while its successor already frees into its heap.
        thread::spawn(move || step(slots, hops_left - 1, rng, done));
        return;
    }
    for (p, n, tag) in slots.0 {
        // SAFETY: as above.
        unsafe {
            check(p as *const u8, n, tag);
            sa::free(p as *mut u8);
        }
    }
    done.fetch_add(1, Ordering::Release);
}

#[test]
fn chains_hand_blocks_to_fresh_threads() {
    let chains = 8;
    let done = Arc::new(AtomicUsize::new(0));
    for c in 0..chains {
        let mut rng = Rng::new(0x1A55_0000 + c);
        let slots = Slots(
            (0..SLOTS)
                .map(|_| {
                    let t = rng.next();
                    // SAFETY: filled here, freed by the chain.
                    let p = unsafe { sa::alloc(64, 16) };
                    assert!(!p.is_null());
                    // SAFETY: the fresh block of that size, ours.
                    unsafe { fill(p, 64, t) };
                    (p as usize, 64, t)
                })
                .collect(),
        );
        let done = done.clone();
        thread::spawn(move || step(slots, 150, rng, done));
    }
    while done.load(Ordering::Acquire) < chains as usize {
        thread::sleep(std::time::Duration::from_millis(1));
    }
    sa::validate_pool().unwrap();
    sa::validate_heap().unwrap();
}
