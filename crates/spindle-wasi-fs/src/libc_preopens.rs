//! Interposition build only: wasi-libc's preopen table, replaced by one whose lookups take no
//! lock.
//!
//! **Why.** wasi-libc turns every absolute path into (preopen fd, relative path) with
//! `__wasilibc_find_abspath`, and its `preopens.c` takes one process-wide lock for that (twice
//! in some versions: once more in `__wasilibc_populate_preopens`). Two threads opening files
//! then fight over one cache line and sleep on the lock; in the reference workload that lock
//! was the largest cost that grows from one thread to two. The table changes only when a
//! preopen is registered, so lookups here read an immutable list with atomic loads only.
//!
//! **How it replaces wasi-libc's.** This module defines all five functions that `preopens.c`
//! defines (`__wasilibc_find_relpath`, `__wasilibc_find_abspath`,
//! `__wasilibc_populate_preopens`, `__wasilibc_register_preopened_fd`,
//! `__wasilibc_reset_preopens`). The linker takes an archive member only to define a symbol
//! that is still undefined, and it finds these here first (this library comes before libc on
//! the link line), so `preopens.c` is never linked and there is no duplicate. It also defines
//! `__wasilibc_find_relpath_alloc`, which wasi-libc defines only weakly (in `chdir.c`, with
//! `chdir`): this definition wins whether or not `chdir` is linked, so libc's path functions
//! (`posix.c` calls it when it exists) and `chdir` itself use this table.
//!
//! **Link order.** That holds when this library comes before libc on the link line (clang
//! puts `-lc` last; a Rust crate dependency is linked before libc). The C archives are built
//! with the `weak-preopens` feature: every function here is then a weak definition, so a link
//! line with libc FIRST (rustc's `-C link-arg=libspindle-fs.a` puts it after `-lc`) keeps
//! wasi-libc's `preopens.c` instead of failing with duplicate symbols. The functions that call
//! each other do so through the linked symbols (`linked`), so a program always uses one table:
//! ours or wasi-libc's (with its lock: correct, not faster).
//!
//! **Semantics: wasi-libc's with `chdir` linked** (which is what every program that calls
//! `chdir` gets from wasi-libc). Prefixes are stored without leading `/` and `./`; a prefix
//! matches whole path components only (trailing `/` in a prefix ignored); the longest match
//! wins, and among equal lengths the latest registration; no `.`/`..` normalisation; an empty
//! relative part becomes `"."`; no match is ENOENT. A relative path is first joined to the cwd
//! (read under wasi-libc's cwd lock) as `chdir.c`'s `make_absolute` does; the relative part is
//! copied into the caller's buffer (ERANGE if it does not fit and may not be grown). The host's
//! preopens are read on first use (fd 3 upwards to the first EBADF; another error exits with
//! EX_OSERR, as wasi-libc does). One difference from wasi-libc without `chdir` linked: there a
//! relative `./tmp/x` is not found (it is taken as the absolute `/./tmp/x`); here it is `/tmp/x`,
//! as POSIX says. `tests/fs-guests/c/preopens.c` pins these rules against wasi-libc's own code.
//!
//! **Invariants.** The table is a list of nodes, newest first, reached from `HEAD`. A node is
//! fully written before it is published (Release store of `HEAD`, Acquire load by readers) and
//! is never changed or freed afterwards, so a reader needs no lock and `abs_prefix` stays valid
//! forever. Writers (populate, register, reset) serialise on `WRITER`, a spin lock: they are
//! rare (start-up, `spindle_fs_mount`). `__wasilibc_reset_preopens` (used by snapshotting tools
//! before a snapshot) unlinks the list and forgets it without freeing it, because a lookup
//! running at the same time may still be reading it: a few dozen bytes per reset.

use crate::host;
use crate::spin::SpinLock;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ffi::{c_char, CStr};
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering::*};
use spindle_fs::Errno;

/// One preopen: the wasi fd and its prefix (normalised, NUL-terminated).
struct Preopen {
    next: *const Preopen,
    fd: i32,
    /// The prefix's bytes followed by one NUL.
    prefix: Box<[u8]>,
}

impl Preopen {
    fn prefix(&self) -> &[u8] {
        &self.prefix[..self.prefix.len() - 1]
    }
}

