//! One instance = one thread: its identity, whether it may block, and its thread-exit hook.
//!
//! Set-up, done by the host for every instance before any other call (runtime/src/fs/memfs-thread.ts):
//! 1. take a region of the shared memory for this instance (the host grows the memory for it or
//!    reuses one released by an ended thread): `[TLS | scratch | stack]`;
//! 2. set the exported `__stack_pointer` global to the region's end (the stack grows down);
//! 3. call `__wasm_init_tls(region)`, which points this instance's `__tls_base` there and copies
//!    the TLS image (the `#[thread_local]`s below) into it;
//! 4. call [`spindle_fs_thread_init`].
//!
//! Tear-down: [`spindle_fs_thread_exit`] (runs spindle-alloc's thread-exit hook: the thread's heap
//! is handed back), then the host returns the region to its pool. An instance whose thread ends
//! without it leaks its region and heap (no corruption: nobody else uses them).
//!
//! Thread rules: everything here is per instance (`#[thread_local]` lives in the instance's own
//! TLS block), except the key destructors, written once by `pthread_key_create`.

use core::cell::Cell;
use core::ffi::c_void;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering::*};

/// Whether this instance's thread may block in `memory.atomic.wait32` (not a browser main thread).
#[thread_local]
static CAN_WAIT: Cell<bool> = Cell::new(true);

/// This thread's identity for spindle-alloc: the address of this TLS slot, unique among live
/// instances because TLS blocks of live instances never overlap.
#[thread_local]
static SELF: u8 = 0;

/// Thread-specific values of the emulated pthread keys.
#[thread_local]
static KEY_VALUES: [Cell<usize>; MAX_KEYS] = [const { Cell::new(0) }; MAX_KEYS];

const MAX_KEYS: usize = 4;
/// Destructors of the keys created so far (`KEYS` of them; 0 = none).
static KEY_DTORS: [AtomicUsize; MAX_KEYS] = [const { AtomicUsize::new(0) }; MAX_KEYS];
static KEYS: AtomicU32 = AtomicU32::new(0);

fn can_wait() -> bool {
    CAN_WAIT.get()
}

/// Per-instance set-up, after the stack and TLS are in place (see the module note).
/// `can_wait` = 0 on a thread that must never block (a browser main thread): its locks spin.
#[no_mangle]
pub extern "C" fn spindle_fs_thread_init(can_wait_flag: i32) {
    CAN_WAIT.set(can_wait_flag != 0);
    spindle_fs::set_can_wait(can_wait);
}

/// Per-instance tear-down: runs the key destructors (spindle-alloc returns the thread's heap).
/// No call into this instance may follow.
#[no_mangle]
pub extern "C" fn spindle_fs_thread_exit() {
    let n = (KEYS.load(Acquire) as usize).min(MAX_KEYS);
    for (k, value) in KEY_VALUES.iter().enumerate().take(n) {
        let v = value.replace(0);
        let d = KEY_DTORS[k].load(Acquire);
        if v != 0 && d != 0 {
            // SAFETY: only `pthread_key_create` stores non-zero values: `unsafe extern "C" fn(*mut c_void)`.
            let f = unsafe { core::mem::transmute::<usize, unsafe extern "C" fn(*mut c_void)>(d) };
            // SAFETY: the destructor's contract: called once with the thread's non-null value.
            unsafe { f(v as *mut c_void) };
        }
    }
}

/// `pthread_self` for spindle-alloc: unique among live instances, never 0.
#[no_mangle]
pub extern "C" fn pthread_self() -> usize {
    &SELF as *const u8 as usize
}

/// `pthread_key_create` for spindle-alloc (which creates one key). EAGAIN beyond `MAX_KEYS`.
///
/// # Safety
/// `key` is a valid out-pointer.
#[no_mangle]
pub unsafe extern "C" fn pthread_key_create(
    key: *mut u32,
    dtor: Option<unsafe extern "C" fn(*mut c_void)>,
) -> i32 {
    let k = KEYS.fetch_add(1, AcqRel) as usize;
    if k >= MAX_KEYS {
        return 6; // EAGAIN
    }
    KEY_DTORS[k].store(dtor.map_or(0, |f| f as usize), Release);
    // SAFETY: valid out-pointer per the contract.
    unsafe { *key = k as u32 };
    0
}

/// `pthread_setspecific`: this instance's value for `key`.
#[no_mangle]
pub extern "C" fn pthread_setspecific(key: u32, value: *const c_void) -> i32 {
    match KEY_VALUES.get(key as usize) {
        Some(slot) => {
            slot.set(value as usize);
            0
        }
        None => 28, // EINVAL
    }
}
