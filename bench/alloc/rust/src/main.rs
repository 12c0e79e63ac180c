//! Rust twin of bench/alloc/c/malloc_bench.c: the same workloads through the global allocator.
//! Usage: alloc-bench ring|xfree|larson|article THREADS TOTAL
//! Prints: RESULT workload=.. threads=.. ops=.. ms=.. mem_kb=.. checksum=XXXXXXXX
//! The checksum is the C program's (same folding of every block's first and last bytes, read back
//! before the block is freed), so it is equal for every allocator and host at the same workload
//! and T, and equal to the native C run's.

#[cfg(feature = "spindle")]
#[global_allocator]
static A: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;

// wasi-libc's malloc family from spindle-alloc (its C archive's exports): without it, wasi-libc
// keeps dlmalloc for its own allocations (every thread's stack), and two allocators growing the
// one linear memory break dlmalloc (see crates/spindle-alloc/README.md).
#[cfg(all(feature = "spindle", target_arch = "wasm32"))]
use spindle_alloc_c as _;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static A: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::alloc::{alloc, dealloc, Layout};
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

#[inline]
fn rnd(s: &mut u32) -> u32 {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    *s
}

#[inline]
unsafe fn malloc(n: usize) -> *mut u8 {
    // SAFETY: n > 0; align 8 like a C malloc on wasm32.
    unsafe {
        let p = alloc(Layout::from_size_align_unchecked(n, 8));
        *p = n as u8;
        *p.add(n - 1) = n as u8;
        p
    }
}

#[inline]
unsafe fn free(p: *mut u8, n: usize) {
    // SAFETY: p came from `malloc(n)`.
    unsafe { dealloc(p, Layout::from_size_align_unchecked(n, 8)) }
}

/// Reads back what `malloc` wrote at both ends of `p[..n]` and folds it into `acc` (as the C
/// program's `fold`).
#[inline]
unsafe fn fold(acc: &mut u32, p: *const u8, n: usize) {
    // SAFETY: p has n bytes.
    let word = unsafe { *p as u32 | (*p.add(n - 1) as u32) << 8 };
    *acc = acc.wrapping_mul(31).wrapping_add(word);
}

fn ring(t: usize, total: usize, ring: usize, lo: usize, span: usize) -> u32 {
    let hs: Vec<_> = (0..t)
        .map(|id| {
            thread::spawn(move || {
                let mut s = 2463534242u32.wrapping_add(id as u32 * 7919);
                let mut acc = 0u32;
                // SAFETY: every block is freed once with its size.
                unsafe {
                    let mut blocks: Vec<(*mut u8, usize)> = (0..ring)
                        .map(|_| {
                            let n = lo + rnd(&mut s) as usize % span;
                            (malloc(n), n)
                        })
                        .collect();
                    for i in 0..total / t {
                        let k = i & (ring - 1);
                        let (p, n) = blocks[k];
                        fold(&mut acc, p, n);
                        free(p, n);
                        let n = lo + rnd(&mut s) as usize % span;
                        blocks[k] = (malloc(n), n);
                    }
                    for (p, n) in blocks {
                        fold(&mut acc, p, n);
                        free(p, n);
                    }
                }
                acc
            })
        })
        .collect();
    hs.into_iter().fold(0u32, |sum, h| sum.wrapping_add(h.join().unwrap()))
}

const QN: usize = 4096;

