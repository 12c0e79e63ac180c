//! Out of memory: with a 24 MiB cap every allocation path returns null once the cap is reached,
//! realloc leaves the old block intact, and after frees the allocator serves requests again.
//! Its own test binary: the cap is global.

mod common;
use common::{check, fill};
use spindle_alloc as sa;

#[test]
fn out_of_memory_returns_null_and_recovers() {
    sa::set_memory_limit(24 << 20);
    let mut blocks = Vec::new();
    // Fill with small blocks until the first null.
    loop {
        // SAFETY: checked below.
        let p = unsafe { sa::alloc(1000, 16) };
        if p.is_null() {
            break;
        }
        unsafe { fill(p, 1000, blocks.len() as u64) };
        blocks.push(p);
        assert!(blocks.len() < 1 << 20, "limit not enforced");
    }
    assert!(blocks.len() > 10_000);
    // Every other path fails too, cleanly.
    unsafe {
        assert!(sa::alloc(10 << 20, 16).is_null());
        assert!(sa::alloc_zeroed(10 << 20, 16).is_null());
        assert!(sa::alloc(100, 1 << 20).is_null());
        let last = *blocks.last().unwrap();
        assert!(sa::realloc(last, 20 << 20, 16).is_null());
        check(last, 1000, blocks.len() as u64 - 1);
    }
    sa::validate_pool().unwrap();
    sa::validate_heap().unwrap();
    // Free half (every other block): whole slabs rarely empty, so also free a contiguous run.
    let tail = blocks.split_off(blocks.len() / 2);
    for (i, p) in tail.into_iter().enumerate() {
        let _ = i;
        // SAFETY: our blocks.
        unsafe { sa::free(p) };
    }
    sa::thread_flush();
    // Small and large requests are served again from the freed memory.
    unsafe {
        let big = sa::alloc(4 << 20, 16);
        assert!(!big.is_null(), "freed slabs not reused for a large span");
        fill(big, 4 << 20, 7);
        let z = sa::alloc_zeroed(100_000, 16);
        assert!(!z.is_null());
        assert!((0..100_000).all(|i| *z.add(i) == 0));
        sa::free(z);
        sa::free(big);
        for _ in 0..100 {
            let p = sa::alloc(1000, 16);
            assert!(!p.is_null());
            blocks.push(p);
        }
    }
    for (i, p) in blocks.iter().enumerate().take(1000) {
        // SAFETY: the first blocks still hold their pattern.
        unsafe { check(*p, 1000, i as u64) };
    }
    for p in blocks {
        // SAFETY: our blocks.
        unsafe { sa::free(p) };
    }
    sa::validate_pool().unwrap();
    sa::validate_heap().unwrap();
}
