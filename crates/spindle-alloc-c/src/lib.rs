//! The C face of spindle-alloc: the malloc family with C semantics (errno, posix_memalign's error
//! codes, calloc overflow), plus the extras declared in `include/spindle.h`.
//!
//! The `#[no_mangle]` exports exist only on wasm32: there this crate is built as a static archive
//! that replaces wasi-libc's dlmalloc at link time (it also defines `__libc_malloc`,
//! `__libc_calloc`, `__libc_free`, which wasi-libc's atexit and locale code call, so that nothing
//! pulls dlmalloc.o in). On native targets it compiles to the same functions under Rust names, so
//! `cargo test --workspace` never replaces the host's malloc in a test binary.

// `rust-program`: a dependency of a Rust program, which brings std and its panic handler.
#![cfg_attr(all(target_arch = "wasm32", not(feature = "rust-program")), no_std)]
#![deny(unsafe_op_in_unsafe_fn)]

use core::ffi::c_void;
use core::ptr::null_mut;
use spindle_alloc as sa;

const ENOMEM: i32 = 48; // wasi-libc's values (WASI errno numbering)
const EINVAL: i32 = 28;

#[cfg(target_arch = "wasm32")]
extern "C" {
    fn __errno_location() -> *mut i32;
}

#[inline]
fn set_errno(_e: i32) {
    #[cfg(target_arch = "wasm32")]
    // SAFETY: wasi-libc's errno is thread-local and always addressable.
    unsafe {
        *__errno_location() = _e
    };
}

/// Bytes cleared at the end of a block whose size is a multiple of 64 KiB (see `malloc`).
const TSD_TAIL: usize = 1024;

/// `malloc`: 16-byte aligned, `malloc(0)` is a unique minimal block.
///
/// One compatibility measure: wasi-libc's `pthread_create` takes a new thread's stack, TLS and
/// pthread-key slots (the last 512 bytes) from `malloc(size)` with `size` a multiple of 64 KiB
/// (its PAGE_SIZE), and never clears the key slots, which POSIX requires to read NULL in a new
/// thread. Reused memory would hand the thread stale values (and run key destructors on them), so
/// the last `TSD_TAIL` bytes of such blocks are zeroed: 1 KiB per >= 64 KiB allocation.
///
/// # Safety
/// C semantics.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
    // SAFETY: plain allocation.
    let p = unsafe { sa::alloc(size, sa::MIN_ALIGNMENT) };
    if p.is_null() {
        set_errno(ENOMEM);
    } else if size & 0xFFFF == 0 && size != 0 {
        // SAFETY: the block has `size >= 64 KiB` bytes.
        unsafe { core::ptr::write_bytes(p.add(size - TSD_TAIL), 0, TSD_TAIL) };
    }
    p as *mut c_void
}

/// # Safety
/// `p` is null or a live block from this allocator.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn free(p: *mut c_void) {
    // SAFETY: forwarded.
    unsafe { sa::free(p as *mut u8) }
}

/// # Safety
/// C semantics.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn calloc(n: usize, size: usize) -> *mut c_void {
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
///
/// # Safety
/// `p` is null or a live block from this allocator.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
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

/// # Safety
/// `out` is writable.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> i32 {
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

/// # Safety
/// C semantics.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn aligned_alloc(align: usize, size: usize) -> *mut c_void {
    // SAFETY: forwarded.
    unsafe { memalign(align, size) }
}

/// # Safety
/// C semantics.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn memalign(align: usize, size: usize) -> *mut c_void {
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

/// # Safety
/// C semantics.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn valloc(size: usize) -> *mut c_void {
    // SAFETY: forwarded.
    unsafe { memalign(4096, size) }
}

/// # Safety
/// `p` is null or a live block from this allocator.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn malloc_usable_size(p: *mut c_void) -> usize {
    // SAFETY: forwarded.
    unsafe { sa::usable_size(p as *const u8) }
}

// wasi-libc's own internal entry points (atexit, locales): defined here so dlmalloc.o, which also
// defines them, is never pulled out of libc.a.

