//! The single-thread logic in a Miri-sized test: small sizes, few iterations, one thread, so that
//! `cargo +nightly miri test -p spindle-alloc --target i686-unknown-linux-gnu --test miri` (32-bit
//! pointers, as on wasm32) finishes in a few minutes and checks every step for undefined
//! behaviour. Natively it takes milliseconds and runs with the other tests.
//!
//! One `#[test]` runs the steps in order on one thread: they assert on that thread's heap and on
//! the pool's committed bytes, which parallel tests in the same process would disturb.
//! Out of memory is in `miri_oom.rs` (the memory cap is global).

mod common;
use common::{check, fill};
use spindle_alloc as sa;

fn ok() {
    sa::validate_pool().unwrap();
    sa::validate_heap().unwrap();
}

/// Every size class boundary up to 2 KiB and a geometric walk to the largest slab class: blocks
/// hold the request, are 16-aligned, and round up by at most 1/9 above 128 bytes (counting an
/// arena block's header).
fn size_classes() {
    let mut sizes: Vec<usize> = (0..=160).step_by(7).collect();
    let mut s = 160;
    while s <= 512 << 10 {
        sizes.extend([s - 1, s, s + 1]);
        s = s * 3 / 2;
    }
    let mut live = Vec::new();
    for (k, &n) in sizes.iter().enumerate() {
        // SAFETY: freed below.
        let p = unsafe { sa::alloc(n, 1) };
        assert!(!p.is_null(), "alloc({n})");
        assert_eq!(p as usize % sa::MIN_ALIGNMENT, 0, "alloc({n}) misaligned");
        // SAFETY: live block.
        let u = unsafe { sa::usable_size(p) };
        assert!(u >= n.max(1), "usable_size {u} < {n}");
        if n > 128 {
            // A slab block, or an arena block (16 more bytes: its header): a class rounds up by at
            // most 1/9.
            assert!((u - n) * 9 <= u + 16, "class of {n} wastes more than 1/9 ({u})");
        }
        // SAFETY: `n` bytes are ours.
        unsafe { fill(p, n, k as u64) };
        live.push((p, n, k as u64));
    }
    for (p, n, tag) in live {
        // SAFETY: live blocks, freed once.
        unsafe {
            check(p, n, tag);
            sa::free(p);
        }
    }
    ok();
}

/// A slab's local free list: a freed block is the next one handed out (LIFO); a class filled past
/// one slab gets a second one and hands the first back when it empties.
fn free_lists() {
    // SAFETY: every pointer is live where used and freed once.
    unsafe {
        let a = sa::alloc(48, 16);
        let b = sa::alloc(48, 16);
        sa::free(a);
        assert_eq!(sa::alloc(48, 16), a, "freed block not reused first");
        sa::free(b);
        sa::free(a);
        // 128-byte class: 8 KiB slabs hold 64 blocks; 150 blocks span three slabs.
        let v: Vec<*mut u8> = (0..150).map(|_| sa::alloc(128, 16)).collect();
        for (i, &p) in v.iter().enumerate() {
            assert!(!p.is_null());
            fill(p, 128, i as u64);
        }
        ok();
        let mut sorted = v.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), v.len(), "a block was handed out twice");
        // Free every other block, then the rest: the lists go through partly-free states.
        for (i, &p) in v.iter().enumerate().step_by(2) {
            check(p, 128, i as u64);
            sa::free(p);
        }
        ok();
        for (i, &p) in v.iter().enumerate().skip(1).step_by(2) {
            check(p, 128, i as u64);
            sa::free(p);
        }
        ok();
    }
}

