//! Module build only (`--cfg spindle_fs_module`): the answers wasmtime 46 gives where spindle-fs's
//! own differ, so that an unmodified program sees the same on the runtime's memory filesystem as
//! on `wasmtime --dir` (the requirement for the runtime's shared FS; checked by running
//! tests/fs-guests/runtime/probe.c on both). The interposition build keeps spindle-fs's answers
//! (docs/in-program-fs.md).
//!
//! - **Rights** only choose the access mode (read and/or write), as in wasmtime, whose preview1
//!   layer enforces nothing else: every other right is granted, so `fd_tell` on an fd opened
//!   with rights READ|WRITE works. A directory opened with O_DIRECTORY ignores the writing
//!   rights other than FD_WRITE (wasi-libc asks for them); FD_WRITE on a directory is EISDIR, as
//!   in wasmtime, whose preview1 opens for writing on FD_WRITE alone.
//! - **fdstat** reports what wasmtime reports: a directory `DIR_BASE`/`DIR_INHERITING`, a file
//!   the rights it was opened with within `DIR_INHERITING`, inheriting 0. spindle-fs keeps the
//!   rights asked for in the fd's inheriting rights (`open_rights`), which nothing else reads:
//!   spindle-fs never checks a new fd's rights against its directory's inheriting ones, and
//!   `fd_fdstat_set_rights` (the only other writer) is ENOTSUP here.
//! - **fd_fdstat_set_rights** is ENOTSUP.
//! - **Escapes** (`..` above the directory fd, absolute paths or symlink targets) are EPERM,
//!   where spindle-fs says ENOTCAPABLE (`errno.rs`). Creating a symlink to an absolute target,
//!   and reading one, are EPERM too (wasmtime never shows an absolute target: it could only
//!   lead outside).
//! - **Data calls on a directory** (read, write, seek, tell) are EBADF, not EISDIR; `fd_readdir`
//!   on a file is EBADF, not ENOTDIR (`errno.rs` for read, write and readdir; seek and tell
//!   check the fd first, [`not_directory`]).

use spindle_fs::{rights, Errno, Fd, Fdstat, FileType, Fs};

/// wasmtime 46's rights of a directory fd.
pub(crate) const DIR_BASE: u64 = 0x7b7_fe00;
/// wasmtime 46's inheriting rights of a directory fd (and the mask of a file's rights).
pub(crate) const DIR_INHERITING: u64 = 0xff7_ffff;

/// The (base, inheriting) rights to give spindle-fs for a `path_open` asking for `base`: every
/// right but the access mode's, and the request itself kept as inheriting (see `fdstat`).
#[inline]
pub(crate) fn open_rights(base: u64, oflags: u16) -> (u64, u64) {
    let mode = rights::READ_MODE | rights::WRITE_MODE;
    let mut r = (rights::ALL & !mode) | (base & mode);
    if oflags & spindle_fs::oflags::DIRECTORY != 0 {
        r &= !(rights::WRITE_MODE & !rights::FD_WRITE);
    }
    (r, base & rights::ALL)
}

/// The fdstat wasmtime would report.
#[inline]
pub(crate) fn fdstat(mut s: Fdstat) -> Fdstat {
    if s.filetype == FileType::Directory {
        s.rights_base = DIR_BASE;
        s.rights_inheriting = DIR_INHERITING;
    } else {
        s.rights_base = s.rights_inheriting & DIR_INHERITING;
        s.rights_inheriting = 0;
    }
    s
}

/// EBADF for a directory fd (seek and tell, which spindle-fs allows on directories).
#[inline]
pub(crate) fn not_directory(fs: &Fs, f: Fd) -> Result<(), Errno> {
    match fs.fd_fdstat_get(f)?.filetype {
        FileType::Directory => Err(Errno::Badf),
        _ => Ok(()),
    }
}

/// EPERM for an absolute symlink target.
#[inline]
pub(crate) fn relative_target(t: &[u8]) -> Result<(), Errno> {
    match t.first() {
        Some(b'/') => Err(Errno::Perm),
        _ => Ok(()),
    }
}
