//! The few C library functions the Rust code below needs, since the module links no libc:
//! `memcmp` (rustc's slice comparisons), `write` and `abort` (spindle-alloc's fatal errors).
//! The pthread functions are in `thread.rs`.

use core::ffi::c_void;

#[link(wasm_import_module = "spindle_fs")]
extern "C" {
    /// Shows a fatal message (UTF-8) on the host's stderr.
    #[link_name = "warn"]
    fn host_warn(ptr: *const u8, len: usize);
}

/// `memcmp`: 8 bytes at a time, then a byte loop for the rest. LLVM does not turn these loops
/// back into a `memcmp` call (it recognises only memset/memcpy idioms), so it cannot recurse.
///
/// # Safety
/// `a` and `b` are readable for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n, readable per the contract; unaligned reads.
        let (x, y) =
            unsafe { ((a.add(i) as *const u64).read_unaligned(), (b.add(i) as *const u64).read_unaligned()) };
        if x != y {
            break;
        }
        i += 8;
    }
    while i < n {
        // SAFETY: i < n, readable per the contract.
        let (x, y) = unsafe { (*a.add(i), *b.add(i)) };
        if x != y {
            return x as i32 - y as i32;
        }
        i += 1;
    }
    0
}

/// `bcmp` (equality only), in case LLVM prefers it for `==` on slices.
///
/// # Safety
/// As `memcmp`.
#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: forwarded.
    unsafe { memcmp(a, b, n) }
}

/// `write`: only spindle-alloc's fatal messages come here (fd 2); they go to the host.
///
/// # Safety
/// `buf` is readable for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn write(_fd: i32, buf: *const c_void, n: usize) -> isize {
    // SAFETY: readable per the contract.
    unsafe { host_warn(buf as *const u8, n) };
    n as isize
}

/// `abort`: a trap.
#[no_mangle]
pub extern "C" fn abort() -> ! {
    core::arch::wasm32::unreachable()
}