/// Emptied slabs go back to the pool on a flush and are reused by other classes and by large
/// spans: the committed memory does not grow across rounds.
fn span_reuse() {
    // SAFETY: every pointer is live where used and freed once.
    unsafe {
        let round = |n: usize| {
            let v: Vec<*mut u8> = (0..40).map(|_| sa::alloc(n, 16)).collect();
            for p in v {
                assert!(!p.is_null());
                sa::free(p);
            }
            sa::thread_flush();
        };
        round(1000);
        let big = sa::alloc(200 << 10, 16);
        sa::free(big);
        let before = sa::stats().committed;
        for n in [1000, 1500, 2000, 3000, 700, 1000] {
            round(n);
        }
        let again = sa::alloc(200 << 10, 16);
        assert!(!again.is_null());
        sa::free(again);
        assert_eq!(sa::stats().committed, before, "freed spans were not reused");
        ok();
    }
}

/// realloc: same size and a shrink within the class stay in place; a large block grows into the
/// free chunks after it and shrinks in place; moves keep the contents.
fn realloc_paths() {
    // SAFETY: every pointer is live where used and freed once.
    unsafe {
        let p = sa::alloc(100, 8);
        fill(p, 100, 1);
        assert_eq!(sa::realloc(p, 100, 8), p);
        assert_eq!(sa::realloc(p, 90, 8), p, "shrink within the class moved");
        let q = sa::realloc(p, 5000, 8);
        check(q, 8, 1); // the first bytes (`fill` wrote both ends of 100)
        let r = sa::realloc(q, 20, 8);
        check(r, 8, 1);
        sa::free(r);

        // Large: a shrink gives the tail back, and a grow takes the free chunks after the span
        // in place. (Not two blocks in a row: where a block lands depends on the pool's holes.)
        let a = sa::alloc(1200 << 10, 16);
        fill(a, 600 << 10, 2);
        assert_eq!(sa::realloc(a, 600 << 10, 16), a, "large shrink moved");
        let a2 = sa::realloc(a, 1000 << 10, 16);
        assert_eq!(a2, a, "large realloc did not grow into the free chunks after it");
        check(a2, 600 << 10, 2);
        let a3 = sa::realloc(a2, 700 << 10, 16);
        assert_eq!(a3, a, "large shrink moved");
        check(a3, 600 << 10, 2);
        ok();
        let moved = sa::realloc(a3, 3 << 20, 16);
        assert!(!moved.is_null());
        check(moved, 600 << 10, 2);
        // Shrinking below the largest slab class moves the block into a slab.
        let small = sa::realloc(moved, 300 << 10, 16);
        check(small, 8, 2);
        sa::free(small);
        assert!(!sa::realloc(core::ptr::null_mut(), 10, 8).is_null());
        ok();
    }
}

/// Every power-of-two alignment to 256 KiB, through slab classes (up to one chunk) and aligned
/// spans (beyond); realloc keeps the alignment.
fn aligned() {
    let mut a = 1usize;
    while a <= 256 << 10 {
        for n in [1, a / 2 + 1, a + 1] {
            // SAFETY: freed below.
            unsafe {
                let p = sa::alloc(n, a);
                assert!(!p.is_null(), "size {n} align {a}");
                assert_eq!(p as usize % a, 0, "size {n} align {a}");
                assert!(sa::usable_size(p) >= n);
                fill(p, n, a as u64);
                let q = sa::realloc(p, n + 100, a);
                assert_eq!(q as usize % a, 0, "realloc lost align {a}");
                check(q, n, a as u64);
                sa::free(q);
            }
        }
        a *= 2;
    }
    // SAFETY: a non-power-of-two alignment is refused.
    assert!(unsafe { sa::alloc(10, 24) }.is_null());
    ok();
}

/// Large allocations: whole chunks, usable size rounded to the chunk, calloc zero on fresh and on
/// reused (dirty) memory.
fn large() {
    // SAFETY: every pointer is live where used and freed once.
    unsafe {
        for n in [(512 << 10) + 1, 700 << 10, 2 << 20] {
            let p = sa::alloc(n, 16);
            assert!(!p.is_null());
            assert_eq!(sa::usable_size(p), n.div_ceil(sa::CHUNK) * sa::CHUNK);
            core::ptr::write_bytes(p, 0xAB, n);
            sa::free(p);
            let z = sa::alloc_zeroed(n, 16);
            assert!(!z.is_null());
            assert!((0..n).step_by(509).all(|i| *z.add(i) == 0), "calloc({n}) dirty");
            assert_eq!(*z.add(n - 1), 0);
            sa::free(z);
        }
        // Small calloc on reused blocks.
        let d = sa::alloc(200, 16);
        core::ptr::write_bytes(d, 0xCD, 200);
        sa::free(d);
        let z = sa::alloc_zeroed(200, 16);
        assert!((0..200).all(|i| *z.add(i) == 0));
        sa::free(z);
        ok();
    }
}

