//! The directory lock: a reader-writer lock whose *short* readers write only their own stripe
//! (`stripes.rs`), never the lock word, so path lookups through a shared directory (every
//! thread walks the same preopen root) do not make its cache line move between cores.
//!
//! Protocol (a distributed reader indicator, as Linux's old brlock and "BRAVO"):
//! - short reader: `stripe.readers += 1` (SeqCst); load the lock word (SeqCst); if no `WRITER`,
//!   read, then `stripe.readers -= 1` (Release). If a writer holds the word, it undoes its
//!   increment and falls back to a counted read of the word ([`RwLock::read`]), which waits.
//! - writer: takes the word's `WRITER` bit ([`RwLock::write`]: so no counted reader and no
//!   other writer), a SeqCst fence, then waits until it has seen every stripe's reader count at
//!   0 once.
//! - long reader ([`DirLock::read`], for scans that allocate or take leaf locks): a counted
//!   read of the word, as before.
//!
//! Why this excludes: the reader's increment and load and the writer's `WRITER` store, fence
//! and stripe loads are the store-buffering pattern with SeqCst on both sides, so at least one
//! side sees the other: either the reader sees `WRITER` and backs off, or the writer sees the
//! reader's count and waits for its decrement. A reader that increments after the writer saw
//! its stripe at 0 sees `WRITER`. Data visibility: the writer's unlock (Release) is read by the
//! reader's SeqCst load; the reader's decrement (Release) is read by the writer's SeqCst load.
//!
//! Waking: a writer that spun long enough sets the stripe's `PARKED` bit and sleeps on the
//! stripe word; the reader whose decrement brings the count to 0 with `PARKED` set clears it
//! and wakes every sleeper (same lost-wake-up argument as `sync.rs`).
//!
//! Thread rules (these make the protocol deadlock-free):
//! - a short read guard is held for one lookup: nothing that may wait (no lock, no
//!   blocking call) happens while it is held, and above all no [`DirLock::write`], which would wait for
//!   the thread's own stripe;
//! - a writer never holds a short read guard (same reason).
//!
//! Sections (a whole path walk under one increment): a [`Section`] raises the calling thread's
//! stripe count once and keeps it up while the walk reads several directories with
//! [`DirLock::read_in`], each after a SeqCst load of that directory's lock word finds no
//! `WRITER`. Exclusion is the same argument per directory: the increment precedes every later
//! word load in program order, so for each directory either the reader sees its writer or the
//! writer sees the increment and waits. Lifetime: an entry leaves a directory's map only under
//! that directory's write lock, whose writer waits for our stripe; so every `Arc<Inode>` read
//! from a map during the section keeps that map's reference until the section ends, and the
//! walk may borrow inodes instead of cloning them (no reference-count traffic). Rules: nothing
//! inside a section may wait (no `read`, `read_short` or `write` of any lock, only `try_`
//! acquisitions and loads); when `read_in` finds a writer the caller leaves the section and
//! takes a path that may wait.
//!
//! Checking: under the `shuttle` feature every lock also keeps an occupancy word (a writer
//! flag and a count of short readers inside) and asserts on entry that a short reader never
//! meets a writer and a writer never meets anyone; shuttle's scheduler switches threads at
//! every atomic, so `tests/shuttle.rs` explores the interleavings of the protocol above.

use crate::stripes::Stripes;
use crate::sync::{wait, wake_all, ReadGuard, RwLock, WriteGuard, SPINS};
use alloc::sync::Arc;
use core::ops::{Deref, DerefMut};
#[cfg(not(feature = "shuttle"))]
use core::sync::atomic::AtomicU32;
use core::sync::atomic::{fence, Ordering::*};
#[cfg(feature = "shuttle")]
use shuttle::sync::atomic::AtomicU32;

/// A writer may be asleep on the stripe word.
const PARKED: u32 = 1 << 31;

