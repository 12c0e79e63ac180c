//! Unit tests of the API semantics (single thread, plus the checker after each step).

use super::*;
use crate::size_class::SLAB_MAX;
use std::vec::Vec;

fn ok() {
    validate_pool().unwrap();
    validate_heap().unwrap();
}

fn fill(p: *mut u8, n: usize, seed: u8) {
    for i in 0..n {
        // SAFETY: p has n bytes.
        unsafe { *p.add(i) = seed.wrapping_add(i as u8) };
    }
}

fn check(p: *const u8, n: usize, seed: u8) {
    for i in 0..n {
        // SAFETY: p has n bytes.
        assert_eq!(unsafe { *p.add(i) }, seed.wrapping_add(i as u8), "byte {i}");
    }
}

/// Largest size the tests use: 16 MiB, or 1 MiB under Miri (which is ~1000x slower).
const MAX: usize = if cfg!(miri) { 1 << 20 } else { 16 << 20 };

/// Sizes 0..=MAX: every size to 4 KiB (every 37th under Miri), then a geometric walk with
/// neighbours.
fn sizes() -> Vec<usize> {
    let step = if cfg!(miri) { 37 } else { 1 };
    let mut v: Vec<usize> = (0..=4096).step_by(step).collect();
    let mut s = 4096usize;
    while s <= MAX {
        v.extend([s - 1, s, s + 1, s + s / 3]);
        s = s * 5 / 4;
    }
    v.push(MAX);
    v.retain(|&x| x <= MAX);
    v
}

#[test]
fn every_size_fits_and_is_aligned() {
    let mut live = Vec::new();
    for (k, n) in sizes().into_iter().enumerate() {
        // SAFETY: plain allocation, freed below.
        let p = unsafe { alloc(n, 1) };
        assert!(!p.is_null());
        assert_eq!(p as usize % MIN_ALIGNMENT, 0);
        // SAFETY: live allocation.
        assert!(unsafe { usable_size(p) } >= n);
        let m = core::cmp::min(n, 512);
        fill(p, m, k as u8);
        live.push((p, m, k as u8));
        if live.len() > 64 {
            let (q, m, seed) = live.remove(0);
            check(q, m, seed);
            // SAFETY: live allocation.
            unsafe { free(q) };
        }
    }
    for (q, m, seed) in live {
        check(q, m, seed);
        // SAFETY: live allocation.
        unsafe { free(q) };
    }
    ok();
}

#[test]
fn every_alignment_to_64k_and_beyond() {
    let mut a = 1usize;
    while a <= 256 << 10 {
        for n in [1, 7, a / 2, a, a + 1, 3 * a + 5, 100_000, 600_000.min(MAX)] {
            // SAFETY: allocation freed below.
            unsafe {
                let p = alloc(n, a);
                assert!(!p.is_null(), "size {n} align {a}");
                assert_eq!(p as usize % a, 0, "size {n} align {a}");
                assert!(usable_size(p) >= n);
                fill(p, core::cmp::min(n, 256), 3);
                let q = realloc(p, n + 1000, a);
                assert_eq!(q as usize % a, 0);
                check(q, core::cmp::min(n, 256), 3);
                free(q);
            }
        }
        a *= 2;
    }
    // SAFETY: non-power-of-two alignment is refused.
    assert!(unsafe { alloc(10, 24) }.is_null());
    ok();
}

#[test]
fn realloc_shrink_grow_same() {
    // SAFETY: every pointer is live where used.
    unsafe {
        for start in [1usize, 24, 100, 1000, 5000, 70_000, 600_000, (3 << 20).min(MAX / 4)] {
            let p = alloc(start, 8);
            fill(p, start, 9);
            let same = realloc(p, start, 8);
            assert_eq!(same, p, "realloc to the same size moves");
            check(same, start, 9);
            let grown = realloc(same, start * 3 + 17, 8);
            check(grown, start, 9);
            let shrunk = realloc(grown, start / 2 + 1, 8);
            check(shrunk, start / 2 + 1, 9);
            free(shrunk);
        }
        // Growing a large block with free space after it stays in place.
        let p = alloc(MAX / 4, 16);
        let q = realloc(p, MAX / 3, 16);
        assert!(!q.is_null());
        free(q);
        let r = realloc(core::ptr::null_mut(), 10, 8);
        assert!(!r.is_null());
        free(r);
    }
    ok();
}

#[test]
fn calloc_zeroes_fresh_and_reused_memory() {
    // SAFETY: pointers are live where used.
    unsafe {
        for n in [1usize, 16, 100, 4000, 70_000, 600_000.min(MAX / 8), (5 << 20).min(MAX / 4)] {
            let mut dirty = Vec::new();
            for _ in 0..8 {
                let p = alloc(n, 16);
                core::ptr::write_bytes(p, 0xAB, n);
                dirty.push(p);
            }
            for p in dirty {
                free(p);
            }
            for _ in 0..8 {
                let z = alloc_zeroed(n, 16);
                assert!((0..n).all(|i| *z.add(i) == 0), "calloc({n}) returned dirty memory");
                core::ptr::write_bytes(z, 0xCD, n);
                free(z);
            }
        }
        let n = 200_000.min(MAX / 8);
        let z = alloc_zeroed(n, 4096);
        assert_eq!(z as usize % 4096, 0);
        assert!((0..n).all(|i| *z.add(i) == 0));
        free(z);
    }
    ok();
}

