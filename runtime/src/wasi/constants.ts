/**
 * The numbers of WASI preview1, transcribed in one place from the spec
 * (WebAssembly/WASI `legacy/preview1/witx/typenames.witx`, checked against the witx-generated
 * static asserts in wasi-libc's `wasi/api.h`). Nothing else in `src/wasi/` writes a WASI number
 * or a struct offset literally.
 *
 * Layout rule: all integers are little-endian; `u64` fields are 8-aligned. Offsets below are byte
 * offsets from the start of the struct.
 */

/** errno: the result of every WASI function (u16). */
export const ERRNO_SUCCESS = 0;
export const ERRNO_2BIG = 1;
export const ERRNO_ACCES = 2;
export const ERRNO_ADDRINUSE = 3;
export const ERRNO_ADDRNOTAVAIL = 4;
export const ERRNO_AFNOSUPPORT = 5;
export const ERRNO_AGAIN = 6;
export const ERRNO_ALREADY = 7;
export const ERRNO_BADF = 8;
export const ERRNO_BADMSG = 9;
export const ERRNO_BUSY = 10;
export const ERRNO_CANCELED = 11;
export const ERRNO_CHILD = 12;
export const ERRNO_CONNABORTED = 13;
export const ERRNO_CONNREFUSED = 14;
export const ERRNO_CONNRESET = 15;
export const ERRNO_DEADLK = 16;
export const ERRNO_DESTADDRREQ = 17;
export const ERRNO_DOM = 18;
export const ERRNO_DQUOT = 19;
export const ERRNO_EXIST = 20;
export const ERRNO_FAULT = 21;
export const ERRNO_FBIG = 22;
export const ERRNO_HOSTUNREACH = 23;
export const ERRNO_IDRM = 24;
export const ERRNO_ILSEQ = 25;
export const ERRNO_INPROGRESS = 26;
export const ERRNO_INTR = 27;
export const ERRNO_INVAL = 28;
export const ERRNO_IO = 29;
export const ERRNO_ISCONN = 30;
export const ERRNO_ISDIR = 31;
export const ERRNO_LOOP = 32;
export const ERRNO_MFILE = 33;
export const ERRNO_MLINK = 34;
export const ERRNO_MSGSIZE = 35;
export const ERRNO_MULTIHOP = 36;
export const ERRNO_NAMETOOLONG = 37;
export const ERRNO_NETDOWN = 38;
export const ERRNO_NETRESET = 39;
export const ERRNO_NETUNREACH = 40;
export const ERRNO_NFILE = 41;
export const ERRNO_NOBUFS = 42;
export const ERRNO_NODEV = 43;
export const ERRNO_NOENT = 44;
export const ERRNO_NOEXEC = 45;
export const ERRNO_NOLCK = 46;
export const ERRNO_NOLINK = 47;
export const ERRNO_NOMEM = 48;
export const ERRNO_NOMSG = 49;
export const ERRNO_NOPROTOOPT = 50;
export const ERRNO_NOSPC = 51;
export const ERRNO_NOSYS = 52;
export const ERRNO_NOTCONN = 53;
export const ERRNO_NOTDIR = 54;
export const ERRNO_NOTEMPTY = 55;
export const ERRNO_NOTRECOVERABLE = 56;
export const ERRNO_NOTSOCK = 57;
export const ERRNO_NOTSUP = 58;
export const ERRNO_NOTTY = 59;
export const ERRNO_NXIO = 60;
export const ERRNO_OVERFLOW = 61;
export const ERRNO_OWNERDEAD = 62;
export const ERRNO_PERM = 63;
export const ERRNO_PIPE = 64;
export const ERRNO_PROTO = 65;
export const ERRNO_PROTONOSUPPORT = 66;
export const ERRNO_PROTOTYPE = 67;
export const ERRNO_RANGE = 68;
export const ERRNO_ROFS = 69;
export const ERRNO_SPIPE = 70;
export const ERRNO_SRCH = 71;
export const ERRNO_STALE = 72;
export const ERRNO_TIMEDOUT = 73;
export const ERRNO_TXTBSY = 74;
export const ERRNO_XDEV = 75;
export const ERRNO_NOTCAPABLE = 76;
/** Largest errno value the spec defines (notcapable). */
export const ERRNO_MAX = 76;

