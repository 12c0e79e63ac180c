//! spindle-fs: a concurrent POSIX/WASI preview1 filesystem core, `no_std + alloc`.
//!
//! One [`Fs`] holds the mount table, the inode tree and the process-wide fd table; every
//! thread calls it directly (`&Fs` is `Sync`). Operations are named after the WASI preview1
//! calls they serve and return `Result<T, Errno>` with WASI's errno values, so a WASI shim is a
//! thin layer that copies buffers and encodes structs.
//!
//! ```
//! use spindle_fs::{Fs, oflags, rights};
//! let fs = Fs::new(|| 0);
//! let root = fs.preopen(b"/tmp").unwrap();
//! let fd = fs.path_open(root, 0, b"hello.txt", oflags::CREAT, rights::ALL, 0, 0).unwrap();
//! fs.fd_write(fd, &[b"hi"]).unwrap();
//! assert_eq!(fs.fd_filestat_get(fd).unwrap().size, 2);
//! fs.fd_close(fd).unwrap();
//! ```
//!
//! # Layers
//!
//! One file per concept. Each module uses only modules on lower lines of this table (no module
//! uses one on its own line, except the two halves of the tree, joined by `+`: an inode may be
//! a directory, whose entries are inodes); `tools/check-crate-layers.mjs` checks every `crate::` path
//! in `src/`, in the test command.
//!
//! ```text
//! check                 the invariant scanner (tests and the fuzzer)
//! path_ops rename tar   the path calls, rename, tar snapshots (more `impl Fs`)
//! fs                    the Fs value and the fd calls; **the lock order**
//! fd_table path         the process-wide fd table (per-slot locks, pinned preopens); confined paths
//! dir+inode             the tree: nodes; directory entries and readdir cookies
//! dir_lock file mount   the directory lock (readers write only their stripe); file data; mounts
//! dir_index stripes sync errno types   a directory's name hash table; per-thread state without
//!                       TLS; the lock and the platform wait; the error enum; WASI constants, structs
//! ```
//!
//! # Intentional differences from Linux
//! The model test (`tests/model.rs`) runs random operation sequences here and on Linux (tmpfs)
//! and requires equal results and errnos except for these:
//! - Paths are confined to the directory fd they are relative to (WASI/cap-std): `..` above it,
//!   absolute paths and absolute symlink targets are ENOTCAPABLE, where Linux would resolve.
//! - Permission bits are stored (stat, tar) but never enforced (the guest is one user); a
//!   read-only mount is EROFS for every write, O_TRUNC included.
//! - `path_open` with O_CREAT|O_DIRECTORY is always EINVAL (as Linux >= 6.4).
//! - Directory `size` is the number of entries (tmpfs reports bytes); `fd_readdir` lists `.` and
//!   `..` first, then entries in name-hash order (stable cookies; tmpfs uses creation order).
//! - atime is not updated by reads (like `noatime`); the clock is the caller's.
//! - A write or truncation *marks* mtime/ctime for update (POSIX's wording) and the clock is
//!   read when the mark is resolved: before any stat of the file, on fsync, before setting
//!   times, on closing an fd of it, before a tar export. Linux stamps at each write; here
//!   stat may show a later time (never an earlier one), and a thousand writes read the clock
//!   once (on wasm each clock read is a host call).
//! - Paths are bytes: non-UTF-8 names are accepted (the WASI shim may refuse them with
//!   EILSEQ as wasmtime does); a NUL byte is EINVAL.
//! - As on Linux, `fd_pwrite` on an O_APPEND fd appends.
//! - A new fd is the lowest free number at or above the calling thread's search hint
//!   (`fd_table.rs`): one thread gets POSIX's lowest free number, several threads need not
//!   (WASI does not promise it); inode numbers come from per-thread batches, as on tmpfs.
//! - A preopen's description (and so its directory) is freed with the `Fs`, not when its fd is
//!   closed (another thread's path call may still be using it without a reference count).
//! - tar export stores mtimes in whole seconds (import reads pax fractions).
//!
//! # Tests
//! `cargo test -p spindle-fs --release` runs unit, sandbox, model (`SPINDLE_MODEL_CASES`), stress
//! (`SPINDLE_STRESS_ITERS`) and tar tests; `--features shuttle --test shuttle` runs the
//! concurrency checker; `crates/spindle-fs/fuzz` holds the cargo-fuzz target;
//! `cargo run --release -p spindle-fs --example bench` the native benchmark.

#![no_std]
#![cfg_attr(feature = "wasm-wait", feature(stdarch_wasm_atomic_wait))]

extern crate alloc;
#[cfg(any(test, feature = "shuttle"))]
extern crate std;

mod check;
mod dir;
mod dir_index;
mod dir_lock;
mod errno;
mod fd_table;
mod file;
mod fs;
mod inode;
mod mount;
mod path;
mod path_ops;
mod rename;
mod stripes;
mod sync;
mod tar;
mod types;

pub use errno::{Errno, Result};
pub use fs::Fs;
pub use sync::set_can_wait;
pub use types::{
    fdflags, fstflags, lookupflags, oflags, rights, write_dirents, Clock, Dirent, Fd, Fdstat, FileType,
    Filestat, IoSlice, IoSliceMut, Prestat, Timestamp, Whence, DIRENT_SIZE,
};
