//! The crate's only lock primitive: a reader-writer lock on one 32-bit word, spin-then-wait,
//! with every platform wait behind [`wait`]/[`wake_all`] in this module.
//!
//! State word: bit 31 `WRITER` (held exclusively), bit 30 `PARKED` (someone may be asleep on the
//! word), bits 0..30 the reader count. Invariants: `WRITER` set => reader count == 0; a thread
//! only sleeps on the word after it has seen `PARKED` set in the value it sleeps on, and every
//! release that observes `PARKED` clears it and wakes all sleepers, so no wake-up is lost.
//! Readers do not yield to waiting writers (no writer preference): a sleeping writer is woken
//! whenever the last reader leaves.
//!
//! Waiting, per platform:
//! - Linux natively: the `futex` syscall (private), via the `libc` crate (no std).
//! - wasm32 with atomics and the `wasm-wait` feature (nightly or `RUSTC_BOOTSTRAP`):
//!   `memory.atomic.wait32`/`notify`, but only when [`set_can_wait`]'s hook says the calling
//!   thread may block (the browser main thread may not); otherwise a bounded-backoff spin.
//! - everything else (wasm32 without the feature, other OSes): bounded-backoff spin. Never
//!   blocks, so it is always correct, only wasteful under long contention.
//! - the `shuttle` feature: shuttle's atomics and `yield_now`, so the checker explores the
//!   interleavings of this lock and of the protocols built on it.
//!
//! `dir_lock.rs` builds the directory lock on this one: its writers take this lock's `WRITER`
//! bit and then wait for the reader stripes, with the same [`wait`]/[`wake_all`].
//!
//! Thread rules: guards are not `Send`-restricted by the type system beyond `T: Send/Sync`;
//! never hold a guard across a call back into the [`crate::Fs`] (the lock order lives in
//! `fs.rs`).

use core::cell::UnsafeCell;
use core::ops::{Deref, DerefMut};
#[cfg(not(feature = "shuttle"))]
use core::sync::atomic::AtomicU32;
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
#[cfg(feature = "shuttle")]
use shuttle::sync::atomic::AtomicU32;

const WRITER: u32 = 1 << 31;
const PARKED: u32 = 1 << 30;
const READERS: u32 = PARKED - 1;
/// Spins before a thread parks: a critical section in this crate is a few hundred ns.
pub(crate) const SPINS: u32 = if cfg!(feature = "shuttle") { 0 } else { 100 };

/// A reader-writer lock around a value.
pub(crate) struct RwLock<T: ?Sized> {
    state: AtomicU32,
    data: UnsafeCell<T>,
}

// SAFETY: the state word gives shared access only to readers (needs T: Sync) and exclusive
// access to one writer at a time (needs T: Send to move the value between threads).
unsafe impl<T: ?Sized + Send> Send for RwLock<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}

impl<T> RwLock<T> {
    pub(crate) fn new(value: T) -> Self {
        RwLock { state: AtomicU32::new(0), data: UnsafeCell::new(value) }
    }
}