#[test]
fn usable_size_is_class_or_span() {
    // SAFETY: live pointers.
    unsafe {
        assert_eq!(usable_size(core::ptr::null()), 0);
        let p = alloc(100, 8);
        assert_eq!(usable_size(p), 112);
        let q = alloc(SLAB_MAX + 1, 8);
        assert_eq!(usable_size(q), (SLAB_MAX + 1).div_ceil(CHUNK) * CHUNK);
        free(p);
        free(q);
    }
}

#[test]
fn freed_spans_are_reused_across_classes() {
    // SAFETY: live pointers.
    unsafe {
        let before = stats().committed;
        let (rounds, per) = if cfg!(miri) { (5, 20) } else { (50, 200) };
        for round in 0..rounds {
            let n = 1000 + round * 997;
            let v: Vec<*mut u8> = (0..per).map(|_| alloc(n, 16)).collect();
            for p in v {
                free(p);
            }
            thread_flush();
        }
        let big = alloc(MAX / 2, 16);
        free(big);
        let big = alloc(MAX / 2, 16);
        free(big);
        let after = stats().committed;
        // 50 classes x 200 blocks, and two 8 MiB spans, fit in the reused memory plus one 8 MiB span
        // and the other tests' concurrent use: far less than the sum of all rounds (~60 MiB).
        assert!(after - before < 40 << 20, "memory not reused: grew by {}", after - before);
    }
    ok();
}

#[test]
fn stats_track_use() {
    // SAFETY: live pointers.
    unsafe {
        let p = alloc(MAX / 4, 16);
        let s = stats();
        assert!(s.in_use >= MAX / 4);
        assert!(s.committed >= s.in_use.min(s.committed));
        assert!(s.peak_committed >= s.committed);
        free(p);
    }
}

/// A block split from a larger arena bin keeps a small rest (`arena::KEEP_REST`): on a ring of
/// frees and mallocs of mixed sizes some blocks come out larger than any block of the request's
/// own bin, never twice its class, and the heap stays consistent (fails with the rule undone: a
/// block is then its class, or a block of its bin).
#[test]
fn arena_split_keeps_small_rests() {
    std::thread::spawn(|| {
        let mut s = 2_463_534_242u32;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        };
        let (ring, ops) = (64usize, 20_000usize);
        let mut v: Vec<(*mut u8, usize)> = Vec::with_capacity(ring);
        let mut larger = 0;
        for i in 0..ring + ops {
            let n = 8 + (rnd() % 1017) as usize;
            if i >= ring {
                let (p, m) = v[i % ring];
                check(p, m.min(64), m as u8);
                // SAFETY: a live block, freed once.
                unsafe { free(p) };
            }
            // SAFETY: plain allocation.
            let p = unsafe { alloc(n, 1) };
            let (class, next) = arena::bin_range(n);
            // SAFETY: live.
            let block = unsafe { usable_size(p) } + arena::HDR;
            assert!(block >= class && block < 2 * class, "alloc({n}): block {block}, class {class}");
            larger += (block >= next) as usize;
            fill(p, n.min(64), n as u8);
            if i < ring {
                v.push((p, n));
            } else {
                v[i % ring] = (p, n);
            }
            if i % 1000 == 0 {
                ok();
            }
        }
        assert!(larger > 0, "no block came whole from a larger bin");
        ok();
        for (p, _) in v {
            // SAFETY: live blocks, freed once.
            unsafe { free(p) };
        }
        ok();
    })
    .join()
    .unwrap();
}

/// A request whose arena bin is empty takes a free block of the next non-empty bin whole when
/// there is no victim (`arena::pop_larger`, the slow path's first choice), and its free files it
/// back in that bin; with a victim, the request is carved from the victim instead.
#[test]
fn arena_next_bin_whole() {
    std::thread::spawn(|| {
        let (small, next) = (100, 120); // bins 7 (128-byte blocks) and 8 (144)
        assert_eq!(arena::bin_of(small) + 1, arena::bin_of(next));
        // SAFETY: every pointer is live where used and freed once; `h` is this thread's heap.
        unsafe {
            // The thread's first request makes its heap (and is served by a slab).
            let first = alloc(8, 1);
            let x = alloc(next, 1);
            let guard = alloc(next, 1);
            free(x);
            // A victim (the rest of the arena's span) serves the request: not the binned block.
            let v = alloc(small, 1);
            assert!(v != x && usable_size(v) + arena::HDR == 128, "carved from the victim");
            free(v);
            // No victim after a pass; `x` (merged with nothing: `guard` is live) is in bin 8.
            let h = thread_map::current();
            arena::consolidate(h);
            ok();
            assert_eq!((*h).arena.victim, 0);
            // Bin 7 emptied of what the thread's start freed (a pop each).
            let c = arena::bin_of(small);
            let mut held = Vec::new();
            while !(*h).arena.bins[c].is_null() {
                held.push(alloc(small, 1));
            }
            let head = (*h).arena.bins[c + 1] as *mut u8;
            assert!(!head.is_null(), "x is in bin 8");
            let p = alloc(small, 1);
            assert_eq!(p, head, "the next bin's block");
            assert!((144..160).contains(&(usable_size(p) + arena::HDR)), "handed out whole");
            ok();
            free(p);
            ok();
            assert_eq!((*h).arena.bins[c + 1] as *mut u8, p, "filed back in its own bin");
            free(guard);
            free(first);
            for q in held {
                free(q);
            }
            ok();
        }
    })
    .join()
    .unwrap();
}
