//! Guest memory access for the interposed calls: the program's pointers are plain addresses in
//! the one linear memory we also run in, so "copying in and out" is just reading through them.
//!
//! Every pointer a caller passes is checked against the current memory size first, so a bad
//! pointer is EFAULT (as a host would answer), never a trap. Memory only grows, so a range
//! that was in bounds stays in bounds. Structs are written little-endian field by field at the
//! witx offsets (no `repr(C)` mirrors to keep in sync).

use spindle_fs::{Errno, Fdstat, Filestat, IoSlice, IoSliceMut};

/// Bytes of linear memory right now.
#[inline]
fn memory_len() -> usize {
    core::arch::wasm32::memory_size(0) * 65536
}

/// EFAULT unless `[ptr, ptr+len)` lies in linear memory.
#[inline]
pub fn check(ptr: i32, len: usize) -> Result<(), Errno> {
    let end = (ptr as u32 as usize).checked_add(len).ok_or(Errno::Fault)?;
    if end > memory_len() {
        return Err(Errno::Fault);
    }
    Ok(())
}

/// The bytes at `[ptr, ptr+len)`.
///
/// # Safety
/// The caller (the program) owns the range for the duration of the call, as WASI requires.
#[inline]
pub unsafe fn bytes<'a>(ptr: i32, len: i32) -> Result<&'a [u8], Errno> {
    check(ptr, len as u32 as usize)?;
    // SAFETY: in bounds (checked); the caller lends the range for the call.
    Ok(unsafe { core::slice::from_raw_parts(ptr as u32 as usize as *const u8, len as u32 as usize) })
}

/// The writable bytes at `[ptr, ptr+len)`.
///
/// # Safety
/// As [`bytes`], and no other live reference covers the range.
#[inline]
pub unsafe fn bytes_mut<'a>(ptr: i32, len: i32) -> Result<&'a mut [u8], Errno> {
    check(ptr, len as u32 as usize)?;
    // SAFETY: in bounds (checked); the caller lends the range exclusively for the call.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr as u32 as usize as *mut u8, len as u32 as usize) })
}

/// Writes `v` at `ptr`.
///
/// # Safety
/// The program passed `ptr` as an out-parameter of this size.
#[inline]
pub unsafe fn put<const N: usize>(ptr: i32, v: [u8; N]) -> Result<(), Errno> {
    // SAFETY: forwarded contract.
    unsafe { bytes_mut(ptr, N as i32)? }.copy_from_slice(&v);
    Ok(())
}

/// Stores a u32 result (`size`, `fd`).
///
/// # Safety
/// As [`put`].
#[inline]
pub unsafe fn put_u32(ptr: i32, v: u32) -> Result<(), Errno> {
    // SAFETY: forwarded contract.
    unsafe { put(ptr, v.to_le_bytes()) }
}

/// Stores a u64 result (`filesize`).
///
/// # Safety
/// As [`put`].
#[inline]
pub unsafe fn put_u64(ptr: i32, v: u64) -> Result<(), Errno> {
    // SAFETY: forwarded contract.
    unsafe { put(ptr, v.to_le_bytes()) }
}

/// Encodes a `filestat` (64 bytes).
pub fn filestat(s: &Filestat) -> [u8; 64] {
    let mut b = [0u8; 64];
    b[0..8].copy_from_slice(&s.dev.to_le_bytes());
    b[8..16].copy_from_slice(&s.ino.to_le_bytes());
    b[16] = s.filetype as u8;
    b[24..32].copy_from_slice(&s.nlink.to_le_bytes());
    b[32..40].copy_from_slice(&s.size.to_le_bytes());
    b[40..48].copy_from_slice(&s.atim.to_le_bytes());
    b[48..56].copy_from_slice(&s.mtim.to_le_bytes());
    b[56..64].copy_from_slice(&s.ctim.to_le_bytes());
    b
}

/// Encodes an `fdstat` (24 bytes).
pub fn fdstat(s: &Fdstat) -> [u8; 24] {
    let mut b = [0u8; 24];
    b[0] = s.filetype as u8;
    b[2..4].copy_from_slice(&s.flags.to_le_bytes());
    b[8..16].copy_from_slice(&s.rights_base.to_le_bytes());
    b[16..24].copy_from_slice(&s.rights_inheriting.to_le_bytes());
    b
}

/// Most iovecs handled without allocating; longer lists go to the heap.
const INLINE_IOVS: usize = 8;

/// Reads the `(ptr, len)` pair of iovec `i` of the array at `iovs`.
///
/// # Safety
/// `iovs` was bounds-checked for at least `i + 1` entries.
#[inline]
unsafe fn iovec(iovs: i32, i: usize) -> (i32, i32) {
    let p = (iovs as u32 as usize + i * 8) as *const [u8; 8];
    // SAFETY: in bounds per the caller; unaligned read because the guest may misalign it.
    let e = unsafe { p.read_unaligned() };
    (i32::from_le_bytes([e[0], e[1], e[2], e[3]]), i32::from_le_bytes([e[4], e[5], e[6], e[7]]))
}

/// Calls `f` with the program's `ciovec` array as byte slices.
///
/// # Safety
/// The program lends the buffers for the call.
#[inline]
pub unsafe fn with_ciovs<R>(
    iovs: i32,
    n: i32,
    f: impl FnOnce(&[IoSlice<'_>]) -> Result<R, Errno>,
) -> Result<R, Errno> {
    let n = n as u32 as usize;
    check(iovs, n.checked_mul(8).ok_or(Errno::Fault)?)?;
    if n <= INLINE_IOVS {
        let mut arr: [&[u8]; INLINE_IOVS] = [&[]; INLINE_IOVS];
        for (i, slot) in arr.iter_mut().enumerate().take(n) {
            // SAFETY: i < n, checked above.
            let (p, l) = unsafe { iovec(iovs, i) };
            // SAFETY: lent by the program.
            *slot = unsafe { bytes(p, l)? };
        }
        return f(&arr[..n]);
    }
    let mut v = alloc::vec::Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: as above.
        let (p, l) = unsafe { iovec(iovs, i) };
        // SAFETY: as above.
        v.push(unsafe { bytes(p, l)? });
    }
    f(&v)
}

/// Calls `f` with the program's `iovec` array as writable byte slices.
///
/// # Safety
/// The program lends the buffers for the call; overlapping iovecs are the program's bug (as
/// with `readv`), they alias only bytes the program owns.
#[inline]
pub unsafe fn with_iovs<R>(
    iovs: i32,
    n: i32,
    f: impl FnOnce(&mut [IoSliceMut<'_>]) -> Result<R, Errno>,
) -> Result<R, Errno> {
    let n = n as u32 as usize;
    check(iovs, n.checked_mul(8).ok_or(Errno::Fault)?)?;
    if n <= INLINE_IOVS {
        let mut arr: [&mut [u8]; INLINE_IOVS] = Default::default();
        for (i, slot) in arr.iter_mut().enumerate().take(n) {
            // SAFETY: i < n, checked above.
            let (p, l) = unsafe { iovec(iovs, i) };
            // SAFETY: lent by the program.
            *slot = unsafe { bytes_mut(p, l)? };
        }
        return f(&mut arr[..n]);
    }
    let mut v = alloc::vec::Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: as above.
        let (p, l) = unsafe { iovec(iovs, i) };
        // SAFETY: as above.
        v.push(unsafe { bytes_mut(p, l)? });
    }
    f(&mut v)
}