/// # Safety
/// C semantics.
#[cfg(target_arch = "wasm32")]
#[no_mangle]
pub unsafe extern "C" fn __libc_malloc(size: usize) -> *mut c_void {
    // SAFETY: forwarded.
    unsafe { malloc(size) }
}

/// # Safety
/// C semantics.
#[cfg(target_arch = "wasm32")]
#[no_mangle]
pub unsafe extern "C" fn __libc_calloc(n: usize, size: usize) -> *mut c_void {
    // SAFETY: forwarded.
    unsafe { calloc(n, size) }
}

/// # Safety
/// C semantics.
#[cfg(target_arch = "wasm32")]
#[no_mangle]
pub unsafe extern "C" fn __libc_free(p: *mut c_void) {
    // SAFETY: forwarded.
    unsafe { free(p) }
}

/// Mirrors `struct spindle_alloc_stats` of spindle.h.
pub type SpindleAllocStats = sa::Stats;

/// # Safety
/// `out` is writable.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub unsafe extern "C" fn spindle_alloc_stats(out: *mut SpindleAllocStats) {
    // SAFETY: caller's out pointer.
    unsafe { *out = sa::stats() };
}

#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub extern "C" fn spindle_alloc_thread_flush() {
    sa::thread_flush()
}

#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub extern "C" fn spindle_alloc_set_limit(bytes: usize) {
    sa::set_memory_limit(bytes)
}

#[cfg(feature = "validate")]
#[cfg_attr(target_arch = "wasm32", no_mangle)]
pub extern "C" fn spindle_alloc_validate() -> i32 {
    match sa::validate_pool().and_then(|_| sa::validate_heap()) {
        Ok(()) => 0,
        Err(msg) => {
            #[cfg(target_arch = "wasm32")]
            {
                extern "C" {
                    fn write(fd: i32, buf: *const c_void, n: usize) -> isize;
                }
                // SAFETY: valid buffers.
                unsafe {
                    write(2, b"spindle-alloc: invariant broken: ".as_ptr() as *const c_void, 33);
                    write(2, msg.as_ptr() as *const c_void, msg.len());
                    write(2, b"\n".as_ptr() as *const c_void, 1);
                }
            }
            let _ = msg;
            -1
        }
    }
}

#[cfg(all(target_arch = "wasm32", not(test), not(feature = "rust-program")))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_semantics() {
        // SAFETY: C API used as documented.
        unsafe {
            let p = malloc(0);
            assert!(!p.is_null());
            free(p);
            assert!(calloc(usize::MAX, 2).is_null());
            let z = calloc(100, 10) as *mut u8;
            assert!((0..1000).all(|i| *z.add(i) == 0));
            assert!(malloc_usable_size(z as *mut c_void) >= 1000);
            assert!(realloc(z as *mut c_void, 0).is_null());
            let mut out = null_mut();
            assert_eq!(posix_memalign(&mut out, 3, 10), EINVAL);
            assert_eq!(posix_memalign(&mut out, 2, 10), EINVAL);
            assert_eq!(posix_memalign(&mut out, 65536, 10), 0);
            assert_eq!(out as usize % 65536, 0);
            free(out);
            let a = aligned_alloc(4096, 4096);
            assert_eq!(a as usize % 4096, 0);
            free(a);
            assert!(memalign(24, 8).is_null());
            // Blocks of a multiple of 64 KiB end with zeroed key slots, even when reused.
            let m = malloc(1 << 17) as *mut u8;
            m.write_bytes(0xEE, 1 << 17);
            free(m as *mut c_void);
            let m = malloc(1 << 17) as *mut u8;
            assert!((((1 << 17) - TSD_TAIL)..(1 << 17)).all(|i| *m.add(i) == 0));
            free(m as *mut c_void);
            let mut s = SpindleAllocStats::default();
            spindle_alloc_stats(&mut s);
            assert!(s.committed > 0);
        }
    }
}
