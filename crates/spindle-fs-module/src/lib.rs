//! spindle-fs-module: spindle-fs built as its own Wasm module on its own shared memory — the
//! runtime's filesystem for programs that did NOT link the in-program filesystem.
//!
//! The runtime (runtime/src/fs/memfs.ts) creates one shared `WebAssembly.Memory`, instantiates
//! this module once on every thread of a program (the creating thread and each worker) on that
//! memory, and serves the program's WASI fs calls by copying arguments into the calling thread's
//! scratch area here, calling the export on the SAME thread, and copying results back. There is
//! no proxy thread: instances share the one [`spindle_fs::Fs`] in the shared memory, and its
//! locks make concurrent calls from all threads safe.
//!
//! Exports (all return a WASI errno unless said otherwise):
//! - the 31 fd/path calls of preview1 under wasi-libc's names
//!   (`__imported_wasi_snapshot_preview1_<call>`, defined by spindle-wasi-fs built with
//!   `--cfg spindle_fs_module`), taking pointers into THIS module's memory and spindle-fs's
//!   own fd numbers;
//! - `thread.rs`: per-instance set-up and tear-down (`spindle_fs_thread_init/_exit`), plus the
//!   linker's `__stack_pointer`, `__wasm_init_tls`, `__tls_size`, `__tls_align` with which the
//!   host gives each instance its own shadow stack and TLS block;
//! - `host_api.rs`: mounts (memory, and OPFS with the `opfs` feature), tar import/export,
//!   and a malloc for buffers larger than scratch.
//!
//! Imports: `env.memory` (shared), `spindle_fs.now` (wall clock, ns as f64),
//! `spindle_fs.warn` (a fatal message for stderr before a trap) and, with the `opfs` feature
//! (tools/build-fs-module.sh always has it), `spindle_opfs.*` (runtime/src/fs/opfs-imports.ts;
//! called only for fds on OPFS mounts). No WASI.
//!
//! Memory layout: `[0, 16 KiB)` the linker's stack (unused: every instance gets its own), then
//! static data (run once by the first instance's start function, `__wasm_init_memory`, which
//! later instances skip), then the heap (spindle-alloc, `memory.grow`). The host grows the
//! memory itself for the per-instance regions (stack + TLS + scratch); spindle-alloc copes with
//! growth it did not do.
//!
//! # Layers
//!
//! The three modules use none of each other (`tools/check-crate-layers.mjs` checks it); all of them
//! sit on spindle-wasi-fs (the calls, `fs()`, `mem`), spindle-fs and spindle-alloc.
//!
//! ```text
//! host_api libc_shim thread   the host's extra exports; the C functions Rust needs; per-instance state
//! ```
//!
//! Built by tools/build-fs-module.sh (nightly features through RUSTC_BOOTSTRAP=1:
//! `#[thread_local]`, `memory.atomic.wait32`). On other targets the crate is empty.

#![cfg_attr(target_arch = "wasm32", no_std)]
#![cfg_attr(target_arch = "wasm32", feature(thread_local))]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(all(target_arch = "wasm32", not(spindle_fs_module)))]
compile_error!("build with RUSTFLAGS=\"--cfg spindle_fs_module\" (tools/build-fs-module.sh does)");

#[cfg(target_arch = "wasm32")]
mod host_api;
#[cfg(target_arch = "wasm32")]
mod libc_shim;
#[cfg(target_arch = "wasm32")]
mod thread;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;

/// A panic is a broken invariant: trap (the host reports a RuntimeError).
#[cfg(target_arch = "wasm32")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
