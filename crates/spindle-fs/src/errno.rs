//! The one error type of the crate: WASI preview1 `errno` values, transcribed from the
//! witx spec (`typenames.witx`) so the WASI shim can return `e as u16` with no table.
//!
//! Every fallible operation returns `Result<T, Errno>`. A broken internal invariant is a
//! panic (a trap in Wasm), never an errno. Backends map their native errors to `Errno` in
//! exactly one function each.

/// WASI preview1 error numbers (`__wasi_errno_t`). `Success` (0) is never an `Err`.
#[allow(missing_docs)]
#[repr(u16)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Errno {
    Success = 0,
    TooBig = 1,
    Acces = 2,
    Addrinuse = 3,
    Addrnotavail = 4,
    Afnosupport = 5,
    Again = 6,
    Already = 7,
    Badf = 8,
    Badmsg = 9,
    Busy = 10,
    Canceled = 11,
    Child = 12,
    Connaborted = 13,
    Connrefused = 14,
    Connreset = 15,
    Deadlk = 16,
    Destaddrreq = 17,
    Dom = 18,
    Dquot = 19,
    Exist = 20,
    Fault = 21,
    Fbig = 22,
    Hostunreach = 23,
    Idrm = 24,
    Ilseq = 25,
    Inprogress = 26,
    Intr = 27,
    Inval = 28,
    Io = 29,
    Isconn = 30,
    Isdir = 31,
    Loop = 32,
    Mfile = 33,
    Mlink = 34,
    Msgsize = 35,
    Multihop = 36,
    Nametoolong = 37,
    Netdown = 38,
    Netreset = 39,
    Netunreach = 40,
    Nfile = 41,
    Nobufs = 42,
    Nodev = 43,
    Noent = 44,
    Noexec = 45,
    Nolck = 46,
    Nolink = 47,
    Nomem = 48,
    Nomsg = 49,
    Noprotoopt = 50,
    Nospc = 51,
    Nosys = 52,
    Notconn = 53,
    Notdir = 54,
    Notempty = 55,
    Notrecoverable = 56,
    Notsock = 57,
    Notsup = 58,
    Notty = 59,
    Nxio = 60,
    Overflow = 61,
    Ownerdead = 62,
    Perm = 63,
    Pipe = 64,
    Proto = 65,
    Protonosupport = 66,
    Prototype = 67,
    Range = 68,
    Rofs = 69,
    Spipe = 70,
    Srch = 71,
    Stale = 72,
    Timedout = 73,
    Txtbsy = 74,
    Xdev = 75,
    Notcapable = 76,
}

impl Errno {
    /// The raw WASI value, as the shim returns it to the guest.
    #[inline]
    pub const fn raw(self) -> u16 {
        self as u16
    }

    /// Maps a Linux `errno` to its WASI value (the model tests compare with Linux). Unknown
    /// values become `Io`.
    pub fn from_linux(e: i32) -> Errno {
        use Errno::*;
        match e {
            1 => Perm,
            2 => Noent,
            3 => Srch,
            5 => Io,
            7 => TooBig,
            9 => Badf,
            11 => Again,
            12 => Nomem,
            13 => Acces,
            16 => Busy,
            17 => Exist,
            18 => Xdev,
            20 => Notdir,
            21 => Isdir,
            22 => Inval,
            23 => Nfile,
            24 => Mfile,
            25 => Notty,
            26 => Txtbsy,
            27 => Fbig,
            28 => Nospc,
            29 => Spipe,
            30 => Rofs,
            31 => Mlink,
            32 => Pipe,
            36 => Nametoolong,
            38 => Nosys,
            39 => Notempty,
            40 => Loop,
            75 => Overflow,
            110 => Timedout,
            116 => Stale,
            84 => Ilseq,
            95 => Notsup,
            122 => Dquot,
            _ => Io,
        }
    }
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Errno>;

#[cfg(test)]
mod tests {
    use super::Errno;

    #[test]
    fn values_match_the_spec() {
        assert_eq!(Errno::Badf.raw(), 8);
        assert_eq!(Errno::Noent.raw(), 44);
        assert_eq!(Errno::Notcapable.raw(), 76);
        // witx: ..., spipe 70, srch 71, stale 72, timedout 73, txtbsy 74, xdev 75, notcapable 76.
        assert_eq!(Errno::Spipe.raw(), 70);
        assert_eq!(Errno::Srch.raw(), 71);
        assert_eq!(Errno::Stale.raw(), 72);
        assert_eq!(Errno::Timedout.raw(), 73);
        assert_eq!(Errno::Txtbsy.raw(), 74);
        assert_eq!(Errno::Xdev.raw(), 75);
        assert_eq!(Errno::from_linux(40), Errno::Loop);
    }
}