impl<T: ?Sized> RwLock<T> {
    #[inline]
    pub(crate) fn read(&self) -> ReadGuard<'_, T> {
        let s = self.state.load(Relaxed);
        if s & WRITER != 0
            || s & READERS >= READERS - 1
            || self.state.compare_exchange_weak(s, s + 1, Acquire, Relaxed).is_err()
        {
            self.lock_slow(false);
        }
        ReadGuard { lock: self }
    }

    /// A read lock if one can be had without waiting (for code that must not wait, such as
    /// `dir_lock.rs`'s sections).
    #[inline]
    pub(crate) fn try_read(&self) -> Option<ReadGuard<'_, T>> {
        let s = self.state.load(Relaxed);
        if s & WRITER != 0
            || s & READERS >= READERS - 1
            || self.state.compare_exchange(s, s + 1, Acquire, Relaxed).is_err()
        {
            return None;
        }
        Some(ReadGuard { lock: self })
    }

    #[inline]
    pub(crate) fn write(&self) -> WriteGuard<'_, T> {
        if self.state.compare_exchange_weak(0, WRITER, Acquire, Relaxed).is_err() {
            self.lock_slow(true);
        }
        WriteGuard { lock: self }
    }

    #[cold]
    #[inline(never)]
    fn lock_slow(&self, write: bool) {
        let mut spins = 0;
        loop {
            let s = self.state.load(Relaxed);
            let free = if write {
                s & (WRITER | READERS) == 0
            } else {
                s & WRITER == 0 && s & READERS < READERS - 1
            };
            if free {
                let next = if write { s | WRITER } else { s + 1 };
                if self.state.compare_exchange_weak(s, next, Acquire, Relaxed).is_ok() {
                    return;
                }
                continue;
            }
            if spins < SPINS {
                spins += 1;
                core::hint::spin_loop();
                continue;
            }
            if s & PARKED == 0 && self.state.compare_exchange_weak(s, s | PARKED, Relaxed, Relaxed).is_err() {
                continue;
            }
            wait(&self.state, s | PARKED);
        }
    }

    /// True while a writer holds the lock. SeqCst: `dir_lock.rs` pairs this load with a
    /// reader's stripe increment (the store-buffering pattern; see its module doc).
    #[inline]
    pub(crate) fn is_write_locked(&self) -> bool {
        self.state.load(SeqCst) & WRITER != 0
    }

    /// The value, without locking.
    ///
    /// # Safety
    /// The caller must guarantee that no writer holds the lock for the lifetime of the borrow
    /// (`dir_lock.rs` does so with its reader stripes).
    #[inline]
    pub(crate) unsafe fn data_unlocked(&self) -> &T {
        // SAFETY: no `&mut T` exists while no writer holds the lock (the caller's contract).
        unsafe { &*self.data.get() }
    }

    #[inline]
    fn read_unlock(&self) {
        let prev = self.state.fetch_sub(1, Release);
        if prev & READERS == 1 && prev & PARKED != 0 {
            self.wake_slow();
        }
    }

    #[inline]
    fn write_unlock(&self) {
        let prev = self.state.swap(0, Release);
        if prev & PARKED != 0 {
            wake_all(&self.state);
        }
    }

    #[cold]
    #[inline(never)]
    fn wake_slow(&self) {
        self.state.fetch_and(!PARKED, Relaxed);
        wake_all(&self.state);
    }
}

/// Shared access; released on drop.
pub(crate) struct ReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
}

impl<T: ?Sized> Deref for ReadGuard<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: a read guard exists only while the reader count includes it, so no writer
        // holds `&mut T`.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for ReadGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.lock.read_unlock();
    }
}

/// Exclusive access; released on drop.
pub(crate) struct WriteGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
}