/// The newest preopen (null: none).
static HEAD: AtomicPtr<Preopen> = AtomicPtr::new(ptr::null_mut());
/// Whether the host's preopens are in the list.
static POPULATED: AtomicBool = AtomicBool::new(false);
/// Held by every writer of `HEAD` / `POPULATED`.
static WRITER: SpinLock = SpinLock::new();

/// The exit code wasi-libc exits with when the host's preopens cannot be read (sysexits.h).
const EX_OSERR: i32 = 71;
/// A host's `fd_prestat_get` answer past the last preopen.
const EBADF: i32 = Errno::Badf.raw() as i32;

extern "C" {
    fn __errno_location() -> *mut i32;
    fn _Exit(code: i32) -> !;
    /// wasi-libc's cwd (`getcwd.c`): `"/"` until `chdir`, which changes it under the lock below.
    static mut __wasilibc_cwd: *const c_char;
    fn __wasilibc_cwd_lock();
    fn __wasilibc_cwd_unlock();
    fn realloc(p: *mut u8, size: usize) -> *mut u8;
}

/// The table's functions as the linker resolved them. With `weak-preopens` another definition
/// may prevail (see the module doc), so the functions here that call each other go through
/// the symbols: whichever table the program got, it is one table.
pub(crate) mod linked {
    use core::ffi::c_char;
    extern "C" {
        pub(crate) fn __wasilibc_register_preopened_fd(fd: i32, prefix: *const c_char) -> i32;
        pub(crate) fn __wasilibc_find_abspath(
            path: *const c_char,
            abs_prefix: *mut *const c_char,
            relative_path: *mut *const c_char,
        ) -> i32;
        pub(crate) fn __wasilibc_find_relpath_alloc(
            path: *const c_char,
            abs_prefix: *mut *const c_char,
            relative_buf: *mut *mut c_char,
            relative_buf_len: *mut usize,
            can_realloc: i32,
        ) -> i32;
    }
}

/// Sets wasi-libc's `errno` (its values are WASI's).
fn set_errno(e: Errno) {
    // SAFETY: wasi-libc's errno of the calling thread.
    unsafe { *__errno_location() = e.raw() as i32 };
}

/// Strips leading `/` and `./`, and a whole `.` (wasi-libc's `strip_prefixes`).
fn strip_prefixes(mut p: &[u8]) -> &[u8] {
    loop {
        match p {
            [b'/', r @ ..] => p = r,
            [b'.', b'/', r @ ..] => p = r,
            [b'.'] => p = &[],
            _ => return p,
        }
    }
}

/// Publishes a preopen for `fd` at `prefix`. Caller holds `WRITER`.
fn push_locked(fd: i32, prefix: &[u8]) {
    let mut bytes = Vec::with_capacity(prefix.len() + 1);
    bytes.extend_from_slice(strip_prefixes(prefix));
    bytes.push(0);
    let node = Box::new(Preopen { next: HEAD.load(Relaxed), fd, prefix: bytes.into_boxed_slice() });
    HEAD.store(Box::into_raw(node), Release);
}

/// The host's preopens in fd order: (fd, name). Err: the exit code wasi-libc would exit with.
pub(crate) fn host_preopens() -> Result<Vec<(i32, Vec<u8>)>, i32> {
    let mut out = Vec::new();
    for fd in 3..crate::fds::FD_BASE as i32 {
        let mut pre = [0u32; 2];
        // SAFETY: 8-byte out-pointer for a prestat.
        match unsafe { host::fd_prestat_get(fd, pre.as_mut_ptr() as i32) } {
            0 => {}
            EBADF => break,
            _ => return Err(EX_OSERR),
        }
        if pre[0] & 0xff != 0 {
            continue; // not a directory
        }
        let mut name = alloc::vec![0u8; pre[1] as usize];
        // SAFETY: buffer of the advertised length.
        if unsafe { host::fd_prestat_dir_name(fd, name.as_mut_ptr() as i32, pre[1] as i32) } != 0 {
            return Err(EX_OSERR);
        }
        out.push((fd, name));
    }
    Ok(out)
}

/// wasi-libc's `__wasilibc_populate_preopens`: see [`populate`].
#[no_mangle]
#[cfg_attr(feature = "weak-preopens", linkage = "weak")]
pub extern "C" fn __wasilibc_populate_preopens() {
    populate();
}

