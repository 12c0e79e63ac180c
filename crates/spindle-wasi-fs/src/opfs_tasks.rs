//! OPFS work that runs outside any fs call, on the process's [`spindle_fs::Fs`] (`state.rs`):
//! the exit flush and the idle write-back thread of the in-program FS (`opfs.rs` has the
//! scans). Only the interposition build with the `opfs` feature has them; elsewhere these are
//! no-ops: without the feature nothing is ever written back, and the module build's host runs
//! both itself (runtime/src/thread.ts calls the exit flush export, the idle worker
//! runtime/src/fs/opfs-idle-worker.ts the idle scan).

#[cfg(all(feature = "opfs", not(spindle_fs_module)))]
pub(crate) use in_program::{register_exit_flush, start_idle};

#[cfg(all(feature = "opfs", not(spindle_fs_module)))]
mod in_program {
    use crate::opfs;
    use crate::state::fs;
    use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

    extern "C" {
        fn atexit(f: extern "C" fn()) -> i32;
        fn pthread_create(
            t: *mut usize,
            attr: *const u8,
            f: extern "C" fn(*mut u8) -> *mut u8,
            arg: *mut u8,
        ) -> i32;
        fn pthread_detach(t: usize) -> i32;
        fn usleep(us: u32) -> i32;
    }

    /// Registers [`opfs::flush_open`] with wasi-libc's `atexit`, which runs on `exit()` and
    /// when `main` returns (`__wasm_call_dtors` in `_start`); `proc_exit` called directly and
    /// traps skip it: crash semantics. Called once, by the start-up constructor, when a
    /// start-up mount is an OPFS mount.
    pub(crate) fn register_exit_flush() {
        // SAFETY: `flush` is a plain C-ABI function that lives for the whole program.
        unsafe { atexit(flush) };
    }

    extern "C" fn flush() {
        opfs::flush_open(fs());
    }

    static STARTED: AtomicBool = AtomicBool::new(false);

    /// Starts the idle write-back thread, once: called when an fd that can change a file on
    /// an OPFS mount is opened. It sleeps [`opfs::IDLE_TICK_MS`] (usleep: the host's clock
    /// wait, on its own worker) and scans. If no thread can be started (the pool is full),
    /// there is no idle write-back; close, fsync and exit still write back. `main` returning
    /// or `exit` ends it with the program.
    pub(crate) fn start_idle() {
        if STARTED.load(Relaxed) || STARTED.swap(true, Relaxed) {
            return;
        }
        let mut t = 0usize;
        // SAFETY: `t` is a valid out-pointer; null attributes are the defaults; `idle` takes
        // no argument and never returns.
        if unsafe { pthread_create(&mut t, core::ptr::null(), idle, core::ptr::null_mut()) } == 0 {
            // SAFETY: `t` is the thread just created, detached once.
            unsafe { pthread_detach(t) };
        }
    }

    extern "C" fn idle(_: *mut u8) -> *mut u8 {
        loop {
            // SAFETY: usleep has no preconditions.
            unsafe { usleep(opfs::IDLE_TICK_MS * 1000) };
            opfs::flush_idle(fs());
        }
    }
}

/// Without the in-program OPFS build: nothing to register (see the module doc).
#[cfg(all(not(feature = "opfs"), not(spindle_fs_module)))]
pub(crate) fn register_exit_flush() {}

/// Without the in-program OPFS build: no thread (see the module doc).
#[cfg(not(all(feature = "opfs", not(spindle_fs_module))))]
#[inline(always)]
pub(crate) fn start_idle() {}