/// The small-heap arena: requests of many sizes freed in a shuffled order, so blocks are split,
/// binned, merged by consolidation and reused by other sizes; contents survive, a flush gives the
/// wholly free spans back, and the same requests again take no new memory.
fn arena_merges() {
    // SAFETY: every pointer is live where used and freed once.
    unsafe {
        let round = || {
            let mut v: Vec<(*mut u8, usize)> =
                (0..300).map(|i| (i * 37 + 1) % 1025).map(|n| (sa::alloc(n, 16), n)).collect();
            for (i, &(p, n)) in v.iter().enumerate() {
                assert!(!p.is_null() && p as usize % 16 == 0);
                assert!(sa::usable_size(p) >= n);
                fill(p, n, i as u64);
            }
            ok();
            // Free every third block, refill the holes with other sizes, then free everything.
            for (i, (p, n)) in v.iter_mut().enumerate().step_by(3) {
                check(*p, *n, i as u64);
                sa::free(*p);
                *n = (*n * 7 + 5) % 1025;
                *p = sa::alloc(*n, 16);
                fill(*p, *n, i as u64);
            }
            ok();
            for (i, &(p, n)) in v.iter().enumerate().rev() {
                check(p, n, i as u64);
                sa::free(p);
            }
            sa::thread_flush();
            ok();
        };
        round();
        let before = sa::stats().committed;
        round();
        assert_eq!(sa::stats().committed, before, "freed arena memory was not reused");
    }
}

/// Requests above 64 KiB: while the heap is small (the arena on), a span of whole chunks of their
/// own (a thread's stack on wasi-libc, 66,176 bytes: 66 KiB, not a 72 KiB class block), shrunk in
/// place; with the arena off, a slab block of their class.
fn small_heap_spans(arena_on: bool) {
    // SAFETY: every pointer is live where used and freed once.
    unsafe {
        let n = 66_176;
        let p = sa::alloc(n, 16);
        assert!(!p.is_null());
        fill(p, 4096, 3);
        let want = if arena_on { n.div_ceil(sa::CHUNK) * sa::CHUNK } else { 72 << 10 };
        assert_eq!(sa::usable_size(p), want, "alloc({n}) with the arena on: {arena_on}");
        ok();
        sa::free(p);
        let p = sa::alloc(100_000, 16);
        fill(p, 4096, 4);
        assert_eq!(sa::usable_size(p), if arena_on { 49 * sa::CHUNK } else { 104 << 10 });
        let q = sa::realloc(p, 70_000, 16);
        assert_eq!(q, p, "a shrink stays in place");
        assert_eq!(sa::usable_size(q), if arena_on { 35 * sa::CHUNK } else { 104 << 10 });
        check(q, 4096, 4);
        ok();
        sa::free(q);
        // 64 KiB itself is a slab block either way.
        let r = sa::alloc(64 << 10, 16);
        assert_eq!(sa::usable_size(r), 64 << 10);
        sa::free(r);
        ok();
    }
}

/// The checks that run with the arena on and again with it off.
fn request_paths(arena_on: bool) {
    size_classes();
    free_lists();
    span_reuse();
    realloc_paths();
    aligned();
    large();
    small_heap_spans(arena_on);
}

#[test]
fn single_thread_logic() {
    arena_merges();
    request_paths(true);
    // The same with the arena off (every request on slabs), in a new thread (a new heap).
    sa::set_arena_limit(0);
    std::thread::spawn(|| request_paths(false)).join().unwrap();
}