/// A directory's lock around its entries.
pub(crate) struct DirLock<T> {
    lock: RwLock<T>,
    /// The `Fs`'s stripes (shared by all its directories).
    stripes: Arc<Stripes>,
    #[cfg(feature = "shuttle")]
    occupancy: Occupancy,
}

impl<T> DirLock<T> {
    pub(crate) fn new(value: T, stripes: Arc<Stripes>) -> DirLock<T> {
        DirLock {
            lock: RwLock::new(value),
            stripes,
            #[cfg(feature = "shuttle")]
            occupancy: Occupancy(AtomicU32::new(0)),
        }
    }

    /// A short read: one lookup, nothing that waits while the guard lives (module doc).
    #[inline]
    pub(crate) fn read_short(&self) -> ShortRead<'_, T> {
        let readers = &self.stripes.mine().readers;
        readers.fetch_add(1, SeqCst);
        if !self.lock.is_write_locked() {
            #[cfg(feature = "shuttle")]
            self.occupancy.reader_enters();
            // SAFETY: our stripe count is up and no writer held the word after it was: any
            // writer now waits for our decrement before it touches the value (module doc).
            return ShortRead::Striped(unsafe { self.lock.data_unlocked() }, readers, self);
        }
        leave(readers);
        ShortRead::Counted(self.lock.read())
    }

    /// Opens a section on this lock's stripes (module doc): one increment for a whole walk.
    #[inline]
    pub(crate) fn section(&self) -> Section<'_> {
        let readers = &self.stripes.mine().readers;
        readers.fetch_add(1, SeqCst);
        Section {
            readers,
            stripes: &self.stripes,
            #[cfg(feature = "shuttle")]
            entered: core::cell::RefCell::new(alloc::vec::Vec::new()),
        }
    }

    /// The value, read inside `section`; None if a writer holds the lock (then the caller must
    /// leave the section before it waits for anything) or the section belongs to another `Fs`.
    #[inline]
    pub(crate) fn read_in<'s>(&'s self, section: &'s Section<'_>) -> Option<&'s T> {
        if !core::ptr::eq(&*self.stripes, section.stripes) || self.lock.is_write_locked() {
            return None;
        }
        #[cfg(feature = "shuttle")]
        {
            self.occupancy.reader_enters();
            section.entered.borrow_mut().push(&self.occupancy as *const Occupancy);
        }
        // SAFETY: the section's stripe count went up before this load of the word found no
        // writer: any writer now waits for the section to end before it touches the value, and
        // the returned borrow cannot outlive the section (module doc).
        Some(unsafe { self.lock.data_unlocked() })
    }

    /// A long read, counted in the lock word (scans; may take leaf locks).
    #[inline]
    pub(crate) fn read(&self) -> ReadGuard<'_, T> {
        self.lock.read()
    }

    /// Exclusive access: the `WRITER` bit, then every stripe drained.
    #[inline]
    pub(crate) fn write(&self) -> DirWriteGuard<'_, T> {
        let guard = self.lock.write();
        fence(SeqCst);
        for s in self.stripes.iter() {
            if s.readers.load(SeqCst) & !PARKED != 0 {
                drain(&s.readers);
            }
        }
        #[cfg(feature = "shuttle")]
        self.occupancy.writer_enters();
        DirWriteGuard { guard, _lock: self }
    }
}

/// Exclusive access; released on drop.
pub(crate) struct DirWriteGuard<'a, T> {
    guard: WriteGuard<'a, T>,
    _lock: &'a DirLock<T>,
}

impl<T> Deref for DirWriteGuard<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for DirWriteGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

#[cfg(feature = "shuttle")]
impl<T> Drop for DirWriteGuard<'_, T> {
    fn drop(&mut self) {
        self._lock.occupancy.writer_leaves();
    }
}

/// Shuttle only: who is inside, to assert mutual exclusion (module doc).
#[cfg(feature = "shuttle")]
struct Occupancy(AtomicU32);

