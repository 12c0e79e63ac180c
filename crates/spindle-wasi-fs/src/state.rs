//! The one process-wide [`Fs`] and its lazy initialisation.
//!
//! **Initialisation** happens once, on the first call that needs the filesystem (or the
//! interposition build's constructor, `api.rs`), whichever comes first; concurrent callers
//! spin until it is done (in a program it runs on the main thread in `_start` before threads
//! exist, so nobody really waits). It creates the `Fs` with the clock below and, in the
//! interposition build, mounts the start-up memory directories (`preopens::mount_initial`). The
//! module build (crates/spindle-fs-module) starts with no mount: its host creates them.
//!
//! **Clock** for timestamps: the host's WASI realtime clock (interposition build), or the
//! module's `spindle_fs.now` import, wall-clock nanoseconds as an integral f64 (module build: a
//! BigInt result would cost an allocation per call on the JS side).
//!
//! Thread rules: `STATE` goes 0 -> 1 (initialising) -> 2 (ready) once; `FS` is written only
//! between 0 -> 1 and 1 -> 2 by the thread that won the 0 -> 1 race, and read only after seeing
//! 2 with Acquire.

use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU32, Ordering::*};
use spindle_fs::Fs;

const UNINIT: u32 = 0;
const BUSY: u32 = 1;
const READY: u32 = 2;

static STATE: AtomicU32 = AtomicU32::new(UNINIT);

struct Global(UnsafeCell<MaybeUninit<Fs>>);
// SAFETY: written once before READY is published (Release), read only after READY (Acquire);
// `Fs` itself is Sync.
unsafe impl Sync for Global {}
static FS: Global = Global(UnsafeCell::new(MaybeUninit::uninit()));

/// The filesystem, initialised on first use.
#[inline(always)]
pub fn fs() -> &'static Fs {
    if STATE.load(Acquire) != READY {
        init_slow();
    }
    // SAFETY: READY was observed with Acquire (here or in init_slow), so FS is initialised and
    // never written again.
    unsafe { (*FS.0.get()).assume_init_ref() }
}

#[cold]
#[inline(never)]
fn init_slow() {
    if STATE.compare_exchange(UNINIT, BUSY, Acquire, Acquire).is_ok() {
        let fs = Fs::new(now);
        #[cfg(not(spindle_fs_module))]
        crate::preopens::mount_initial(&fs);
        // SAFETY: we own the BUSY state; nobody reads FS before READY.
        unsafe { (*FS.0.get()).write(fs) };
        STATE.store(READY, Release);
        return;
    }
    while STATE.load(Acquire) != READY {
        core::hint::spin_loop();
    }
}

/// The clock for timestamps: the host's realtime clock.
#[cfg(not(spindle_fs_module))]
fn now() -> u64 {
    let mut t = 0u64;
    // SAFETY: `t` is a valid out-pointer for the call.
    let e = unsafe { crate::host::clock_time_get(0, 1000, &mut t as *mut u64 as i32) };
    if e == 0 {
        t
    } else {
        0
    }
}

#[cfg(spindle_fs_module)]
#[link(wasm_import_module = "spindle_fs")]
extern "C" {
    /// Wall-clock nanoseconds since the Unix epoch, an integral f64 (the module's host).
    #[link_name = "now"]
    fn host_now() -> f64;
}

/// The clock for timestamps: the module host's realtime clock.
#[cfg(spindle_fs_module)]
fn now() -> u64 {
    // SAFETY: the import has no preconditions; `as` saturates a bad value into range.
    unsafe { host_now() as u64 }
}
