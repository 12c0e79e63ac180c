//! The malloc family's C semantics (errno, posix_memalign's error codes, calloc overflow), as
//! private functions: the exports in `lib.rs` wrap them, and they call only each other, never an
//! export, so a program that replaces one export never finds its function called from here.

use core::ffi::c_void;
use core::ptr::null_mut;
use spindle_alloc as sa;

const ENOMEM: i32 = 48; // wasi-libc's values (WASI errno numbering)
pub(crate) const EINVAL: i32 = 28;

#[cfg(target_arch = "wasm32")]
extern "C" {
    fn __errno_location() -> *mut i32;
}

#[inline]
fn set_errno(_e: i32) {
    #[cfg(all(target_arch = "wasm32", target_os = "wasi"))]
    // SAFETY: wasi-libc's errno is thread-local and always addressable.
    unsafe {
        *__errno_location() = _e
    };
}

/// Bytes cleared at the end of a block whose size is a multiple of 64 KiB (see `malloc`).
pub(crate) const TSD_TAIL: usize = 1024;

/// `malloc`: 16-byte aligned, `malloc(0)` is a unique minimal block.
///
/// One compatibility measure: wasi-libc's `pthread_create` takes a new thread's stack, TLS and
/// pthread-key slots (the last 512 bytes) from `malloc(size)` with `size` a multiple of 64 KiB
/// (its PAGE_SIZE), and never clears the key slots, which POSIX requires to read NULL in a new
/// thread. Reused memory would hand the thread stale values (and run key destructors on them), so
/// the last `TSD_TAIL` bytes of such blocks are zeroed: 1 KiB per >= 64 KiB allocation.
///
/// The allocator's fast path is inlined here, so that the export is one function (`sa::alloc_inline`).
#[inline(always)]
pub(crate) unsafe fn malloc(size: usize) -> *mut c_void {
    // SAFETY: plain allocation.
    unsafe { malloc_tail(sa::alloc_inline(size, sa::MIN_ALIGNMENT), size) }
}

/// `malloc` for wasi-libc's rare internal calls (`__libc_malloc`): the same, with the allocator's
/// entry called rather than inlined a second time.
#[cfg(target_arch = "wasm32")]
pub(crate) unsafe fn libc_malloc(size: usize) -> *mut c_void {
    // SAFETY: plain allocation.
    unsafe { malloc_tail(sa::alloc(size, sa::MIN_ALIGNMENT), size) }
}

/// What `malloc` does with the block `p` the allocator gave it for `size` bytes.
#[inline(always)]
unsafe fn malloc_tail(p: *mut u8, size: usize) -> *mut c_void {
    if p.is_null() {
        set_errno(ENOMEM);
    } else if size & 0xFFFF == 0 && size != 0 {
        // SAFETY: the block has `size >= 64 KiB` bytes.
        unsafe { core::ptr::write_bytes(p.add(size - TSD_TAIL), 0, TSD_TAIL) };
    }
    p as *mut c_void
}

/// `free`, with the allocator's free inlined (see `malloc`).
#[inline(always)]
pub(crate) unsafe fn free(p: *mut c_void) {
    // SAFETY: forwarded; `p` is null or a live block (caller's contract).
    unsafe { sa::free_inline(p as *mut u8) }
}

/// `free` for wasi-libc's internal calls (`__libc_free`), calling the allocator's entry.
#[cfg(target_arch = "wasm32")]
pub(crate) unsafe fn libc_free(p: *mut c_void) {
    // SAFETY: forwarded; `p` is null or a live block (caller's contract).
    unsafe { sa::free(p as *mut u8) }
}

pub(crate) unsafe fn calloc(n: usize, size: usize) -> *mut c_void {
    let Some(total) = n.checked_mul(size) else {
        set_errno(ENOMEM);
        return null_mut();
    };
    // SAFETY: plain allocation.
    let p = unsafe { sa::alloc_zeroed(total, sa::MIN_ALIGNMENT) };
    if p.is_null() {
        set_errno(ENOMEM);
    }
    p as *mut c_void
}

/// `realloc(p, 0)` frees `p` and returns null (glibc's behaviour).
pub(crate) unsafe fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
    if size == 0 && !p.is_null() {
        // SAFETY: forwarded.
        unsafe { sa::free(p as *mut u8) };
        return null_mut();
    }
    // SAFETY: forwarded.
    let q = unsafe { sa::realloc(p as *mut u8, size, sa::MIN_ALIGNMENT) };
    if q.is_null() {
        set_errno(ENOMEM);
    }
    q as *mut c_void
}

pub(crate) unsafe fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> i32 {
    if !align.is_power_of_two() || align % core::mem::size_of::<*mut c_void>() != 0 {
        return EINVAL;
    }
    // SAFETY: plain allocation.
    let p = unsafe { sa::alloc(size, align.max(sa::MIN_ALIGNMENT)) };
    if p.is_null() {
        return ENOMEM;
    }
    // SAFETY: caller's out pointer.
    unsafe { *out = p as *mut c_void };
    0
}

/// `memalign` and `aligned_alloc`: any power-of-two alignment.
pub(crate) unsafe fn memalign(align: usize, size: usize) -> *mut c_void {
    if !align.is_power_of_two() {
        set_errno(EINVAL);
        return null_mut();
    }
    // SAFETY: plain allocation.
    let p = unsafe { sa::alloc(size, align.max(sa::MIN_ALIGNMENT)) };
    if p.is_null() {
        set_errno(ENOMEM);
    }
    p as *mut c_void
}

pub(crate) unsafe fn valloc(size: usize) -> *mut c_void {
    // SAFETY: forwarded.
    unsafe { memalign(4096, size) }
}

pub(crate) unsafe fn malloc_usable_size(p: *mut c_void) -> usize {
    // SAFETY: forwarded.
    unsafe { sa::usable_size(p as *const u8) }
}
