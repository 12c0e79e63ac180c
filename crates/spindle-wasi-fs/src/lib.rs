//! spindle-wasi-fs: the in-program filesystem for wasm32-wasip1-threads, by static
//! interposition.
//!
//! wasi-libc (and through it Rust std) makes every WASI call through an undefined symbol named
//! `__imported_wasi_snapshot_preview1_<call>`. This crate DEFINES those symbols for every
//! filesystem call of preview1 (31 `fd_*`/`path_*` calls and `poll_oneoff`), so wasm-ld
//! resolves them here and emits no host import for them. Files then live in spindle-fs, in the
//! program's shared linear memory, and every thread reaches them directly, with no host call.
//!
//! - fds: host fds (`0 .. 2^30`: stdio, the host's preopens and what it opens) are forwarded to
//!   the host's real imports (`host.rs`, under this crate's own symbol names); spindle's fds are
//!   `2^30 + n` (`fds.rs`).
//! - Preopens: the host's stay where they are; spindle's memory mounts (default `/tmp`, or the
//!   comma-separated `SPINDLE_FS_MOUNTS`, or [`mount`]/`spindle_fs_mount()` at run time) are
//!   registered by a constructor (`api.rs`, `preopens.rs`) in the preopen table, which this crate also
//!   replaces: wasi-libc's locks on every path lookup (`libc_preopens.rs`).
//! - Threads: one [`spindle_fs::Fs`] for the process; its locks spin, or block in
//!   `memory.atomic.wait32` with the `wasm-wait` feature ([`set_can_wait`] tells it which
//!   threads may block).
//! - Allocation: through the program's global allocator (Rust: whatever the program uses; C:
//!   the archive's allocator shim calls `malloc`, i.e. wasi-libc's or spindle-alloc's).
//!
//! Use from Rust: depend on this crate and write `use spindle_wasi_fs as _;` once (the crate
//! must be linked for its symbols to exist). From C: link `libspindle-fs.a` or `libspindle.a`
//! (crate `spindle-wasi-fs-c`). Check the result with `spindle check prog.wasm`.
//!
//! # Layers
//!
//! Each module uses only modules on lower lines of this table (no module uses one on its own
//! line); `tools/check-crate-layers.mjs` checks every `crate::` path in `src/`, in the test command.
//!
//! ```text
//! fd_calls path_calls poll api   entry points: the interposed calls; the program's API, constructor
//! opfs_tasks                     OPFS work outside fs calls: exit flush, idle write-back thread
//! state                          the process's Fs, created on first use, and its clock
//! preopens                       start-up mounts; spindle's preopens waiting for the preopen table
//! opfs libc_preopens             OPFS mounts (side table, hooks); the preopen table without lock
//! interpose opfs_host opfs_path wasmtime   the call macro; OPFS imports, paths; wasmtime's answers
//! errno fds host mem spin        errnos, the fd scheme, the host's imports, program memory, a lock
//! ```
//!
//! So the filesystem is reached through `state::fs()` from the entry points (and from OPFS
//! work outside fs calls) only; everything below `state` is handed the `Fs` it works on.
//! On targets other than wasm32 only `fds` and `opfs_path` compile (for unit tests).
//!
//! **Module build** (`RUSTFLAGS=--cfg spindle_fs_module`, used only by crates/spindle-fs-module):
//! the same `fd_calls`/`path_calls` become the exports of a standalone filesystem module that
//! the runtime instantiates in every worker. There is no host world then: every fd is
//! spindle-fs's own number, `host`, `api`, `preopens`, `libc_preopens` and `poll` are not
//! compiled, the module imports
//! only its clock (`spindle_fs.now`), and its host creates the mounts.

#![no_std]
#![cfg_attr(all(target_arch = "wasm32", feature = "weak-preopens"), feature(linkage))]
#![deny(unsafe_op_in_unsafe_fn)]

extern crate alloc;

#[cfg(all(target_arch = "wasm32", not(spindle_fs_module)))]
mod api;
#[cfg(target_arch = "wasm32")]
mod errno;
#[cfg(target_arch = "wasm32")]
mod fd_calls;
pub mod fds;
#[cfg(all(target_arch = "wasm32", not(spindle_fs_module)))]
mod host;
#[cfg(target_arch = "wasm32")]
mod interpose;
#[cfg(all(target_arch = "wasm32", not(spindle_fs_module)))]
mod libc_preopens;
/// Pointer checks and struct encoding (public for crates/spindle-fs-module).
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod mem;
/// OPFS-backed mounts (browser): the side table and hooks; `opfs_host` its imports,
/// `opfs_tasks` the work outside fs calls.
#[cfg(target_arch = "wasm32")]
mod opfs;
#[cfg(target_arch = "wasm32")]
mod opfs_host;
#[cfg(any(test, target_arch = "wasm32"))]
mod opfs_path;
#[cfg(target_arch = "wasm32")]
mod opfs_tasks;
#[cfg(target_arch = "wasm32")]
mod path_calls;
#[cfg(all(target_arch = "wasm32", not(spindle_fs_module)))]
mod poll;
#[cfg(all(target_arch = "wasm32", not(spindle_fs_module)))]
mod preopens;
#[cfg(target_arch = "wasm32")]
mod spin;
#[cfg(target_arch = "wasm32")]
mod state;
#[cfg(all(target_arch = "wasm32", spindle_fs_module))]
mod wasmtime;

#[cfg(all(target_arch = "wasm32", not(spindle_fs_module)))]
pub use api::{mount, spindle_fs_mount, spindle_fs_set_can_wait};
/// The WASI errno value of an error, and of a result (module build: its host reads these).
#[cfg(target_arch = "wasm32")]
pub use errno::{errno, ret};
pub use fds::FD_BASE;
/// Module build with OPFS (opfs.rs): a mount whose OPFS directory the host loaded, the exit
/// flush of files still open, the idle write-back scan and its period.
#[cfg(all(target_arch = "wasm32", spindle_fs_module, feature = "opfs"))]
pub use opfs::{
    flush_idle as opfs_flush_idle, flush_open as opfs_flush_open, mount_loaded as opfs_mount_loaded,
    IDLE_TICK_MS as OPFS_IDLE_TICK_MS,
};
pub use spindle_fs::set_can_wait;
#[cfg(target_arch = "wasm32")]
pub use state::fs;
