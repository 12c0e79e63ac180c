//! The C face of spindle-alloc: the malloc family with C semantics (errno, posix_memalign's error
//! codes, calloc overflow), plus the extras declared in `include/spindle.h`.
//!
//! The `#[no_mangle]` exports exist only on wasm32: there this crate is built as a static archive
//! that replaces wasi-libc's dlmalloc at link time (it also defines `__libc_malloc`,
//! `__libc_calloc`, `__libc_free`, which wasi-libc's atexit and locale code call, so that nothing
//! pulls dlmalloc.o in). On native targets it compiles to the same functions under Rust names, so
//! `cargo test --workspace` never replaces the host's malloc in a test binary.
//!
//! Like libc, every export can be replaced by the program: with the `weak` feature (the C
//! archives are built with it) each one is a weak definition, so a program that defines its own
//! `memalign` or `malloc_usable_size` links, and its definition wins. The exports are thin wrappers
//! over private functions (`imp`), and nothing here calls an export: a program's replacement is
//! never reached from inside the allocator. wasi-libc's dlmalloc is still never linked: every
//! symbol its object defines is defined here, so the linker has no reason to fetch it.

// `rust-program`: a dependency of a Rust program, which brings std and its panic handler.
#![cfg_attr(all(target_arch = "wasm32", not(feature = "rust-program")), no_std)]
#![cfg_attr(all(target_arch = "wasm32", feature = "weak"), feature(linkage))]
#![deny(unsafe_op_in_unsafe_fn)]

mod imp;

use core::ffi::c_void;
use spindle_alloc as sa;

/// Defines C exports: `#[no_mangle]` on wasm32 (Rust names natively), weak with the `weak`
/// feature, each a wrapper that only calls its `imp` function.
macro_rules! exports {
    ($($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),*) $(-> $r:ty)? => $body:expr;)*) => {$(
        $(#[$m])*
        ///
        /// # Safety
        /// The C function's contract (pointers valid, a block freed once, `out` writable).
        #[cfg_attr(target_arch = "wasm32", no_mangle)]
        #[cfg_attr(all(target_arch = "wasm32", feature = "weak"), linkage = "weak")]
        pub unsafe extern "C" fn $name($($a: $t),*) $(-> $r)? {
            // SAFETY: the caller keeps the C contract that the `imp` function relies on.
            unsafe { $body }
        }
    )*};
}

exports! {
    /// `malloc` (see `imp::malloc` for the zeroed tail of 64 KiB-multiple blocks).
    fn malloc(size: usize) -> *mut c_void => imp::malloc(size);
    /// `free`; null is ignored.
    fn free(p: *mut c_void) => imp::free(p);
    /// `calloc`; null with ENOMEM when `n * size` overflows.
    fn calloc(n: usize, size: usize) -> *mut c_void => imp::calloc(n, size);
    /// `realloc`; `realloc(p, 0)` frees `p` and returns null (glibc's behaviour).
    fn realloc(p: *mut c_void, size: usize) -> *mut c_void => imp::realloc(p, size);
    /// `posix_memalign`: EINVAL unless `align` is a power of two and a multiple of a pointer.
    fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> i32 => imp::posix_memalign(out, align, size);
    /// `aligned_alloc`: any power-of-two alignment.
    fn aligned_alloc(align: usize, size: usize) -> *mut c_void => imp::memalign(align, size);
    /// `memalign`: any power-of-two alignment.
    fn memalign(align: usize, size: usize) -> *mut c_void => imp::memalign(align, size);
    /// `valloc`: 4096-byte aligned.
    fn valloc(size: usize) -> *mut c_void => imp::valloc(size);
    /// `malloc_usable_size`: at least the size asked for; 0 for null.
    fn malloc_usable_size(p: *mut c_void) -> usize => imp::malloc_usable_size(p);
    // wasi-libc's own internal entry points (atexit, locales): defined here so dlmalloc.o, which
    // also defines them, is never pulled out of libc.a.
    /// wasi-libc's internal `malloc`.
    #[cfg(target_arch = "wasm32")]
    fn __libc_malloc(size: usize) -> *mut c_void => imp::libc_malloc(size);
    /// wasi-libc's internal `calloc`.
    #[cfg(target_arch = "wasm32")]
    fn __libc_calloc(n: usize, size: usize) -> *mut c_void => imp::calloc(n, size);
    /// wasi-libc's internal `free`.
    #[cfg(target_arch = "wasm32")]
    fn __libc_free(p: *mut c_void) => imp::libc_free(p);
}

/// Mirrors `struct spindle_alloc_stats` of spindle.h.
pub type SpindleAllocStats = sa::Stats;

/// Fills `*out` with the allocator's statistics.
///
/// # Safety
/// `out` is writable.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
#[cfg_attr(all(target_arch = "wasm32", feature = "weak"), linkage = "weak")]
pub unsafe extern "C" fn spindle_alloc_stats(out: *mut SpindleAllocStats) {
    // SAFETY: caller's out pointer.
    unsafe { *out = sa::stats() };
}

/// Collects the calling thread's remote frees and returns its empty slabs to the shared pool.
#[cfg_attr(target_arch = "wasm32", no_mangle)]
#[cfg_attr(all(target_arch = "wasm32", feature = "weak"), linkage = "weak")]
pub extern "C" fn spindle_alloc_thread_flush() {
    sa::thread_flush()
}

/// Caps the memory the allocator takes from the platform (tests of out-of-memory paths).
#[cfg_attr(target_arch = "wasm32", no_mangle)]
#[cfg_attr(all(target_arch = "wasm32", feature = "weak"), linkage = "weak")]
pub extern "C" fn spindle_alloc_set_limit(bytes: usize) {
    sa::set_memory_limit(bytes)
}

/// Checks the allocator's invariants: 0, or -1 after printing the broken one to stderr.
#[cfg(feature = "validate")]
#[cfg_attr(target_arch = "wasm32", no_mangle)]
#[cfg_attr(all(target_arch = "wasm32", feature = "weak"), linkage = "weak")]
pub extern "C" fn spindle_alloc_validate() -> i32 {
    match sa::validate_pool().and_then(|_| sa::validate_heap()) {
        Ok(()) => 0,
        Err(msg) => {
            #[cfg(all(target_arch = "wasm32", target_os = "wasi"))]
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
    use core::ptr::null_mut;
    use imp::{EINVAL, TSD_TAIL};

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