#[cfg(feature = "shuttle")]
impl Occupancy {
    const WRITER_IN: u32 = 1 << 31;
    fn reader_enters(&self) {
        let prev = self.0.fetch_add(1, SeqCst);
        assert!(prev & Self::WRITER_IN == 0, "dir_lock: a short reader entered while a writer was inside");
    }
    fn reader_leaves(&self) {
        self.0.fetch_sub(1, SeqCst);
    }
    fn writer_enters(&self) {
        let prev = self.0.fetch_or(Self::WRITER_IN, SeqCst);
        assert!(prev == 0, "dir_lock: a writer entered while short readers or a writer were inside");
    }
    fn writer_leaves(&self) {
        self.0.fetch_and(!Self::WRITER_IN, SeqCst);
    }
}

/// Ends a short read on `readers`; wakes writers if it was the last one they wait for.
#[inline]
fn leave(readers: &AtomicU32) {
    if readers.fetch_sub(1, Release) == PARKED | 1 {
        wake_writers(readers);
    }
}

#[cold]
#[inline(never)]
fn wake_writers(readers: &AtomicU32) {
    readers.fetch_and(!PARKED, Relaxed);
    wake_all(readers);
}

/// Waits until the stripe's reader count has been seen at 0.
#[cold]
#[inline(never)]
fn drain(readers: &AtomicU32) {
    let mut spins = 0;
    loop {
        let s = readers.load(SeqCst);
        if s & !PARKED == 0 {
            return;
        }
        if spins < SPINS {
            spins += 1;
            core::hint::spin_loop();
            continue;
        }
        if s & PARKED == 0 && readers.compare_exchange_weak(s, s | PARKED, Relaxed, Relaxed).is_err() {
            continue;
        }
        wait(readers, s | PARKED);
    }
}

/// The calling thread's stripe count held up over several directory reads (module doc);
/// released on drop.
pub(crate) struct Section<'s> {
    readers: &'s AtomicU32,
    stripes: &'s Stripes,
    /// Shuttle only: the occupancy words entered by `read_in`, left on drop. Raw pointers: the
    /// locks read in a section outlive it (module doc).
    #[cfg(feature = "shuttle")]
    entered: core::cell::RefCell<alloc::vec::Vec<*const Occupancy>>,
}

impl Drop for Section<'_> {
    #[inline]
    fn drop(&mut self) {
        #[cfg(feature = "shuttle")]
        for o in self.entered.borrow_mut().drain(..) {
            // SAFETY: `o` is the occupancy word of a lock read in this section, alive until the
            // section ends (module doc).
            unsafe { (*o).reader_leaves() };
        }
        leave(self.readers);
    }
}

/// Shared access for one lookup; released on drop.
pub(crate) enum ShortRead<'a, T> {
    /// No writer: our stripe's count holds writers off.
    Striped(&'a T, &'a AtomicU32, &'a DirLock<T>),
    /// A writer was there: a counted read of the lock word.
    Counted(ReadGuard<'a, T>),
}

impl<T> Deref for ShortRead<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        match self {
            ShortRead::Striped(v, _, _) => v,
            ShortRead::Counted(g) => g,
        }
    }
}

impl<T> Drop for ShortRead<'_, T> {
    #[inline]
    fn drop(&mut self) {
        if let ShortRead::Striped(_, readers, _lock) = self {
            #[cfg(feature = "shuttle")]
            _lock.occupancy.reader_leaves();
            leave(readers);
        }
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn short_readers_and_writers_exclude() {
        let l = Arc::new(DirLock::new((0u64, 0u64), Arc::new(Stripes::new())));
        let hs: std::vec::Vec<_> = (0..4)
            .map(|i| {
                let l = l.clone();
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        if i % 2 == 0 {
                            let mut g = l.write();
                            g.0 += 1;
                            g.1 += 1;
                        } else {
                            let g = l.read_short();
                            assert_eq!(g.0, g.1);
                        }
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(l.read().0, 40_000);
        assert_eq!(l.read_short().1, 40_000);
    }
}
