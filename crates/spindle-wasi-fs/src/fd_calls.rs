//! The interposed `fd_*` calls, one [`wasi_call!`] each (routing, symbol names and safety
//! contract are written there once). A spindle fd's call reads and writes the program's
//! buffers in place (`mem.rs`); every call returns a WASI errno and never traps on bad input.

use crate::errno::{data_errno, readdir_errno};
use crate::interpose::wasi_call;
use crate::mem::{self, put_u32, put_u64, with_ciovs, with_iovs};
use crate::opfs;
use crate::state::fs;
use spindle_fs::{Errno, Whence};

wasi_call! {
    /// `fd_read`: `nread` is checked before the read moves the offset.
    fn fd_read(fd: i32, iovs: i32, iovs_len: i32, nread: i32) routes fd => |f| {
        mem::check(nread, 4)?;
        // SAFETY: the program lends the iovecs and `nread` for the call.
        unsafe {
            let n = with_iovs(iovs, iovs_len, |b| fs().fd_read(f, b).map_err(data_errno))?;
            put_u32(nread, n as u32)
        }
    }
}

wasi_call! {
    /// `fd_write`: `nwritten` is checked before anything is written (a failed call must not
    /// have written).
    fn fd_write(fd: i32, iovs: i32, iovs_len: i32, nwritten: i32) routes fd => |f| {
        mem::check(nwritten, 4)?;
        // SAFETY: the program lends the iovecs and `nwritten` for the call.
        unsafe {
            let n = with_ciovs(iovs, iovs_len, |b| fs().fd_write(f, b).map_err(data_errno))?;
            put_u32(nwritten, n as u32)
        }
    }
}

wasi_call! {
    /// `fd_pread`.
    fn fd_pread(fd: i32, iovs: i32, iovs_len: i32, offset: i64, nread: i32) routes fd => |f| {
        // SAFETY: the program lends the iovecs and `nread` for the call.
        unsafe {
            let n = with_iovs(iovs, iovs_len, |b| fs().fd_pread(f, b, offset as u64).map_err(data_errno))?;
            put_u32(nread, n as u32)
        }
    }
}

wasi_call! {
    /// `fd_pwrite`: `nwritten` is checked before anything is written.
    fn fd_pwrite(fd: i32, iovs: i32, iovs_len: i32, offset: i64, nwritten: i32) routes fd => |f| {
        mem::check(nwritten, 4)?;
        // SAFETY: the program lends the iovecs and `nwritten` for the call.
        unsafe {
            let n =
                with_ciovs(iovs, iovs_len, |b| fs().fd_pwrite(f, b, offset as u64).map_err(data_errno))?;
            put_u32(nwritten, n as u32)
        }
    }
}

wasi_call! {
    /// `fd_seek`.
    fn fd_seek(fd: i32, offset: i64, whence: i32, newoffset: i32) routes fd => |f| {
        let w = Whence::from_raw(whence as u8).filter(|_| whence as u32 <= 2).ok_or(Errno::Inval)?;
        mem::check(newoffset, 8)?;
        #[cfg(spindle_fs_module)]
        crate::wasmtime::not_directory(fs(), f)?;
        let pos = fs().fd_seek(f, offset, w)?;
        // SAFETY: the program's out-pointer.
        unsafe { put_u64(newoffset, pos) }
    }
}

wasi_call! {
    /// `fd_tell`.
    fn fd_tell(fd: i32, offset: i32) routes fd => |f| {
        #[cfg(spindle_fs_module)]
        crate::wasmtime::not_directory(fs(), f)?;
        let pos = fs().fd_tell(f)?;
        // SAFETY: the program's out-pointer.
        unsafe { put_u64(offset, pos) }
    }
}

wasi_call! {
    /// `fd_close` (on an OPFS mount: the file's write-back is queued first).
    fn fd_close(fd: i32) routes fd => |f| {
        let fs = fs();
        opfs::close(fs, f, || fs.fd_close(f))
    }
}

wasi_call! {
    /// `fd_sync` (on an OPFS mount: then waits until the file reached OPFS).
    fn fd_sync(fd: i32) routes fd => |f| {
        let fs = fs();
        opfs::sync(fs, f, || fs.fd_sync(f))
    }
}

wasi_call! {
    /// `fd_datasync` (as `fd_sync`).
    fn fd_datasync(fd: i32) routes fd => |f| {
        let fs = fs();
        opfs::sync(fs, f, || fs.fd_datasync(f))
    }
}

