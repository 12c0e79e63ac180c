//! The platform layer: every call to the outside world (growing memory, thread-local heap pointer,
//! thread-exit notification, fatal errors) lives here, one file per platform. Nothing above this
//! module names `memory.grow`, mmap or pthreads.
//!
//! Contract of both platforms:
//! - memory is one region that only grows: `grow(n)` returns `n` fresh, zero-filled, chunk-aligned
//!   chunks, or `None` (limit reached). It is only called with the span pool's lock held. Memory is
//!   never returned. Chunk indexes are offsets from `base()` in chunks, `< MAX_CHUNKS`.
//! - `thread_id()` identifies the calling thread among live threads (non-zero); after
//!   `on_thread_exit()`, `crate::heap::thread_exit` runs when the thread exits (a pthread key
//!   destructor on both platforms: wasi-libc runs key destructors at thread exit, as glibc does).
//!   Per-thread heap pointers are NOT kept in pthread key slots: wasi-libc takes a new thread's
//!   stack and key slots from malloc without zeroing them, so a fresh thread may see garbage there.

#[cfg(target_arch = "wasm32")]
mod wasm32;
#[cfg(target_arch = "wasm32")]
pub(crate) use wasm32::*;

#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use native::*;

/// log2 of the chunk size.
pub(crate) const CHUNK_SHIFT: u32 = 13;
/// The chunk: 8 KiB, the allocator's unit of memory. Slabs and large spans are whole chunks and
/// start on chunk boundaries. Small: a thread using a size class holds at least one slab of it, so
/// the chunk bounds the memory an idle class costs (with 64 KiB chunks a program with 32 busy small
/// classes took 2 MiB per thread where dlmalloc took 300 KiB).
pub const CHUNK: usize = 1 << CHUNK_SHIFT;
/// The platform grows memory in wasm pages (64 KiB): `grow` takes multiples of this many chunks.
pub(crate) const GROW_CHUNKS: usize = 65536 / CHUNK;

/// Soft limit, in bytes, on the memory the allocator takes from the platform (for tests of the
/// out-of-memory path). `usize::MAX`: no limit but the platform's own.
pub(crate) static LIMIT: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(usize::MAX);

/// Writes `msg` to stderr and aborts. For broken invariants and invalid frees only.
#[cold]
#[inline(never)]
pub(crate) fn fatal(msg: &str) -> ! {
    fatal_at(msg, None)
}

/// Like `fatal`, naming the address involved (`msg (0x...)`), without any formatting machinery.
#[cold]
#[inline(never)]
pub(crate) fn fatal_at(msg: &str, addr: Option<usize>) -> ! {
    let prefix = b"spindle-alloc: ";
    let mut hex = [0u8; 2 + 2 * core::mem::size_of::<usize>() + 3];
    let mut n = 0;
    if let Some(a) = addr {
        hex[..4].copy_from_slice(b" (0x");
        n = 4;
        for i in (0..2 * core::mem::size_of::<usize>()).rev() {
            hex[n] = b"0123456789abcdef"[(a >> (4 * i)) & 15];
            n += 1;
        }
        hex[n] = b')';
        n += 1;
    }
    // SAFETY: writing valid byte slices to fd 2; abort never returns.
    unsafe {
        write_stderr(prefix);
        write_stderr(msg.as_bytes());
        write_stderr(&hex[..n]);
        write_stderr(b"\n");
        abort()
    }
}