/** clockid (u32). */
export const CLOCKID_REALTIME = 0;
export const CLOCKID_MONOTONIC = 1;
export const CLOCKID_PROCESS_CPUTIME_ID = 2;
export const CLOCKID_THREAD_CPUTIME_ID = 3;

/** filetype (u8). */
export const FILETYPE_UNKNOWN = 0;
export const FILETYPE_BLOCK_DEVICE = 1;
export const FILETYPE_CHARACTER_DEVICE = 2;
export const FILETYPE_DIRECTORY = 3;
export const FILETYPE_REGULAR_FILE = 4;
export const FILETYPE_SOCKET_DGRAM = 5;
export const FILETYPE_SOCKET_STREAM = 6;
export const FILETYPE_SYMBOLIC_LINK = 7;

/** whence (u8). */
export const WHENCE_SET = 0;
export const WHENCE_CUR = 1;
export const WHENCE_END = 2;

/** advice (u8): valid values are 0..=5 (normal .. noreuse). */
export const ADVICE_MAX = 5;

/** fdflags (u16). */
export const FDFLAGS_APPEND = 1 << 0;
export const FDFLAGS_DSYNC = 1 << 1;
export const FDFLAGS_NONBLOCK = 1 << 2;
export const FDFLAGS_RSYNC = 1 << 3;
export const FDFLAGS_SYNC = 1 << 4;
export const FDFLAGS_ALL = 0x1f;

/** fstflags (u16). */
export const FSTFLAGS_ATIM = 1 << 0;
export const FSTFLAGS_ATIM_NOW = 1 << 1;
export const FSTFLAGS_MTIM = 1 << 2;
export const FSTFLAGS_MTIM_NOW = 1 << 3;
export const FSTFLAGS_ALL = 0xf;

/** lookupflags (u32). */
export const LOOKUPFLAGS_SYMLINK_FOLLOW = 1 << 0;
export const LOOKUPFLAGS_ALL = 0x1;

/** oflags (u16). */
export const OFLAGS_CREAT = 1 << 0;
export const OFLAGS_DIRECTORY = 1 << 1;
export const OFLAGS_EXCL = 1 << 2;
export const OFLAGS_TRUNC = 1 << 3;
export const OFLAGS_ALL = 0xf;

/** rights (u64): bit numbers in spec order. */
export const RIGHTS_FD_DATASYNC = 1n << 0n;
export const RIGHTS_FD_READ = 1n << 1n;
export const RIGHTS_FD_SEEK = 1n << 2n;
export const RIGHTS_FD_FDSTAT_SET_FLAGS = 1n << 3n;
export const RIGHTS_FD_SYNC = 1n << 4n;
export const RIGHTS_FD_TELL = 1n << 5n;
export const RIGHTS_FD_WRITE = 1n << 6n;
export const RIGHTS_FD_ADVISE = 1n << 7n;
export const RIGHTS_FD_ALLOCATE = 1n << 8n;
export const RIGHTS_PATH_CREATE_DIRECTORY = 1n << 9n;
export const RIGHTS_PATH_CREATE_FILE = 1n << 10n;
export const RIGHTS_PATH_LINK_SOURCE = 1n << 11n;
export const RIGHTS_PATH_LINK_TARGET = 1n << 12n;
export const RIGHTS_PATH_OPEN = 1n << 13n;
export const RIGHTS_FD_READDIR = 1n << 14n;
export const RIGHTS_PATH_READLINK = 1n << 15n;
export const RIGHTS_PATH_RENAME_SOURCE = 1n << 16n;
export const RIGHTS_PATH_RENAME_TARGET = 1n << 17n;
export const RIGHTS_PATH_FILESTAT_GET = 1n << 18n;
export const RIGHTS_PATH_FILESTAT_SET_SIZE = 1n << 19n;
export const RIGHTS_PATH_FILESTAT_SET_TIMES = 1n << 20n;
export const RIGHTS_FD_FILESTAT_GET = 1n << 21n;
export const RIGHTS_FD_FILESTAT_SET_SIZE = 1n << 22n;
export const RIGHTS_FD_FILESTAT_SET_TIMES = 1n << 23n;
export const RIGHTS_PATH_SYMLINK = 1n << 24n;
export const RIGHTS_PATH_REMOVE_DIRECTORY = 1n << 25n;
export const RIGHTS_PATH_UNLINK_FILE = 1n << 26n;
export const RIGHTS_POLL_FD_READWRITE = 1n << 27n;
export const RIGHTS_SOCK_SHUTDOWN = 1n << 28n;
export const RIGHTS_SOCK_ACCEPT = 1n << 29n;

