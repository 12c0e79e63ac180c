//! WASI preview1 value types and constants, transcribed from the witx spec in one place so the
//! shim can pass them through unchanged: rights, open/lookup/fd flags, file types, `filestat`,
//! `fdstat`, `prestat`, the `dirent` record layout, and the byte-slice types that stand in for
//! `iovec`/`ciovec` without std.
//!
//! No state lives here; everything is `Copy` and free of locks.

/// A file descriptor number in the process-wide table.
pub type Fd = u32;
/// Nanoseconds since the Unix epoch (WASI `timestamp`).
pub type Timestamp = u64;
/// The injected clock: returns "now" for atime/mtime/ctime. A plain fn pointer so the core
/// needs no allocation or dyn dispatch for it.
pub type Clock = fn() -> Timestamp;

/// WASI `rights` bits.
pub mod rights {
    pub const FD_DATASYNC: u64 = 1 << 0;
    pub const FD_READ: u64 = 1 << 1;
    pub const FD_SEEK: u64 = 1 << 2;
    pub const FD_FDSTAT_SET_FLAGS: u64 = 1 << 3;
    pub const FD_SYNC: u64 = 1 << 4;
    pub const FD_TELL: u64 = 1 << 5;
    pub const FD_WRITE: u64 = 1 << 6;
    pub const FD_ADVISE: u64 = 1 << 7;
    pub const FD_ALLOCATE: u64 = 1 << 8;
    pub const PATH_CREATE_DIRECTORY: u64 = 1 << 9;
    pub const PATH_CREATE_FILE: u64 = 1 << 10;
    pub const PATH_LINK_SOURCE: u64 = 1 << 11;
    pub const PATH_LINK_TARGET: u64 = 1 << 12;
    pub const PATH_OPEN: u64 = 1 << 13;
    pub const FD_READDIR: u64 = 1 << 14;
    pub const PATH_READLINK: u64 = 1 << 15;
    pub const PATH_RENAME_SOURCE: u64 = 1 << 16;
    pub const PATH_RENAME_TARGET: u64 = 1 << 17;
    pub const PATH_FILESTAT_GET: u64 = 1 << 18;
    pub const PATH_FILESTAT_SET_SIZE: u64 = 1 << 19;
    pub const PATH_FILESTAT_SET_TIMES: u64 = 1 << 20;
    pub const FD_FILESTAT_GET: u64 = 1 << 21;
    pub const FD_FILESTAT_SET_SIZE: u64 = 1 << 22;
    pub const FD_FILESTAT_SET_TIMES: u64 = 1 << 23;
    pub const PATH_SYMLINK: u64 = 1 << 24;
    pub const PATH_REMOVE_DIRECTORY: u64 = 1 << 25;
    pub const PATH_UNLINK_FILE: u64 = 1 << 26;
    pub const POLL_FD_READWRITE: u64 = 1 << 27;
    pub const SOCK_SHUTDOWN: u64 = 1 << 28;
    pub const SOCK_ACCEPT: u64 = 1 << 29;
    /// Every right defined by preview1.
    pub const ALL: u64 = (1 << 30) - 1;
    /// Rights that make an open "for reading" (the effective access mode).
    pub const READ_MODE: u64 = FD_READ | FD_READDIR;
    /// Rights that make an open "for writing" (the effective access mode).
    pub const WRITE_MODE: u64 = FD_WRITE | FD_DATASYNC | FD_ALLOCATE | FD_FILESTAT_SET_SIZE;
}

/// WASI `oflags`.
pub mod oflags {
    pub const CREAT: u16 = 1 << 0;
    pub const DIRECTORY: u16 = 1 << 1;
    pub const EXCL: u16 = 1 << 2;
    pub const TRUNC: u16 = 1 << 3;
}

/// WASI `lookupflags`.
pub mod lookupflags {
    pub const SYMLINK_FOLLOW: u32 = 1 << 0;
}

/// WASI `fdflags`.
pub mod fdflags {
    pub const APPEND: u16 = 1 << 0;
    pub const DSYNC: u16 = 1 << 1;
    pub const NONBLOCK: u16 = 1 << 2;
    pub const RSYNC: u16 = 1 << 3;
    pub const SYNC: u16 = 1 << 4;
}

/// WASI `fstflags` (for the set_times calls).
pub mod fstflags {
    pub const ATIM: u16 = 1 << 0;
    pub const ATIM_NOW: u16 = 1 << 1;
    pub const MTIM: u16 = 1 << 2;
    pub const MTIM_NOW: u16 = 1 << 3;
}

/// WASI `filetype`.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    Unknown = 0,
    BlockDevice = 1,
    CharacterDevice = 2,
    Directory = 3,
    RegularFile = 4,
    SocketDgram = 5,
    SocketStream = 6,
    SymbolicLink = 7,
}

/// WASI `whence`.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whence {
    Set = 0,
    Cur = 1,
    End = 2,
}

impl Whence {
    /// Decodes the raw WASI value.
    pub fn from_raw(v: u8) -> Option<Whence> {
        match v {
            0 => Some(Whence::Set),
            1 => Some(Whence::Cur),
            2 => Some(Whence::End),
            _ => None,
        }
    }
}

/// WASI `filestat` (64 bytes in guest memory, same field order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filestat {
    pub dev: u64,
    pub ino: u64,
    pub filetype: FileType,
    pub nlink: u64,
    pub size: u64,
    pub atim: Timestamp,
    pub mtim: Timestamp,
    pub ctim: Timestamp,
}

/// WASI `fdstat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fdstat {
    pub filetype: FileType,
    pub flags: u16,
    pub rights_base: u64,
    pub rights_inheriting: u64,
}

/// WASI `prestat` for a directory preopen: the length of its guest name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prestat {
    pub name_len: u32,
}

/// One directory entry as `fd_readdir` produces it; `next` is the cookie that resumes after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dirent {
    pub next: u64,
    pub ino: u64,
    pub filetype: FileType,
    pub name: alloc::vec::Vec<u8>,
}

/// Size of the fixed part of a WASI `dirent` record (d_next u64, d_ino u64, d_namlen u32,
/// d_type u8, 3 bytes padding).
pub const DIRENT_SIZE: usize = 24;

/// Serializes `entries` into `buf` as WASI dirent records exactly as wasmtime does: header then
/// name, each copied as far as it fits; the last record may be cut. Returns bytes written
/// (== `buf.len()` tells the caller the buffer filled and it should read again).
pub fn write_dirents(entries: &[Dirent], buf: &mut [u8]) -> usize {
    let mut used = 0;
    for e in entries {
        let mut head = [0u8; DIRENT_SIZE];
        head[0..8].copy_from_slice(&e.next.to_le_bytes());
        head[8..16].copy_from_slice(&e.ino.to_le_bytes());
        head[16..20].copy_from_slice(&(e.name.len() as u32).to_le_bytes());
        head[20] = e.filetype as u8;
        for part in [&head[..], &e.name[..]] {
            let n = part.len().min(buf.len() - used);
            buf[used..used + n].copy_from_slice(&part[..n]);
            used += n;
            if used == buf.len() {
                return used;
            }
        }
    }
    used
}

/// A read-only byte slice of a gather write (`ciovec`).
pub type IoSlice<'a> = &'a [u8];
/// A writable byte slice of a scatter read (`iovec`).
pub type IoSliceMut<'a> = &'a mut [u8];
