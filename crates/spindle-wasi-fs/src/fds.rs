//! The fd number scheme: which world (host or spindle) an fd belongs to.
//!
//! Two fd tables exist side by side and never share a number:
//! - **host fds** are `0 .. FD_BASE`: stdio (0-2), the host's preopens (3..) and everything the
//!   host opens beneath them. They pass through unchanged to the host's imports.
//! - **spindle fds** are `FD_BASE + n`, where `n` is the number in spindle-fs's own table
//!   (which starts at 3). `FD_BASE` is 2^30, so both ranges are positive C `int`s and a host
//!   would need a billion open fds to collide.
//!
//! Routing is one comparison, so forwarding costs nothing on the stdio path. A negative fd (as
//! u32 above 2^31) routes to spindle, whose table answers EBADF.
//!
//! Calls that name two fds (`path_rename`, `path_link`) across the two worlds answer EXDEV
//! (they are different devices); `fd_renumber` across them answers EBADF (a number of one world
//! cannot be given to the other; wasi-libc only renumbers within one).
//!
//! **Module build** (`--cfg spindle_fs_module`, crates/spindle-fs-module): there is no host world;
//! the module's callers (the runtime) keep their own fd table and hand spindle-fs's fd numbers in
//! unchanged, so every fd routes to spindle as itself and `Route::Host` does not exist.

// Only the wasm32 build routes calls; natively the scheme is compiled for its unit test.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use spindle_fs::Fd;

/// First spindle fd number.
pub const FD_BASE: u32 = 1 << 30;

/// Where a guest fd lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    #[cfg(not(spindle_fs_module))]
    Host,
    Spindle(Fd),
}

/// Classifies a guest fd.
#[cfg(not(spindle_fs_module))]
#[inline(always)]
pub(crate) fn route(fd: i32) -> Route {
    let fd = fd as u32;
    if fd < FD_BASE {
        Route::Host
    } else {
        Route::Spindle(fd - FD_BASE)
    }
}

/// The guest number of spindle-fs's fd `n`.
#[cfg(not(spindle_fs_module))]
#[inline(always)]
pub(crate) fn guest(n: Fd) -> i32 {
    (FD_BASE + n) as i32
}

/// Module build: every fd is spindle-fs's own number.
#[cfg(spindle_fs_module)]
#[inline(always)]
pub(crate) fn route(fd: i32) -> Route {
    Route::Spindle(fd as u32)
}

/// Module build: spindle-fs's numbers are the caller's.
#[cfg(spindle_fs_module)]
#[inline(always)]
pub(crate) fn guest(n: Fd) -> i32 {
    n as i32
}

#[cfg(all(test, not(spindle_fs_module)))]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(route(0), Route::Host);
        assert_eq!(route((FD_BASE - 1) as i32), Route::Host);
        assert_eq!(route(guest(3)), Route::Spindle(3));
        assert!(matches!(route(-1), Route::Spindle(n) if n >= FD_BASE));
    }
}