/** eventtype (u8), also the tag of `subscription_u`. */
export const EVENTTYPE_CLOCK = 0;
export const EVENTTYPE_FD_READ = 1;
export const EVENTTYPE_FD_WRITE = 2;

/** eventrwflags (u16). */
export const EVENTRWFLAGS_FD_READWRITE_HANGUP = 1 << 0;

/** subclockflags (u16). */
export const SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME = 1 << 0;
export const SUBCLOCKFLAGS_ALL = 0x1;

/** riflags (u16), roflags (u16), siflags (u16, no bits), sdflags (u8). */
export const RIFLAGS_ALL = 0x3;
export const SIFLAGS_ALL = 0x0;
export const SDFLAGS_ALL = 0x3;

/** signal (u8): valid values are 0..=30 (none .. sys). */
export const SIGNAL_MAX = 30;

/** preopentype (u8). */
export const PREOPENTYPE_DIR = 0;

/** iovec / ciovec: { buf: u32 @0, buf_len: u32 @4 }, 8 bytes. */
export const IOVEC_SIZE = 8;

/** fdstat: 24 bytes. */
export const FDSTAT_SIZE = 24;
export const FDSTAT_FILETYPE = 0; // u8
export const FDSTAT_FLAGS = 2; // u16
export const FDSTAT_RIGHTS_BASE = 8; // u64
export const FDSTAT_RIGHTS_INHERITING = 16; // u64

/** filestat: 64 bytes. */
export const FILESTAT_SIZE = 64;
export const FILESTAT_DEV = 0; // u64
export const FILESTAT_INO = 8; // u64
export const FILESTAT_FILETYPE = 16; // u8
export const FILESTAT_NLINK = 24; // u64
export const FILESTAT_SIZE_FIELD = 32; // u64
export const FILESTAT_ATIM = 40; // u64
export const FILESTAT_MTIM = 48; // u64
export const FILESTAT_CTIM = 56; // u64

/** prestat: { tag: u8 @0, u.dir.pr_name_len: u32 @4 }, 8 bytes. */
export const PRESTAT_SIZE = 8;
export const PRESTAT_TAG = 0;
export const PRESTAT_DIR_NAME_LEN = 4;

/**
 * subscription: 48 bytes, 8-aligned.
 * { userdata: u64 @0, u: subscription_u @8 } where subscription_u = { tag: u8 @0, contents @8 }.
 */
export const SUBSCRIPTION_SIZE = 48;
export const SUBSCRIPTION_USERDATA = 0; // u64
export const SUBSCRIPTION_TAG = 8; // u8 (eventtype)
export const SUBSCRIPTION_CLOCK_ID = 16; // u32
export const SUBSCRIPTION_CLOCK_TIMEOUT = 24; // u64
export const SUBSCRIPTION_CLOCK_PRECISION = 32; // u64
export const SUBSCRIPTION_CLOCK_FLAGS = 40; // u16
export const SUBSCRIPTION_FD = 16; // u32 (fd_read / fd_write)

/**
 * event: 32 bytes, 8-aligned.
 * { userdata: u64 @0, error: u16 @8, type: u8 @10, fd_readwrite: { nbytes: u64 @16, flags: u16 @24 } }
 */
export const EVENT_SIZE = 32;
export const EVENT_USERDATA = 0; // u64
export const EVENT_ERROR = 8; // u16
export const EVENT_TYPE = 10; // u8
export const EVENT_FD_NBYTES = 16; // u64
export const EVENT_FD_FLAGS = 24; // u16