wasi_call! {
    /// `fd_fdstat_get` (module build: the rights wasmtime reports).
    fn fd_fdstat_get(fd: i32, stat: i32) routes fd => |f| {
        let s = fs().fd_fdstat_get(f)?;
        #[cfg(spindle_fs_module)]
        let s = crate::wasmtime::fdstat(s);
        // SAFETY: the program's out-pointer.
        unsafe { mem::put(stat, mem::fdstat(&s)) }
    }
}

wasi_call! {
    /// `fd_fdstat_set_flags`.
    fn fd_fdstat_set_flags(fd: i32, flags: i32) routes fd => |f| {
        fs().fd_fdstat_set_flags(f, flags as u16)
    }
}

wasi_call! {
    /// `fd_fdstat_set_rights` (module build: ENOTSUP for an open fd, as wasmtime 46).
    fn fd_fdstat_set_rights(fd: i32, fs_rights_base: i64, fs_rights_inheriting: i64) routes fd => |f| {
        if cfg!(spindle_fs_module) {
            fs().fd_fdstat_get(f).and(Err(Errno::Notsup))
        } else {
            fs().fd_fdstat_set_rights(f, fs_rights_base as u64, fs_rights_inheriting as u64)
        }
    }
}

wasi_call! {
    /// `fd_filestat_get`.
    fn fd_filestat_get(fd: i32, buf: i32) routes fd => |f| {
        let s = fs().fd_filestat_get(f)?;
        // SAFETY: the program's out-pointer.
        unsafe { mem::put(buf, mem::filestat(&s)) }
    }
}

wasi_call! {
    /// `fd_filestat_set_size`.
    fn fd_filestat_set_size(fd: i32, size: i64) routes fd => |f| {
        fs().fd_filestat_set_size(f, size as u64)
    }
}

wasi_call! {
    /// `fd_filestat_set_times`.
    fn fd_filestat_set_times(fd: i32, atim: i64, mtim: i64, fst_flags: i32) routes fd => |f| {
        fs().fd_filestat_set_times(f, atim as u64, mtim as u64, fst_flags as u16)
    }
}

wasi_call! {
    /// `fd_readdir`.
    fn fd_readdir(fd: i32, buf: i32, buf_len: i32, cookie: i64, bufused: i32) routes fd => |f| {
        // SAFETY: the program lends `buf` for the call.
        let b = unsafe { mem::bytes_mut(buf, buf_len)? };
        let n = fs().fd_readdir_into(f, b, cookie as u64).map_err(readdir_errno)?;
        // SAFETY: the program's out-pointer.
        unsafe { put_u32(bufused, n as u32) }
    }
}

wasi_call! {
    /// `fd_renumber`: within one world only (EBADF across worlds, see `fds.rs`).
    fn fd_renumber(fd: i32, to: i32) routes (fd, to) else Badf => |a, b| {
        let fs = fs();
        opfs::renumber(fs, a, b, || fs.fd_renumber(a, b))
    }
}

wasi_call! {
    /// `fd_allocate`.
    fn fd_allocate(fd: i32, offset: i64, len: i64) routes fd => |f| {
        fs().fd_allocate(f, offset as u64, len as u64)
    }
}

wasi_call! {
    /// `fd_advise`.
    fn fd_advise(fd: i32, offset: i64, len: i64, advice: i32) routes fd => |f| {
        fs().fd_advise(f, offset as u64, len as u64, advice as u8)
    }
}

wasi_call! {
    /// `fd_prestat_get`: the host's preopens, and spindle's (at their spindle fds).
    fn fd_prestat_get(fd: i32, buf: i32) routes fd => |f| {
        let p = fs().fd_prestat_get(f)?;
        let mut b = [0u8; 8];
        b[4..8].copy_from_slice(&p.name_len.to_le_bytes());
        // SAFETY: the program's out-pointer.
        unsafe { mem::put(buf, b) }
    }
}

wasi_call! {
    /// `fd_prestat_dir_name`.
    fn fd_prestat_dir_name(fd: i32, path: i32, path_len: i32) routes fd => |f| {
        // SAFETY: the program lends `path` for the call.
        let b = unsafe { mem::bytes_mut(path, path_len)? };
        fs().fd_prestat_dir_name(f, b)
    }
}
