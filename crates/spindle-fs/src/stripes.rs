//! Per-thread state without thread-local storage: a small array of cache-line-sized *stripes*,
//! one array per `Fs`, and a function that maps the calling thread to one of them.
//!
//! Why: a counter or hint that every thread writes (a directory's reader count, the fd table's
//! free-slot hint, the inode-number counter) makes its cache line move between cores on every
//! operation, which is what kept T = 2 threads at ~1.0x the throughput of one. Each stripe is
//! written almost only by the threads that map to it, so threads working on their own files
//! share no written line.
//!
//! The mapping hashes the address of a local variable (the stack pointer), at 64 KiB
//! granularity: threads have distinct stacks (natively 2 MiB or more apart; wasi-libc threads
//! get at least 64 KiB each), and a thread's calls stay within one 64 KiB window almost always.
//! It is a *hint*: two threads may share a stripe and one thread may change stripe. Every user
//! is correct whatever stripe it gets (the counters are atomics); only speed depends on it.
//! No TLS is needed, which `no_std` does not offer and wasm would have to set up per thread.
//!
//! Invariants (per stripe): `readers` is the number of short directory reads in progress on
//! this stripe (bits 0..31) plus bit 31 `PARKED` (a directory writer may be asleep on the word;
//! see `dir_lock.rs`); `fd_hint` is where this stripe's fd searches start (a hint, no
//! invariant); `next_ino` is the next inode number of this stripe's batch, `0` or a multiple of
//! [`INO_BATCH`] meaning "batch used up" (see `Fs::next_ino`).

#[cfg(not(feature = "shuttle"))]
use core::sync::atomic::AtomicU32;
use core::sync::atomic::{AtomicU64, AtomicUsize};
#[cfg(feature = "shuttle")]
use shuttle::sync::atomic::AtomicU32;

/// log2 of the number of stripes. Under shuttle only 2, so the checker explores threads that
/// share a stripe as well as threads that do not.
const BITS: u32 = if cfg!(feature = "shuttle") { 1 } else { 5 };
/// Number of stripes.
pub(crate) const STRIPES: usize = 1 << BITS;
/// Inode numbers a stripe takes from the shared counter at a time (Linux's tmpfs batches too).
pub(crate) const INO_BATCH: u64 = 1024;

/// One stripe: the per-thread state, alone on its cache line pair (128 bytes: the adjacent-line
/// prefetcher of x86 moves lines in pairs).
#[repr(align(128))]
pub(crate) struct Stripe {
    pub(crate) readers: AtomicU32,
    pub(crate) fd_hint: AtomicUsize,
    pub(crate) next_ino: AtomicU64,
}

/// The stripes of one `Fs`.
pub(crate) struct Stripes {
    stripes: [Stripe; STRIPES],
}

impl Stripes {
    pub(crate) fn new() -> Stripes {
        Stripes {
            stripes: core::array::from_fn(|_| Stripe {
                readers: AtomicU32::new(0),
                fd_hint: AtomicUsize::new(0),
                next_ino: AtomicU64::new(0),
            }),
        }
    }

    /// The calling thread's stripe.
    #[inline]
    pub(crate) fn mine(&self) -> &Stripe {
        &self.stripes[thread_stripe()]
    }

    pub(crate) fn iter(&self) -> core::slice::Iter<'_, Stripe> {
        self.stripes.iter()
    }
}

/// The calling thread's stripe index (a hint: see the module doc).
#[inline]
pub(crate) fn thread_stripe() -> usize {
    let marker = 0u8;
    let addr = core::hint::black_box(&marker) as *const u8 as usize;
    // Fibonacci hashing of the 64 KiB window number.
    let h = ((addr >> 16) as u32).wrapping_mul(0x9E37_79B9);
    (h >> (32 - BITS)) as usize
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn a_thread_keeps_its_stripe_and_threads_spread() {
        let a = thread_stripe();
        assert_eq!(a, thread_stripe());
        assert!(a < STRIPES);
        // 8 threads alive at once (so their stacks differ) land on at least 2 stripes.
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
        let hs: std::vec::Vec<_> = (0..8)
            .map(|_| {
                let b = barrier.clone();
                std::thread::spawn(move || {
                    b.wait();
                    thread_stripe()
                })
            })
            .collect();
        let seen: std::collections::BTreeSet<usize> = hs.into_iter().map(|h| h.join().unwrap()).collect();
        assert!(seen.len() >= 2, "{seen:?}");
    }
}