fn xfree(total: usize) -> u32 {
    let q: Arc<Vec<AtomicPtr<u8>>> =
        Arc::new((0..QN).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect());
    let head = Arc::new(AtomicUsize::new(0));
    let tail = Arc::new(AtomicUsize::new(0));
    let (q2, h2, t2) = (q.clone(), head.clone(), tail.clone());
    let c = thread::spawn(move || {
        let mut acc = 0u32;
        for _ in 0..total {
            let h = h2.load(Ordering::Relaxed);
            while t2.load(Ordering::Acquire) == h {
                std::hint::spin_loop();
            }
            let p = q2[h % QN].load(Ordering::Relaxed);
            h2.store(h + 1, Ordering::Release);
            // SAFETY: the producer stored its size in the first byte's block; we only need the
            // layout size class: all blocks were allocated with the size stored in `p[0]`'s high
            // bits below.
            unsafe {
                let n = (p as *const u32).read_unaligned() as usize;
                let word = n as u32 | (*p.add(n - 1) as u32) << 16;
                acc = acc.wrapping_mul(31).wrapping_add(word);
                free(p, n);
            }
        }
        acc
    });
    let mut s = 88172645u32;
    for _ in 0..total {
        let n = 16 + rnd(&mut s) as usize % 497;
        // SAFETY: block of n >= 16 bytes; its size goes in its first word for the consumer.
        let p = unsafe {
            let p = malloc(n);
            *(p as *mut u32) = n as u32;
            p
        };
        let t = tail.load(Ordering::Relaxed);
        while t - head.load(Ordering::Acquire) >= QN {
            std::hint::spin_loop();
        }
        q[t % QN].store(p, Ordering::Relaxed);
        tail.store(t + 1, Ordering::Release);
    }
    c.join().unwrap()
}

const SLOTS: usize = 1000;

struct Slots(Vec<(*mut u8, usize)>);
// SAFETY: the blocks move with the array from one thread to the next.
unsafe impl Send for Slots {}

/// Where the chains report: how many finished, and the sum of their checksums.
struct Done {
    chains: AtomicUsize,
    sum: AtomicU32,
}

fn larson_chain(mut slots: Slots, left: usize, mut seed: u32, mut acc: u32, done: Arc<Done>) {
    let n = left.min(100_000);
    for _ in 0..n {
        let k = rnd(&mut seed) as usize % SLOTS;
        let sz = 16 + rnd(&mut seed) as usize % 1009;
        // SAFETY: slot blocks are live and sized.
        unsafe {
            let (p, m) = slots.0[k];
            fold(&mut acc, p, m);
            free(p, m);
            slots.0[k] = (malloc(sz), sz);
        }
    }
    if left > n {
        // Hand the blocks to a fresh thread (its frees are cross-thread) and exit without
        // waiting for it (detached, like the C version).
        thread::spawn(move || larson_chain(slots, left - n, seed, acc, done));
        return;
    }
    for (p, m) in slots.0 {
        // SAFETY: live blocks.
        unsafe {
            fold(&mut acc, p, m);
            free(p, m);
        }
    }
    done.sum.fetch_add(acc, Ordering::Relaxed);
    done.chains.fetch_add(1, Ordering::Release);
}

fn larson(t: usize, total: usize) -> u32 {
    let done = Arc::new(Done { chains: AtomicUsize::new(0), sum: AtomicU32::new(0) });
    for i in 0..t {
        // SAFETY: 64-byte blocks, freed by the chain.
        let slots = Slots((0..SLOTS).map(|_| (unsafe { malloc(64) }, 64)).collect());
        let done = done.clone();
        thread::spawn(move || larson_chain(slots, total / t, 12345 + i as u32 * 777, 0, done));
    }
    while done.chains.load(Ordering::Acquire) < t {
        thread::sleep(std::time::Duration::from_micros(200));
    }
    done.sum.load(Ordering::Relaxed)
}

fn mem_kb() -> usize {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size(0) * 64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 4 {
        eprintln!("usage: alloc-bench ring|xfree|larson|article THREADS TOTAL");
        std::process::exit(2);
    }
    let t: usize = a[2].parse().unwrap();
    let total: usize = a[3].parse().unwrap();
    let t0 = Instant::now();
    let checksum = match a[1].as_str() {
        "ring" => ring(t, total, 256, 8, 1017),
        "article" => ring(t, total, 1024, 1000, 1024),
        "xfree" => xfree(total),
        "larson" => larson(t, total),
        w => {
            eprintln!("unknown workload {w}");
            std::process::exit(2);
        }
    };
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    println!(
        "RESULT workload={} threads={t} ops={total} ms={ms:.1} mem_kb={} checksum={checksum:08x}",
        a[1],
        mem_kb()
    );
}
