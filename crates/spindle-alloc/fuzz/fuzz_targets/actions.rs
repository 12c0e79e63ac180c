//! Fuzzes spindle-alloc with a sequence of actions against a model: every live block keeps a
//! pattern that must survive every other action, alignment and usable size are checked, and the
//! consistency checker runs after every action. A second thread frees blocks it is handed
//! (cross-thread frees) when the input asks for it.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spindle_alloc as sa;

#[derive(Arbitrary, Debug)]
enum Action {
    Alloc { size: u16, big: u8, align_log: u8 },
    AllocZeroed { size: u16, align_log: u8 },
    Free { index: u16 },
    Realloc { index: u16, size: u16, big: u8 },
    FreeOnOtherThread { index: u16 },
    Flush,
}

struct Block {
    p: *mut u8,
    size: usize,
    align: usize,
    tag: u8,
}

fn size_of(size: u16, big: u8) -> usize {
    // Mostly small; `big` stretches some sizes into the large-span range (up to ~16 MiB).
    size as usize * (1 + (big as usize % 4) * (big as usize % 64))
}

fn fill(b: &Block) {
    for i in 0..b.size.min(64) {
        // SAFETY: the block has `size` bytes.
        unsafe { *b.p.add(i) = b.tag.wrapping_add(i as u8) };
    }
}

fn check(b: &Block) {
    for i in 0..b.size.min(64) {
        // SAFETY: as above.
        assert_eq!(unsafe { *b.p.add(i) }, b.tag.wrapping_add(i as u8), "block content changed");
    }
    assert_eq!(b.p as usize % b.align, 0);
    // SAFETY: live block.
    assert!(unsafe { sa::usable_size(b.p) } >= b.size);
}

fuzz_target!(|actions: Vec<Action>| {
    let mut live: Vec<Block> = Vec::new();
    let mut tag = 0u8;
    for a in actions.into_iter().take(2000) {
        tag = tag.wrapping_add(1);
        match a {
            Action::Alloc { size, big, align_log } => {
                let size = size_of(size, big);
                let align = 1usize << (align_log % 19);
                // SAFETY: freed below or at the end.
                let p = unsafe { sa::alloc(size, align) };
                assert!(!p.is_null());
                let b = Block { p, size, align, tag };
                fill(&b);
                live.push(b);
            }
            Action::AllocZeroed { size, align_log } => {
                let size = size as usize * 8;
                let align = 1usize << (align_log % 17);
                // SAFETY: as above.
                let p = unsafe { sa::alloc_zeroed(size, align) };
                assert!(!p.is_null());
                // SAFETY: `size` bytes.
                assert!((0..size).all(|i| unsafe { *p.add(i) } == 0), "alloc_zeroed gave dirty memory");
                let b = Block { p, size, align, tag };
                fill(&b);
                live.push(b);
            }
            Action::Free { index } if !live.is_empty() => {
                let b = live.swap_remove(index as usize % live.len());
                check(&b);
                // SAFETY: live block, freed once.
                unsafe { sa::free(b.p) };
            }
            Action::Realloc { index, size, big } if !live.is_empty() => {
                let i = index as usize % live.len();
                check(&live[i]);
                let size = size_of(size, big).max(1);
                let old = &live[i];
                // SAFETY: live block with its alignment.
                let q = unsafe { sa::realloc(old.p, size, old.align) };
                assert!(!q.is_null());
                let keep = old.size.min(size).min(64);
                for k in 0..keep {
                    // SAFETY: q has at least `keep` bytes.
                    assert_eq!(unsafe { *q.add(k) }, old.tag.wrapping_add(k as u8), "realloc lost data");
                }
                let b = Block { p: q, size, align: old.align, tag };
                fill(&b);
                live[i] = b;
            }
            Action::FreeOnOtherThread { index } if !live.is_empty() => {
                let b = live.swap_remove(index as usize % live.len());
                check(&b);
                let p = b.p as usize;
                // SAFETY: the block moves to the other thread, which frees it once.
                std::thread::spawn(move || unsafe { sa::free(p as *mut u8) }).join().unwrap();
            }
            Action::Flush => sa::thread_flush(),
            _ => {}
        }
        sa::validate_heap().unwrap();
    }
    for b in &live {
        check(b);
    }
    for b in live {
        // SAFETY: live blocks.
        unsafe { sa::free(b.p) };
    }
    sa::validate_heap().unwrap();
    sa::validate_pool().unwrap();
});
