//! spindle-wasi-fs as C archives for wasm32-wasip1-threads.
//!
//! - default features: `libspindle-fs.a`, the in-program filesystem alone. Its Rust allocations
//!   go to the program's `malloc` (wasi-libc's dlmalloc, or spindle-alloc's when that archive
//!   is linked too), and a panic (a broken invariant) is a trap.
//! - `alloc`: `libspindle.a`, the filesystem plus spindle-alloc's malloc family in ONE archive
//!   (two Rust staticlibs in one link would each carry core and collide); spindle-alloc-c then
//!   provides the panic handler.
//!
//! Link with no source change: `tools/wasi-cc prog.c .../libspindle.a -o prog.wasm`.

#![cfg_attr(target_arch = "wasm32", no_std)]

#[cfg(target_arch = "wasm32")]
pub use spindle_wasi_fs::{spindle_fs_mount, spindle_fs_set_can_wait};
#[cfg(feature = "alloc")]
extern crate spindle_alloc_c;

#[cfg(target_arch = "wasm32")]
mod c_alloc {
    use core::alloc::{GlobalAlloc, Layout};

    extern "C" {
        fn malloc(size: usize) -> *mut u8;
        fn free(p: *mut u8);
        fn realloc(p: *mut u8, size: usize) -> *mut u8;
        fn aligned_alloc(align: usize, size: usize) -> *mut u8;
    }

    /// malloc's guaranteed alignment on wasm32 (wasi-libc and spindle-alloc alike).
    const MALLOC_ALIGN: usize = 16;

    /// Rust allocations of the archive, served by the C program's allocator.
    struct CMalloc;

    // SAFETY: malloc/free/realloc/aligned_alloc follow C semantics; blocks are only ever freed
    // by the same allocator; alignment above 16 goes through aligned_alloc with a size rounded
    // up to a multiple of the alignment, as C11 requires.
    unsafe impl GlobalAlloc for CMalloc {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            if l.align() <= MALLOC_ALIGN {
                // SAFETY: plain C allocation.
                unsafe { malloc(l.size()) }
            } else {
                let size = (l.size() + l.align() - 1) & !(l.align() - 1);
                // SAFETY: power-of-two alignment, size a multiple of it.
                unsafe { aligned_alloc(l.align(), size) }
            }
        }
        unsafe fn dealloc(&self, p: *mut u8, _l: Layout) {
            // SAFETY: `p` came from this allocator.
            unsafe { free(p) }
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
            if l.align() <= MALLOC_ALIGN {
                // SAFETY: `p` came from malloc with malloc's alignment.
                return unsafe { realloc(p, new_size) };
            }
            // SAFETY: GlobalAlloc's contract; copy then free.
            unsafe {
                let n = self.alloc(Layout::from_size_align_unchecked(new_size, l.align()));
                if !n.is_null() {
                    core::ptr::copy_nonoverlapping(p, n, l.size().min(new_size));
                    free(p);
                }
                n
            }
        }
    }

    #[global_allocator]
    static A: CMalloc = CMalloc;
}

#[cfg(all(target_arch = "wasm32", not(feature = "alloc")))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}
