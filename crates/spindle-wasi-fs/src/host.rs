//! The host's real WASI preview1 imports, under this crate's own symbol names.
//!
//! wasi-libc calls the host through undefined symbols named
//! `__imported_wasi_snapshot_preview1_<call>`; this crate DEFINES those (see `fd_calls.rs`,
//! `path_calls.rs`), so to reach the host it declares the same imports again here. rustc gives
//! a foreign function with a `wasm_import_module` a mangled symbol of its own (it contains
//! `spindle_wasi_fs` and `host`), so these can never resolve to our own definitions, and in the
//! final module's name section they are told apart from imports that bypassed spindle
//! (`runtime/src/check.ts` relies on exactly that).
//!
//! Every declaration has the scalar signature wasi-libc uses (pointers and sizes as i32, 64-bit
//! values as i64, the errno returned as i32). Nothing here is called for a spindle fd.

#[link(wasm_import_module = "wasi_snapshot_preview1")]
extern "C" {
    #[link_name = "environ_get"]
    pub(crate) fn environ_get(environ: i32, buf: i32) -> i32;
    #[link_name = "environ_sizes_get"]
    pub(crate) fn environ_sizes_get(count: i32, size: i32) -> i32;
    #[link_name = "clock_time_get"]
    pub(crate) fn clock_time_get(id: i32, precision: i64, out: i32) -> i32;
    #[link_name = "poll_oneoff"]
    pub(crate) fn poll_oneoff(subs: i32, events: i32, n: i32, out: i32) -> i32;

    #[link_name = "fd_advise"]
    pub(crate) fn fd_advise(fd: i32, offset: i64, len: i64, advice: i32) -> i32;
    #[link_name = "fd_allocate"]
    pub(crate) fn fd_allocate(fd: i32, offset: i64, len: i64) -> i32;
    #[link_name = "fd_close"]
    pub(crate) fn fd_close(fd: i32) -> i32;
    #[link_name = "fd_datasync"]
    pub(crate) fn fd_datasync(fd: i32) -> i32;
    #[link_name = "fd_fdstat_get"]
    pub(crate) fn fd_fdstat_get(fd: i32, out: i32) -> i32;
    #[link_name = "fd_fdstat_set_flags"]
    pub(crate) fn fd_fdstat_set_flags(fd: i32, flags: i32) -> i32;
    #[link_name = "fd_fdstat_set_rights"]
    pub(crate) fn fd_fdstat_set_rights(fd: i32, base: i64, inheriting: i64) -> i32;
    #[link_name = "fd_filestat_get"]
    pub(crate) fn fd_filestat_get(fd: i32, out: i32) -> i32;
    #[link_name = "fd_filestat_set_size"]
    pub(crate) fn fd_filestat_set_size(fd: i32, size: i64) -> i32;
    #[link_name = "fd_filestat_set_times"]
    pub(crate) fn fd_filestat_set_times(fd: i32, atim: i64, mtim: i64, flags: i32) -> i32;
    #[link_name = "fd_pread"]
    pub(crate) fn fd_pread(fd: i32, iovs: i32, n: i32, offset: i64, out: i32) -> i32;
    #[link_name = "fd_prestat_get"]
    pub(crate) fn fd_prestat_get(fd: i32, out: i32) -> i32;
    #[link_name = "fd_prestat_dir_name"]
    pub(crate) fn fd_prestat_dir_name(fd: i32, buf: i32, len: i32) -> i32;
    #[link_name = "fd_pwrite"]
    pub(crate) fn fd_pwrite(fd: i32, iovs: i32, n: i32, offset: i64, out: i32) -> i32;
    #[link_name = "fd_read"]
    pub(crate) fn fd_read(fd: i32, iovs: i32, n: i32, out: i32) -> i32;
    #[link_name = "fd_readdir"]
    pub(crate) fn fd_readdir(fd: i32, buf: i32, len: i32, cookie: i64, out: i32) -> i32;
    #[link_name = "fd_renumber"]
    pub(crate) fn fd_renumber(fd: i32, to: i32) -> i32;
    #[link_name = "fd_seek"]
    pub(crate) fn fd_seek(fd: i32, offset: i64, whence: i32, out: i32) -> i32;
    #[link_name = "fd_sync"]
    pub(crate) fn fd_sync(fd: i32) -> i32;
    #[link_name = "fd_tell"]
    pub(crate) fn fd_tell(fd: i32, out: i32) -> i32;
    #[link_name = "fd_write"]
    pub(crate) fn fd_write(fd: i32, iovs: i32, n: i32, out: i32) -> i32;

    #[link_name = "path_create_directory"]
    pub(crate) fn path_create_directory(fd: i32, path: i32, len: i32) -> i32;
    #[link_name = "path_filestat_get"]
    pub(crate) fn path_filestat_get(fd: i32, flags: i32, path: i32, len: i32, out: i32) -> i32;
    #[link_name = "path_filestat_set_times"]
    pub(crate) fn path_filestat_set_times(
        fd: i32,
        flags: i32,
        path: i32,
        len: i32,
        atim: i64,
        mtim: i64,
        fst: i32,
    ) -> i32;
    #[link_name = "path_link"]
    pub(crate) fn path_link(ofd: i32, oflags: i32, op: i32, ol: i32, nfd: i32, np: i32, nl: i32) -> i32;
    #[link_name = "path_open"]
    pub(crate) fn path_open(
        fd: i32,
        dirflags: i32,
        path: i32,
        len: i32,
        oflags: i32,
        base: i64,
        inheriting: i64,
        fdflags: i32,
        out: i32,
    ) -> i32;
    #[link_name = "path_readlink"]
    pub(crate) fn path_readlink(fd: i32, path: i32, len: i32, buf: i32, buf_len: i32, out: i32) -> i32;
    #[link_name = "path_remove_directory"]
    pub(crate) fn path_remove_directory(fd: i32, path: i32, len: i32) -> i32;
    #[link_name = "path_rename"]
    pub(crate) fn path_rename(fd: i32, op: i32, ol: i32, nfd: i32, np: i32, nl: i32) -> i32;
    #[link_name = "path_symlink"]
    pub(crate) fn path_symlink(op: i32, ol: i32, fd: i32, np: i32, nl: i32) -> i32;
    #[link_name = "path_unlink_file"]
    pub(crate) fn path_unlink_file(fd: i32, path: i32, len: i32) -> i32;
}
