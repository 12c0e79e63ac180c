//! Seeded multithreaded stress: producers allocate random sizes and hand blocks to consumers on
//! other threads, which check the pattern and free them (cross-thread frees); every thread also
//! churns locally. A shared interval map proves no two live blocks overlap.

mod common;
use common::{check, fill, Rng};
use spindle_alloc as sa;
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

#[derive(Clone, Copy)]
struct Blk(usize, usize, u64);
// SAFETY: (test) a block is owned by exactly one thread at a time.
unsafe impl Send for Blk {}

type Live = Arc<Mutex<BTreeMap<usize, usize>>>;

fn claim(live: &Live, p: usize, n: usize) {
    let n = n.max(1);
    let mut m = live.lock().unwrap();
    if let Some((&q, &len)) = m.range(..=p).next_back() {
        assert!(q + len <= p, "block {p:#x}+{n} overlaps live block {q:#x}+{len}");
    }
    if let Some((&q, _)) = m.range(p..).next() {
        assert!(p + n <= q, "block {p:#x}+{n} overlaps live block at {q:#x}");
    }
    m.insert(p, n);
}

fn unclaim(live: &Live, p: usize) {
    assert!(live.lock().unwrap().remove(&p).is_some());
}

fn run(seed: u64, producers: usize, per_producer: usize) {
    let live: Live = Arc::default();
    let mut senders = Vec::new();
    let mut consumers = Vec::new();
    for c in 0..producers {
        let (tx, rx) = mpsc::sync_channel::<Blk>(64);
        senders.push(tx);
        let live = live.clone();
        consumers.push(thread::spawn(move || {
            let mut rng = Rng::new(seed ^ (1000 + c as u64));
            let mut keep: Vec<Blk> = Vec::new();
            for Blk(p, n, tag) in rx {
                // SAFETY: the producer filled p[..n] and gave up the block.
                unsafe { check(p as *const u8, n, tag) };
                // Hold some blocks a while so frees interleave with allocation elsewhere.
                keep.push(Blk(p, n, tag));
                if keep.len() > 32 || rng.below(2) == 0 {
                    let i = rng.below(keep.len() as u64) as usize;
                    let Blk(p, n, tag) = keep.swap_remove(i);
                    // SAFETY: as above.
                    unsafe {
                        check(p as *const u8, n, tag);
                        unclaim(&live, p);
                        sa::free(p as *mut u8);
                    }
                }
            }
            for Blk(p, n, tag) in keep {
                // SAFETY: as above.
                unsafe {
                    check(p as *const u8, n, tag);
                    unclaim(&live, p);
                    sa::free(p as *mut u8);
                }
            }
            sa::validate_heap().unwrap();
        }));
    }
    let senders = Arc::new(senders);
    let mut handles = Vec::new();
    for t in 0..producers {
        let senders = senders.clone();
        let live = live.clone();
        handles.push(thread::spawn(move || {
            let mut rng = Rng::new(seed ^ t as u64);
            let mut local: Vec<Blk> = Vec::new();
            for i in 0..per_producer {
                let n = rng.size();
                let align = if rng.below(16) == 0 { 1 << rng.below(17) } else { 16 };
                let tag = rng.next();
                // SAFETY: allocation checked below.
                let p = unsafe { sa::alloc(n, align) };
                assert!(!p.is_null());
                assert_eq!(p as usize % align, 0);
                claim(&live, p as usize, n);
                // SAFETY: fresh block of n bytes.
                unsafe { fill(p, n, tag) };
                if i % 3 == 0 {
                    // Cross-thread: to a consumer (sometimes our own index's: still another thread).
                    let to = rng.below(senders.len() as u64) as usize;
                    senders[to].send(Blk(p as usize, n, tag)).unwrap();
                } else {
                    local.push(Blk(p as usize, n, tag));
                    if local.len() > 200 {
                        let Blk(p, n, tag) = local.swap_remove(rng.below(200) as usize);
                        // SAFETY: our block.
                        unsafe {
                            check(p as *const u8, n, tag);
                            if rng.below(4) == 0 {
                                // Grow or shrink through realloc, keeping the pattern's head.
                                let m = rng.size();
                                // Unclaim first: realloc may free `p` and another thread
                                // may get its memory before we return.
                                unclaim(&live, p);
                                let q = sa::realloc(p as *mut u8, m, 16);
                                assert!(!q.is_null());
                                claim(&live, q as usize, m);
                                check(q, n.min(m).min(64), tag);
                                fill(q, m, tag);
                                local.push(Blk(q as usize, m, tag));
                                continue;
                            }
                            unclaim(&live, p);
                            sa::free(p as *mut u8);
                        }
                    }
                }
            }
            for Blk(p, n, tag) in local {
                // SAFETY: our blocks.
                unsafe {
                    check(p as *const u8, n, tag);
                    unclaim(&live, p);
                    sa::free(p as *mut u8);
                }
            }
            sa::validate_heap().unwrap();
        }));
    }
    for h in handles {
        h.join().unwrap();
    }
    drop(senders);
    for c in consumers {
        c.join().unwrap();
    }
    assert!(live.lock().unwrap().is_empty());
    sa::validate_pool().unwrap();
}

#[test]
fn producers_and_consumers_seeded() {
    for seed in [1u64, 0xDEAD_BEEF, 42] {
        run(seed, 4, 6_000);
    }
}

/// Pure remote-free ping-pong on one size class: every block is freed by the other thread,
/// so slabs cycle through the full list / NOTIFY / delayed path constantly.
#[test]
fn ping_pong_remote_frees() {
    let (tx_a, rx_a) = mpsc::sync_channel::<Blk>(1024);
    let (tx_b, rx_b) = mpsc::sync_channel::<Blk>(1024);
    let a = thread::spawn(move || {
        for i in 0..200_000u64 {
            // SAFETY: freed by the other thread.
            let p = unsafe { sa::alloc(48, 16) };
            assert!(!p.is_null());
            // SAFETY: the fresh block of that size, ours.
            unsafe { fill(p, 48, i) };
            tx_a.send(Blk(p as usize, 48, i)).unwrap();
            while let Ok(Blk(p, n, tag)) = rx_b.try_recv() {
                // SAFETY: block handed over by the other thread.
                unsafe {
                    check(p as *const u8, n, tag);
                    sa::free(p as *mut u8);
                }
            }
        }
        drop(tx_a);
        for Blk(p, n, tag) in rx_b {
            // SAFETY: as above.
            unsafe {
                check(p as *const u8, n, tag);
                sa::free(p as *mut u8);
            }
        }
        sa::validate_heap().unwrap();
    });
    for Blk(p, n, tag) in rx_a {
        // SAFETY: block handed over by thread a; the reply goes back to it.
        unsafe {
            check(p as *const u8, n, tag);
            sa::free(p as *mut u8);
            let q = sa::alloc(48, 16);
            fill(q, 48, tag);
            let _ = tx_b.send(Blk(q as usize, 48, tag));
        }
    }
    drop(tx_b);
    a.join().unwrap();
    sa::validate_heap().unwrap();
    sa::validate_pool().unwrap();
}
