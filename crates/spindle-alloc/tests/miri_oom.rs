//! Out of memory in a Miri-sized test: a fake small memory (a 1 MiB cap on what the allocator
//! takes from the platform) makes every path return null after a few hundred blocks; the old
//! block of a failed realloc is intact; after frees the allocator serves requests again.
//! Its own test binary: the cap is global. The full-size version is `oom.rs`.

mod common;
use common::{check, fill};
use spindle_alloc as sa;

#[test]
fn small_memory_runs_out_and_recovers() {
    sa::set_memory_limit(1 << 20);
    let mut blocks = Vec::new();
    loop {
        // SAFETY: checked below.
        let p = unsafe { sa::alloc(1000, 16) };
        if p.is_null() {
            break;
        }
        // SAFETY: 1000 bytes are ours.
        unsafe { fill(p, 1000, blocks.len() as u64) };
        blocks.push(p);
        assert!(blocks.len() < 2000, "the 1 MiB cap is not enforced");
    }
    assert!(blocks.len() > 500, "only {} blocks fit in 1 MiB", blocks.len());
    // SAFETY: failing calls return null and touch nothing; `last` is live.
    unsafe {
        assert!(sa::alloc(600 << 10, 16).is_null());
        assert!(sa::alloc_zeroed(600 << 10, 16).is_null());
        assert!(sa::alloc(100, 64 << 10).is_null());
        assert!(sa::alloc(5000, 16).is_null());
        let last = *blocks.last().unwrap();
        assert!(sa::realloc(last, 600 << 10, 16).is_null());
        check(last, 1000, blocks.len() as u64 - 1);
    }
    sa::validate_pool().unwrap();
    sa::validate_heap().unwrap();
    // Free the newer half: whole slabs empty and, after a flush, coalesce for a large span.
    let tail = blocks.split_off(blocks.len() / 2);
    for p in tail {
        // SAFETY: our blocks, freed once.
        unsafe { sa::free(p) };
    }
    sa::thread_flush();
    // SAFETY: pointers are live where used and freed once.
    unsafe {
        let big = sa::alloc(200 << 10, 16);
        assert!(!big.is_null(), "freed slabs not reused for a large span");
        fill(big, 200 << 10, 7);
        let z = sa::alloc_zeroed(30_000, 16);
        assert!(!z.is_null());
        assert!((0..30_000).step_by(7).all(|i| *z.add(i) == 0));
        sa::free(z);
        sa::free(big);
        for _ in 0..50 {
            let p = sa::alloc(1000, 16);
            assert!(!p.is_null(), "small blocks not served after frees");
            fill(p, 1000, blocks.len() as u64);
            blocks.push(p);
        }
    }
    for (i, p) in blocks.iter().enumerate().take(200) {
        // SAFETY: the oldest blocks still hold their pattern.
        unsafe { check(*p, 1000, i as u64) };
    }
    for p in blocks {
        // SAFETY: our blocks, freed once.
        unsafe { sa::free(p) };
    }
    sa::validate_pool().unwrap();
    sa::validate_heap().unwrap();
}
