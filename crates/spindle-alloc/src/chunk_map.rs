//! The chunk map: for every 2 KiB chunk of the region, the span that covers it. `free(p)` finds
//! its span here with two loads, so blocks carry no header.
//!
//! Two levels: a static root of 2048 leaf pointers (wasm32: 8 KiB), leaves of 1024 entries
//! allocated from metadata on first use (4 KiB on wasm32, each covering 2 MiB), so a small program
//! pays for one or two leaves, not an 8 MiB table.
//!
//! Invariants (checked by `validate`): every chunk of an in-use span (slab or large) maps to it; a
//! free span's first and last chunks map to it and its interior chunks map to null; chunks the
//! allocator does not own map to null. Written only with the pool lock held; read from any thread
//! without a lock (a pointer being freed was published after its span's entries were written).

use crate::platform::{self, CHUNK_SHIFT, MAX_CHUNKS};
use crate::span::Span;
use core::ptr::null_mut;
use core::sync::atomic::{AtomicPtr, Ordering};

const LEAF_BITS: usize = 10;
const LEAF_LEN: usize = 1 << LEAF_BITS;
const ROOT_LEN: usize = MAX_CHUNKS.div_ceil(LEAF_LEN);

pub(crate) struct Leaf {
    entries: [AtomicPtr<Span>; LEAF_LEN],
}

pub(crate) const LEAF_BYTES: usize = core::mem::size_of::<Leaf>();

#[allow(clippy::declare_interior_mutable_const)]
const NO_LEAF: AtomicPtr<Leaf> = AtomicPtr::new(null_mut());
static ROOT: [AtomicPtr<Leaf>; ROOT_LEN] = [NO_LEAF; ROOT_LEN];

/// Chunk index of address `p`, or None when `p` is outside the region.
#[inline(always)]
pub(crate) fn chunk_of(p: usize) -> Option<usize> {
    let idx = p.wrapping_sub(platform::base()) >> CHUNK_SHIFT;
    if idx < MAX_CHUNKS {
        Some(idx)
    } else {
        None
    }
}

/// The span covering chunk `idx` (`idx < MAX_CHUNKS`), or null.
#[inline(always)]
pub(crate) fn get(idx: usize) -> *mut Span {
    let leaf = ROOT[idx >> LEAF_BITS].load(Ordering::Acquire);
    if leaf.is_null() {
        return null_mut();
    }
    // SAFETY: leaves are never freed; `idx & (LEAF_LEN-1)` is in bounds.
    unsafe { (*leaf).entries[idx & (LEAF_LEN - 1)].load(Ordering::Relaxed) }
}

/// The span that address `p` belongs to, or null.
#[inline(always)]
pub(crate) fn lookup(p: usize) -> *mut Span {
    match chunk_of(p) {
        Some(i) => get(i),
        None => null_mut(),
    }
}

/// Sets the entry of chunk `idx`. The leaf must exist (`ensure`).
///
/// # Safety
/// Pool lock held; `ensure(idx)` succeeded before.
#[inline]
pub(crate) unsafe fn set(idx: usize, s: *mut Span) {
    let leaf = ROOT[idx >> LEAF_BITS].load(Ordering::Relaxed);
    debug_assert!(!leaf.is_null());
    // SAFETY: leaf exists by contract.
    unsafe { (*leaf).entries[idx & (LEAF_LEN - 1)].store(s, Ordering::Relaxed) };
}

/// Whether the leaf for chunk `idx` exists.
pub(crate) fn has_leaf(idx: usize) -> bool {
    !ROOT[idx >> LEAF_BITS].load(Ordering::Relaxed).is_null()
}

/// Installs `leaf` (zeroed memory of `LEAF_BYTES`) as the leaf for chunk `idx`.
///
/// # Safety
/// Pool lock held; `leaf` points to zeroed, suitably aligned, never-freed memory.
pub(crate) unsafe fn install_leaf(idx: usize, leaf: *mut u8) {
    ROOT[idx >> LEAF_BITS].store(leaf as *mut Leaf, Ordering::Release);
}
