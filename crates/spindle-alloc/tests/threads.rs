//! Thread exit and reuse: 10,000 short threads allocate, free some blocks, hand others to the main
//! thread (freed after the thread is gone), and exit. Heaps of exited threads are adopted by new
//! ones, so committed memory stays bounded. Its own test binary: it asserts on global stats.

mod common;
use common::{check, fill, Rng};
use spindle_alloc as sa;
use std::thread;

#[derive(Clone, Copy)]
struct Blk(usize, usize, u64);
// SAFETY: (test) a block is owned by exactly one thread at a time.
unsafe impl Send for Blk {}

#[test]
fn ten_thousand_short_threads_stay_bounded() {
    let mut leftovers: Vec<Blk> = Vec::new();
    let mut high = 0usize;
    for round in 0..2_500u64 {
        let hs: Vec<_> = (0..4u64)
            .map(|t| {
                thread::spawn(move || {
                    let mut rng = Rng::new(round * 4 + t);
                    let mut mine = Vec::new();
                    for _ in 0..40 {
                        let n = if rng.below(10) == 0 { rng.size() } else { 1 + rng.below(512) as usize };
                        let tag = rng.next();
                        // SAFETY: checked and freed by us or the main thread.
                        let p = unsafe { sa::alloc(n, 16) };
                        assert!(!p.is_null());
                        // SAFETY: the fresh block of that size, ours.
                        unsafe { fill(p, n, tag) };
                        mine.push(Blk(p as usize, n, tag));
                    }
                    let give: Vec<Blk> = mine.split_off(30);
                    for Blk(p, n, tag) in mine {
                        // SAFETY: our block.
                        unsafe {
                            check(p as *const u8, n, tag);
                            sa::free(p as *mut u8);
                        }
                    }
                    give
                })
            })
            .collect();
        for h in hs {
            leftovers.extend(h.join().unwrap());
        }
        // Free the blocks of exited threads from here: remote frees into abandoned heaps.
        if leftovers.len() > 400 {
            for Blk(p, n, tag) in leftovers.drain(..) {
                // SAFETY: handed over by a finished thread.
                unsafe {
                    check(p as *const u8, n, tag);
                    sa::free(p as *mut u8);
                }
            }
        }
        let c = sa::stats().committed;
        high = high.max(c);
    }
    for Blk(p, _, _) in leftovers.drain(..) {
        // SAFETY: as above.
        unsafe { sa::free(p as *mut u8) };
    }
    sa::validate_pool().unwrap();
    // 4 live threads x (a few dozen slabs) + a few large spans: far below what 10,000 threads
    // would take if their heaps were leaked (~10,000 x 64 KiB x several classes).
    assert!(high < 96 << 20, "committed memory grew to {high} bytes over 10,000 threads");
}
