//! Interposition build only: a spin lock for the rare writers of start-up state (the preopen
//! table, the list of preopens waiting to be registered). Held for a few instructions; it spins
//! rather than blocks because any thread may take it, a browser main thread included.

use core::sync::atomic::{AtomicBool, Ordering::*};

pub(crate) struct SpinLock(AtomicBool);

impl SpinLock {
    pub(crate) const fn new() -> SpinLock {
        SpinLock(AtomicBool::new(false))
    }

    pub(crate) fn lock(&self) {
        while self.0.compare_exchange_weak(false, true, Acquire, Relaxed).is_err() {
            core::hint::spin_loop();
        }
    }

    pub(crate) fn unlock(&self) {
        self.0.store(false, Release);
    }
}