/// Reads the host's preopens into the table once.
fn populate() {
    if POPULATED.load(Acquire) {
        return;
    }
    WRITER.lock();
    if !POPULATED.load(Relaxed) {
        match host_preopens() {
            Ok(list) => list.iter().for_each(|(fd, name)| push_locked(*fd, name)),
            // SAFETY: ends the process, as wasi-libc does on the same failure.
            Err(code) => unsafe { _Exit(code) },
        }
        POPULATED.store(true, Release);
    }
    WRITER.unlock();
}

/// Adds `fd` as the preopen for `prefix` (copied); it takes precedence over earlier ones with
/// the same prefix. Returns 0, or -1 with EINVAL for a null `prefix` (allocation failure
/// aborts, as everywhere in this crate).
///
/// # Safety
/// `prefix` is null or a NUL-terminated string.
#[no_mangle]
#[cfg_attr(feature = "weak-preopens", linkage = "weak")]
pub unsafe extern "C" fn __wasilibc_register_preopened_fd(fd: i32, prefix: *const c_char) -> i32 {
    if prefix.is_null() {
        set_errno(Errno::Inval);
        return -1;
    }
    // SAFETY: NUL-terminated per the contract.
    let prefix = unsafe { CStr::from_ptr(prefix) }.to_bytes();
    populate();
    WRITER.lock();
    push_locked(fd, prefix);
    WRITER.unlock();
    0
}

/// Forgets every preopen; the next lookup reads the host's again (see the module doc: the old
/// list is not freed).
#[no_mangle]
#[cfg_attr(feature = "weak-preopens", linkage = "weak")]
pub extern "C" fn __wasilibc_reset_preopens() {
    WRITER.lock();
    HEAD.store(ptr::null_mut(), Release);
    POPULATED.store(false, Release);
    WRITER.unlock();
}

/// Does `prefix` name `path` or one of its ancestors, by whole components (`prefix_matches`)?
/// `path` has no leading `/`.
fn prefix_matches(prefix: &[u8], path: &[u8]) -> bool {
    if prefix.is_empty() {
        return true;
    }
    if !path.starts_with(prefix) {
        return false;
    }
    let mut i = prefix.len();
    while i > 0 && prefix[i - 1] == b'/' {
        i -= 1;
    }
    matches!(path.get(i), None | Some(b'/'))
}

/// The best preopen for `path` (leading `/` already stripped): the longest prefix, the newest
/// among equals.
fn lookup(path: &[u8]) -> Option<&'static Preopen> {
    let mut best: Option<&'static Preopen> = None;
    let mut node = HEAD.load(Acquire);
    while !node.is_null() {
        // SAFETY: published nodes are complete and never freed or changed (module invariants).
        let pre: &'static Preopen = unsafe { &*node };
        let longer = best.map_or(true, |b| pre.prefix().len() > b.prefix().len());
        if longer && prefix_matches(pre.prefix(), path) {
            best = Some(pre);
        }
        node = pre.next as *mut Preopen;
    }
    best
}

/// `__wasilibc_find_abspath`: the preopen fd for `path`, with `*abs_prefix` its prefix and
/// `*relative_path` the rest of `path` (a pointer into it, or `"."`); -1 and ENOENT if none.
///
/// # Safety
/// `path` is NUL-terminated; the out-pointers are writable.
#[no_mangle]
#[cfg_attr(feature = "weak-preopens", linkage = "weak")]
pub unsafe extern "C" fn __wasilibc_find_abspath(
    path: *const c_char,
    abs_prefix: *mut *const c_char,
    relative_path: *mut *const c_char,
) -> i32 {
    populate();
    // SAFETY: NUL-terminated per the contract.
    let full = unsafe { CStr::from_ptr(path) }.to_bytes();
    let skip = full.iter().take_while(|&&c| c == b'/').count();
    let path = &full[skip..];
    let Some(pre) = lookup(path) else {
        set_errno(Errno::Noent);
        return -1;
    };
    // The whole prefix is skipped, trailing `/` included (a prefix `a/` matches the path `a`,
    // where wasi-libc would read past the path's NUL: here the result is ".").
    let mut rest = pre.prefix().len();
    while path.get(rest) == Some(&b'/') {
        rest += 1;
    }
    let relative = if rest >= path.len() {
        c".".as_ptr()
    } else {
        // SAFETY: `skip + rest < full.len()`, so the pointer is inside `full`, before its NUL.
        unsafe { full.as_ptr().add(skip + rest) as *const c_char }
    };
    // SAFETY: writable out-pointers per the contract; the prefix lives forever.
    unsafe {
        *abs_prefix = pre.prefix.as_ptr() as *const c_char;
        *relative_path = relative;
    }
    pre.fd
}

