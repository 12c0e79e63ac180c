//! The interposed `poll_oneoff`: a subscription on a spindle fd is always ready (memory files
//! never block), so if any subscription names one, the call returns at once. Subscriptions on
//! host fds and clocks go to the host: all of them unchanged when no spindle fd is involved;
//! otherwise together with an extra zero-timeout clock so the host reports what is ready now
//! without waiting, and that extra event is dropped from the result.
//!
//! Layouts (witx): `subscription` is 48 bytes (userdata u64 @0, tag u8 @8, clock id u32 @16 /
//! fd u32 @16, timeout u64 @24, precision u64 @32, flags u16 @40); `event` is 32 bytes
//! (userdata u64 @0, error u16 @8, type u8 @10, nbytes u64 @16, flags u16 @24).

use crate::errno::{errno, ret};
use crate::fds::{route, Route};
use crate::host;
use crate::mem::{self, put_u32};
use crate::state::fs;
use alloc::vec::Vec;
use spindle_fs::Errno;

const SUB: usize = 48;
const EVENT: usize = 32;
const TAG_CLOCK: u8 = 0;
const TAG_FD_READ: u8 = 1;
/// userdata of the zero-timeout clock this module adds (dropped from the results).
const MARKER: u64 = 0x5350_494e_444c_4500;

/// Whether subscription `s` is on a spindle fd, and which.
fn spindle_fd(s: &[u8]) -> Option<(u8, spindle_fs::Fd)> {
    let tag = s[8];
    if tag == TAG_CLOCK {
        return None;
    }
    let fd = i32::from_le_bytes([s[16], s[17], s[18], s[19]]);
    match route(fd) {
        Route::Spindle(f) => Some((tag, f)),
        Route::Host => None,
    }
}

/// The event for a ready spindle fd (EBADF if it is not open).
fn spindle_event(userdata: &[u8], tag: u8, f: spindle_fs::Fd) -> [u8; EVENT] {
    let mut e = [0u8; EVENT];
    e[0..8].copy_from_slice(userdata);
    e[10] = tag;
    match fs().fd_filestat_get(f) {
        Err(err) => e[8..10].copy_from_slice(&(errno(err) as u16).to_le_bytes()),
        Ok(st) => {
            let nbytes =
                if tag == TAG_FD_READ { st.size.saturating_sub(fs().fd_tell(f).unwrap_or(0)) } else { 0 };
            e[16..24].copy_from_slice(&nbytes.to_le_bytes());
        }
    }
    e
}

/// `poll_oneoff`.
///
/// # Safety
/// WASI contract: `subs` holds `n` subscriptions, `events` room for `n` events.
#[no_mangle]
pub unsafe extern "C" fn __imported_wasi_snapshot_preview1_poll_oneoff(
    subs: i32,
    events: i32,
    n: i32,
    out: i32,
) -> i32 {
    let Some(len) = (n as u32 as usize).checked_mul(SUB) else {
        return errno(Errno::Fault);
    };
    // SAFETY: the program lends the subscriptions for the call.
    let Ok(sub_bytes) = (unsafe { mem::bytes(subs, len as i32) }) else {
        return errno(Errno::Fault);
    };
    if !sub_bytes.chunks_exact(SUB).any(|s| spindle_fd(s).is_some()) {
        // SAFETY: forwarded verbatim.
        return unsafe { host::poll_oneoff(subs, events, n, out) };
    }
    ret((|| {
        // SAFETY: the program lends room for n events and the count.
        let ev = unsafe { mem::bytes_mut(events, (n as u32 as usize * EVENT) as i32)? };
        mem::check(out, 4)?;
        let mut written = 0usize;
        let mut host_subs: Vec<u8> = Vec::new();
        for s in sub_bytes.chunks_exact(SUB) {
            match spindle_fd(s) {
                Some((tag, f)) => {
                    ev[written * EVENT..(written + 1) * EVENT].copy_from_slice(&spindle_event(
                        &s[0..8],
                        tag,
                        f,
                    ));
                    written += 1;
                }
                None => host_subs.extend_from_slice(s),
            }
        }
        if !host_subs.is_empty() {
            let mut zero = [0u8; SUB];
            zero[0..8].copy_from_slice(&MARKER.to_le_bytes());
            zero[8] = TAG_CLOCK;
            zero[16..20].copy_from_slice(&1u32.to_le_bytes()); // monotonic, relative timeout 0
            host_subs.extend_from_slice(&zero);
            let m = host_subs.len() / SUB;
            let mut host_ev = alloc::vec![0u8; m * EVENT];
            let mut got = 0u32;
            // SAFETY: buffers of the sizes the call needs.
            let e = unsafe {
                host::poll_oneoff(
                    host_subs.as_ptr() as i32,
                    host_ev.as_mut_ptr() as i32,
                    m as i32,
                    &mut got as *mut u32 as i32,
                )
            };
            if e == 0 {
                for h in host_ev.chunks_exact(EVENT).take(got as usize) {
                    if h[0..8] == MARKER.to_le_bytes() && h[10] == TAG_CLOCK {
                        continue;
                    }
                    ev[written * EVENT..(written + 1) * EVENT].copy_from_slice(h);
                    written += 1;
                }
            }
        }
        // SAFETY: checked out-pointer.
        unsafe { put_u32(out, written as u32) }
    })())
}
