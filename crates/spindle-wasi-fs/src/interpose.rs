//! The shape every interposed fd/path call shares, written once: [`wasi_call!`].
//!
//! An interposed call is a function named as in the WASI preview1 spec (`fd_read`,
//! `path_open`, ...) with wasi-libc's scalar signature, exported under the symbol wasi-libc
//! calls, `__imported_wasi_snapshot_preview1_<call>`. It routes by fd (`fds.rs`):
//! - a host fd goes unchanged to the host's own import of the same call (`host.rs`); the
//!   module build (`--cfg spindle_fs_module`) has no host world and no such arm;
//! - a spindle fd runs the call's body, which returns `Result<(), Errno>` (its results are
//!   written through the program's out-pointers), and the error becomes the program's errno
//!   (`errno.rs`).
//!
//! Calls that name two fds (`fd_renumber`, `path_rename`, `path_link`) route by both: host and
//! host is forwarded, spindle and spindle runs the body, and a mix answers the errno named
//! after `else` (`fds.rs` says why).

/// Defines one interposed WASI call (see the module doc). Forms:
///
/// ```text
/// wasi_call! {
///     /// What this call does beyond routing.
///     fn fd_read(fd: i32, iovs: i32, iovs_len: i32, nread: i32) routes fd => |f| { ... }
/// }
/// wasi_call! {
///     fn fd_renumber(fd: i32, to: i32) routes (fd, to) else Badf => |from, to| { ... }
/// }
/// ```
///
/// The body is a block evaluating to `Result<(), Errno>` (`?` works in it); `f` (or the pair)
/// is bound to spindle-fs's fd number(s). The arguments keep wasi-libc's order and types, and
/// the host's import is called with the same names, so `host.rs` must declare the call.
macro_rules! wasi_call {
    (
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) routes $fd:ident => |$f:ident| $body:block
    ) => {
        $(#[$attr])*
        ///
        /// # Safety
        /// WASI contract: every pointer argument is the program's, lent for the call.
        #[export_name = concat!("__imported_wasi_snapshot_preview1_", stringify!($name))]
        #[allow(clippy::too_many_arguments)] // the spec's signature
        // The module build has no forwarding arm, so an argument only the host needed is unused.
        #[cfg_attr(spindle_fs_module, allow(unused_variables))]
        // The body runs in a closure called at once: it gives `?` a function to return from.
        #[allow(clippy::redundant_closure_call)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> i32 {
            match $crate::fds::route($fd) {
                #[cfg(not(spindle_fs_module))]
                // SAFETY: a host fd: the program's arguments, forwarded verbatim to the host's
                // import of the same call.
                $crate::fds::Route::Host => unsafe { $crate::host::$name($($arg),*) },
                $crate::fds::Route::Spindle($f) => {
                    $crate::errno::ret((|| -> Result<(), spindle_fs::Errno> { $body })())
                }
            }
        }
    };
    (
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) routes ($fd1:ident, $fd2:ident) else $cross:ident
            => |$a:ident, $b:ident| $body:block
    ) => {
        $(#[$attr])*
        ///
        /// # Safety
        /// WASI contract: every pointer argument is the program's, lent for the call.
        #[export_name = concat!("__imported_wasi_snapshot_preview1_", stringify!($name))]
        #[allow(clippy::too_many_arguments)] // the spec's signature
        // The module build has no forwarding arm, so an argument only the host needed is unused.
        #[cfg_attr(spindle_fs_module, allow(unused_variables))]
        // The body runs in a closure called at once: it gives `?` a function to return from.
        #[allow(clippy::redundant_closure_call)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> i32 {
            use $crate::fds::{route, Route};
            match (route($fd1), route($fd2)) {
                #[cfg(not(spindle_fs_module))]
                // SAFETY: host fds: the program's arguments, forwarded verbatim to the host's
                // import of the same call.
                (Route::Host, Route::Host) => unsafe { $crate::host::$name($($arg),*) },
                (Route::Spindle($a), Route::Spindle($b)) => {
                    $crate::errno::ret((|| -> Result<(), spindle_fs::Errno> { $body })())
                }
                #[cfg(not(spindle_fs_module))]
                _ => $crate::errno::errno(spindle_fs::Errno::$cross),
            }
        }
    };
}

pub(crate) use wasi_call;
