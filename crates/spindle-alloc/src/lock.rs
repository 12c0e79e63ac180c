//! A spin lock for the rare, global paths (span pool, heap registry). Held for a few hundred
//! instructions at most; never held while calling out of the allocator. On wasm a blocking wait is
//! not allowed on the browser main thread, so this spins.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};

pub(crate) struct SpinLock<T> {
    locked: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the value is only reachable through a guard, and one guard exists at a time.
unsafe impl<T: Send> Sync for SpinLock<T> {}

pub(crate) struct Guard<'a, T> {
    lock: &'a SpinLock<T>,
}

impl<T> SpinLock<T> {
    pub(crate) const fn new(value: T) -> Self {
        SpinLock { locked: AtomicBool::new(false), value: UnsafeCell::new(value) }
    }

    #[inline]
    pub(crate) fn lock(&self) -> Guard<'_, T> {
        while self.locked.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            while self.locked.load(Ordering::Relaxed) {
                core::hint::spin_loop();
            }
        }
        Guard { lock: self }
    }
}

impl<T> core::ops::Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard proves exclusive access.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> core::ops::DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard proves exclusive access.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        self.locked_release();
    }
}

impl<T> Guard<'_, T> {
    fn locked_release(&self) {
        self.lock.locked.store(false, Ordering::Release);
    }
}