/// `__wasilibc_find_relpath`: `__wasilibc_find_relpath_alloc` without reallocation (the
/// relative part must fit the caller's `relative_path_len` bytes, else ERANGE).
///
/// # Safety
/// As `__wasilibc_find_relpath_alloc`.
#[no_mangle]
#[cfg_attr(feature = "weak-preopens", linkage = "weak")]
pub unsafe extern "C" fn __wasilibc_find_relpath(
    path: *const c_char,
    abs_prefix: *mut *const c_char,
    relative_path: *mut *mut c_char,
    relative_path_len: usize,
) -> i32 {
    let mut len = relative_path_len;
    // SAFETY: same contract.
    unsafe { linked::__wasilibc_find_relpath_alloc(path, abs_prefix, relative_path, &mut len, 0) }
}

/// `__wasilibc_find_relpath_alloc` (wasi-libc defines it weakly in `chdir.c`; this strong
/// definition wins, so every caller gets the cwd-aware lookup whether or not `chdir` is linked):
/// `path` made absolute against the cwd, looked up with `__wasilibc_find_abspath`, and the
/// relative part copied into `*relative_buf` (`*relative_buf_len` bytes). If it does not fit:
/// ERANGE, or with `can_realloc` the buffer is grown with `realloc` (ENOMEM if that fails).
///
/// # Safety
/// `path` is NUL-terminated; the out-pointers are writable; `*relative_buf` holds
/// `*relative_buf_len` bytes and, with `can_realloc`, is null or from `malloc`.
#[no_mangle]
#[cfg_attr(feature = "weak-preopens", linkage = "weak")]
pub unsafe extern "C" fn __wasilibc_find_relpath_alloc(
    path: *const c_char,
    abs_prefix: *mut *const c_char,
    relative_buf: *mut *mut c_char,
    relative_buf_len: *mut usize,
    can_realloc: i32,
) -> i32 {
    // SAFETY: NUL-terminated per the contract.
    let given = unsafe { CStr::from_ptr(path) }.to_bytes_with_nul();
    let joined = if given[0] == b'/' { None } else { Some(make_absolute(given)) };
    let abspath = joined.as_deref().unwrap_or(given);
    let mut rel: *const c_char = ptr::null();
    // SAFETY: `abspath` is NUL-terminated; out-pointers valid.
    let fd = unsafe { linked::__wasilibc_find_abspath(abspath.as_ptr() as _, abs_prefix, &mut rel) };
    if fd < 0 {
        return fd;
    }
    // SAFETY: `rel` points into `abspath` or to a static string, NUL-terminated.
    let rel = unsafe { CStr::from_ptr(rel) }.to_bytes_with_nul();
    // SAFETY: the caller's buffer and its length per the contract.
    unsafe {
        if *relative_buf_len < rel.len() {
            if can_realloc == 0 {
                set_errno(Errno::Range);
                return -1;
            }
            let grown = realloc(*relative_buf as *mut u8, rel.len()) as *mut c_char;
            if grown.is_null() {
                set_errno(Errno::Nomem);
                return -1;
            }
            *relative_buf = grown;
            *relative_buf_len = rel.len();
        }
        ptr::copy_nonoverlapping(rel.as_ptr(), *relative_buf as *mut u8, rel.len());
    }
    fd
}

/// A relative `path` (with its NUL) made absolute against wasi-libc's cwd, as `chdir.c`'s
/// `make_absolute` does: `""`, `"."` and `"./"` are the cwd, one leading `./` is dropped, no
/// other normalisation. NUL-terminated.
fn make_absolute(path: &[u8]) -> Vec<u8> {
    let path = &path[..path.len() - 1];
    let mut out = Vec::new();
    // SAFETY: wasi-libc's cwd is read under its lock; it is a NUL-terminated string, read
    // through a raw pointer because `chdir` writes it.
    unsafe {
        __wasilibc_cwd_lock();
        out.extend_from_slice(CStr::from_ptr(ptr::addr_of!(__wasilibc_cwd).read()).to_bytes());
        __wasilibc_cwd_unlock();
    }
    if !matches!(path, b"" | b"." | b"./") {
        if !out.ends_with(b"/") {
            out.push(b'/');
        }
        out.extend_from_slice(path.strip_prefix(b"./").unwrap_or(path));
    }
    out.push(0);
    out
}