impl<T: ?Sized> Deref for WriteGuard<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: the WRITER bit is ours: nobody else reads or writes the value.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for WriteGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` makes this the only live borrow.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for WriteGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.lock.write_unlock();
    }
}

/// A mutual-exclusion lock: the write half of [`RwLock`].
pub(crate) struct Mutex<T: ?Sized>(RwLock<T>);

impl<T> Mutex<T> {
    pub(crate) fn new(value: T) -> Self {
        Mutex(RwLock::new(value))
    }
}

impl<T: ?Sized> Mutex<T> {
    #[inline]
    pub(crate) fn lock(&self) -> WriteGuard<'_, T> {
        self.0.write()
    }
}

// ---- waiting policy -------------------------------------------------------------------------

static CAN_WAIT: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// Installs the hook that tells whether the calling thread may block (wasm: the browser main
/// thread may not). Without a hook every thread may block where the platform can block.
pub fn set_can_wait(hook: fn() -> bool) {
    CAN_WAIT.store(hook as usize, Relaxed);
}

/// Whether the calling thread may block (the hook's answer; true without a hook).
#[cfg(not(feature = "shuttle"))]
fn can_wait() -> bool {
    let h = CAN_WAIT.load(Relaxed);
    if h == 0 {
        return true;
    }
    // SAFETY: only `set_can_wait` stores a non-zero value, and it stores a `fn() -> bool`.
    let f: fn() -> bool = unsafe { core::mem::transmute::<usize, fn() -> bool>(h) };
    f()
}

/// A bounded backoff for threads that must not block: spins grow to a cap, never to a sleep.
#[cfg(not(feature = "shuttle"))]
fn backoff_spin(word: &AtomicU32, expected: u32) {
    let mut n = 1u32;
    while word.load(Relaxed) == expected && n < 1 << 10 {
        for _ in 0..n {
            core::hint::spin_loop();
        }
        n <<= 1;
    }
}

/// Sleeps while `*word == expected` (may return spuriously): the platform's wait where it has
/// one and the calling thread may block, else a bounded-backoff spin.
#[cfg(not(feature = "shuttle"))]
pub(crate) fn wait(word: &AtomicU32, expected: u32) {
    // `CAN_BLOCK` first: a platform without a wait never asks the hook.
    if platform::CAN_BLOCK && can_wait() {
        platform::block(word, expected);
    } else {
        backoff_spin(word, expected);
    }
}

/// Wakes every thread sleeping on `word`.
#[cfg(not(feature = "shuttle"))]
pub(crate) fn wake_all(word: &AtomicU32) {
    platform::wake_all(word);
}

/// Under shuttle: a yield, so the checker schedules another thread.
#[cfg(feature = "shuttle")]
pub(crate) fn wait(_word: &AtomicU32, _expected: u32) {
    shuttle::thread::yield_now();
}
#[cfg(feature = "shuttle")]
pub(crate) fn wake_all(_word: &AtomicU32) {}

/// Linux natively: the futex syscall.
#[cfg(all(not(feature = "shuttle"), target_os = "linux"))]
mod platform {
    use core::sync::atomic::AtomicU32;

    pub(super) const CAN_BLOCK: bool = true;

    pub(super) fn block(word: &AtomicU32, expected: u32) {
        // SAFETY: FUTEX_WAIT reads the aligned u32 behind `word`, which lives as long as the
        // lock that owns it (we hold `&self`); a null timeout means "until woken or value
        // changed".
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word as *const AtomicU32,
                libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                expected,
                core::ptr::null::<libc::timespec>(),
            );
        }
    }

    pub(super) fn wake_all(word: &AtomicU32) {
        // SAFETY: FUTEX_WAKE only uses the address as a key.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word as *const AtomicU32,
                libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                i32::MAX,
            );
        }
    }
}

/// wasm32 with atomics and the `wasm-wait` feature: `memory.atomic.wait32`/`notify`.
#[cfg(all(
    not(feature = "shuttle"),
    target_arch = "wasm32",
    target_feature = "atomics",
    feature = "wasm-wait"
))]
mod platform {
    use core::sync::atomic::AtomicU32;

    pub(super) const CAN_BLOCK: bool = true;

    pub(super) fn block(word: &AtomicU32, expected: u32) {
        // SAFETY: `word` is an aligned i32 in linear memory for the duration of the call.
        unsafe {
            core::arch::wasm32::memory_atomic_wait32(word.as_ptr() as *mut i32, expected as i32, -1);
        }
    }

    pub(super) fn wake_all(word: &AtomicU32) {
        // SAFETY: notify only uses the address as a key.
        unsafe {
            core::arch::wasm32::memory_atomic_notify(word.as_ptr() as *mut i32, u32::MAX);
        }
    }
}

/// Everything else (wasm32 without the feature, other OSes): no wait, so nobody sleeps and
/// nobody needs waking.
#[cfg(all(
    not(feature = "shuttle"),
    not(target_os = "linux"),
    not(all(target_arch = "wasm32", target_feature = "atomics", feature = "wasm-wait"))
))]
mod platform {
    use core::sync::atomic::AtomicU32;

    pub(super) const CAN_BLOCK: bool = false;

    /// Never called (`CAN_BLOCK` is false).
    pub(super) fn block(_word: &AtomicU32, _expected: u32) {}

    pub(super) fn wake_all(_word: &AtomicU32) {}
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    extern crate std;
    use super::*;
    use alloc::sync::Arc;

    #[test]
    fn readers_share_writers_exclude() {
        let l = RwLock::new(0u64);
        {
            let a = l.read();
            let b = l.read();
            assert_eq!(*a + *b, 0);
        }
        *l.write() += 1;
        assert_eq!(*l.read(), 1);
    }

    #[test]
    fn contended_counter() {
        let l = Arc::new(Mutex::new(0u64));
        let hs: std::vec::Vec<_> = (0..4)
            .map(|_| {
                let l = l.clone();
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        *l.lock() += 1;
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(*l.lock(), 80_000);
    }

    #[test]
    fn mixed_readers_writers() {
        let l = Arc::new(RwLock::new((0u64, 0u64)));
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
                            let g = l.read();
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
    }
}
