/* WASI conformance corners of a directory (issue 17, item 1), printed call by call so that the
 * answers of spindle's host directories, memory mounts and in-program FS can be compared with
 * wasmtime 46's (--dir of an empty directory) line by line. The directory is the first preopen
 * /d, empty at start:
 *   - trailing slashes on every path call (a name that is not a directory, or does not exist);
 *   - rights against file types (a directory opened for writing, O_DIRECTORY on a file);
 *   - fdflags APPEND set at open and cleared later, and set later on a plain fd;
 *   - timestamps to the nanosecond through fds and paths (also on a symlink), one time at a
 *     time (the other must not move), and the NOW flags.
 * Prints "<case>: <errno>" (0 = success) and the values read back; ends with "conformance done". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

static __wasi_fd_t dir = 0;
#define R_FILE (__WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE | __WASI_RIGHTS_FD_SEEK | __WASI_RIGHTS_FD_TELL | \
                __WASI_RIGHTS_FD_FILESTAT_GET | __WASI_RIGHTS_FD_FILESTAT_SET_TIMES | __WASI_RIGHTS_FD_FDSTAT_SET_FLAGS | \
                __WASI_RIGHTS_FD_FILESTAT_SET_SIZE)
#define SHOW(label, call) printf("%s: %d\n", label, (int)(call))

static __wasi_errno_t open_(const char *p, int oflags, __wasi_rights_t rights, int fdflags, __wasi_fd_t *fd) {
  return __wasi_path_open(dir, 0, p, oflags, rights, rights, fdflags, fd);
}

static void put(__wasi_fd_t fd, const char *text) {
  __wasi_ciovec_t iov = {.buf = (const uint8_t *)text, .buf_len = strlen(text)};
  __wasi_size_t n;
  __wasi_errno_t e = __wasi_fd_write(fd, &iov, 1, &n);
  if (e != 0 || n != strlen(text)) printf("write %s failed: %d\n", text, e);
}

static void contents(const char *label, const char *p) {
  __wasi_fd_t fd;
  char buf[64] = {0};
  __wasi_size_t n = 0;
  if (open_(p, 0, __WASI_RIGHTS_FD_READ, 0, &fd) == 0) {
    __wasi_iovec_t iov = {.buf = (uint8_t *)buf, .buf_len = sizeof buf - 1};
    if (__wasi_fd_read(fd, &iov, 1, &n) != 0) n = 0;
    (void)!__wasi_fd_close(fd);
  }
  printf("%s: \"%.*s\"\n", label, (int)n, buf);
}

static void times(const char *label, int follow, const char *p) {
  __wasi_filestat_t st;
  memset(&st, 0, sizeof st);
  __wasi_errno_t e = __wasi_path_filestat_get(dir, follow ? __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW : 0, p, &st);
  printf("%s: errno %d atim %llu mtim %llu\n", label, e, (unsigned long long)st.atim, (unsigned long long)st.mtim);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* the directory through wasi-libc (its preopen table finds /d on every runtime and FS) */
  int d = open("/d", O_RDONLY | O_DIRECTORY);
  if (d < 0) { printf("no /d\n"); return 1; }
  dir = (__wasi_fd_t)d;
  __wasi_fd_t f, g;
  SHOW("create file", open_("file", __WASI_OFLAGS_CREAT, R_FILE, 0, &f));
  put(f, "0123456789");
  SHOW("close file", __wasi_fd_close(f));
  SHOW("mkdir dir", __wasi_path_create_directory(dir, "dir"));
  SHOW("symlink tofile", __wasi_path_symlink("file", dir, "tofile"));
  SHOW("symlink todir", __wasi_path_symlink("dir", dir, "todir"));

  /* trailing slashes */
  SHOW("open file/", open_("file/", 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open missing/", open_("missing/", 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("open missing/ creat", open_("missing/", __WASI_OFLAGS_CREAT, R_FILE, 0, &g));
  SHOW("open dir/", open_("dir/", 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("close dir/", __wasi_fd_close(g));
  SHOW("open todir/", open_("todir/", 0, __WASI_RIGHTS_FD_READ, 0, &g));
  SHOW("close todir/", __wasi_fd_close(g));
  SHOW("open tofile/", open_("tofile/", 0, __WASI_RIGHTS_FD_READ, 0, &g));
  __wasi_filestat_t st;
  SHOW("stat file/", __wasi_path_filestat_get(dir, 0, "file/", &st));
  SHOW("stat dir/", __wasi_path_filestat_get(dir, 0, "dir/", &st));
  SHOW("stat tofile/", __wasi_path_filestat_get(dir, 0, "tofile/", &st));
  SHOW("stat todir/", __wasi_path_filestat_get(dir, 0, "todir/", &st));
  SHOW("stat missing/", __wasi_path_filestat_get(dir, 0, "missing/", &st));
  SHOW("set times file/", __wasi_path_filestat_set_times(dir, 0, "file/", 0, 0, __WASI_FSTFLAGS_MTIM_NOW));
  SHOW("set times missing/", __wasi_path_filestat_set_times(dir, 0, "missing/", 0, 0, __WASI_FSTFLAGS_MTIM_NOW));
  SHOW("mkdir new/", __wasi_path_create_directory(dir, "new/"));
  SHOW("mkdir file/", __wasi_path_create_directory(dir, "file/"));
  SHOW("rmdir new/", __wasi_path_remove_directory(dir, "new/"));
  SHOW("rmdir file/", __wasi_path_remove_directory(dir, "file/"));
  SHOW("rmdir missing/", __wasi_path_remove_directory(dir, "missing/"));
  SHOW("unlink file/", __wasi_path_unlink_file(dir, "file/"));
  SHOW("unlink missing/", __wasi_path_unlink_file(dir, "missing/"));
  SHOW("unlink tofile/", __wasi_path_unlink_file(dir, "tofile/"));
  SHOW("symlink to target/", __wasi_path_symlink("file", dir, "target/"));
  SHOW("symlink to file/", __wasi_path_symlink("x", dir, "file/"));
  SHOW("symlink to dir/", __wasi_path_symlink("x", dir, "dir/"));
  SHOW("link to link/", __wasi_path_link(dir, 0, "file", dir, "link/"));
  SHOW("link file/ to l", __wasi_path_link(dir, 0, "file/", dir, "l"));
  SHOW("link to dir/", __wasi_path_link(dir, 0, "file", dir, "dir/"));
  SHOW("create rfile", open_("rfile", __WASI_OFLAGS_CREAT, R_FILE, 0, &g));
  SHOW("close rfile", __wasi_fd_close(g));
  SHOW("rename rfile/ to renamed", __wasi_path_rename(dir, "rfile/", dir, "renamed"));
  SHOW("rename rfile to dir/", __wasi_path_rename(dir, "rfile", dir, "dir/"));
  SHOW("rename rfile to renamed/", __wasi_path_rename(dir, "rfile", dir, "renamed/"));
  SHOW("stat renamed", __wasi_path_filestat_get(dir, 0, "renamed", &st));
  SHOW("rename dir/ to dir2/", __wasi_path_rename(dir, "dir/", dir, "dir2/"));
  SHOW("rename dir2 to dir", __wasi_path_rename(dir, "dir2", dir, "dir"));
  char buf[32];
  __wasi_size_t used;
  SHOW("readlink tofile/", __wasi_path_readlink(dir, "tofile/", (uint8_t *)buf, sizeof buf, &used));
  SHOW("readlink todir/", __wasi_path_readlink(dir, "todir/", (uint8_t *)buf, sizeof buf, &used));
  contents("file after the slashes", "file");

  /* rights against file types */
  SHOW("open . dir rw", __wasi_path_open(dir, 0, ".", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE, 0, 0, &g));
  SHOW("open . dir w", __wasi_path_open(dir, 0, ".", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_WRITE, 0, 0, &g));
  SHOW("open dir dir rw", __wasi_path_open(dir, 0, "dir", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE, 0, 0, &g));
  SHOW("open dir rw", __wasi_path_open(dir, 0, "dir", 0, __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE, 0, 0, &g));
  SHOW("open dir r", __wasi_path_open(dir, 0, "dir", 0, __WASI_RIGHTS_FD_READ, 0, 0, &g));
  SHOW("close dir r", __wasi_fd_close(g));
  SHOW("open dir dir readdir", __wasi_path_open(dir, 0, "dir", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READDIR, 0, 0, &g));
  SHOW("close dir readdir", __wasi_fd_close(g));
  SHOW("open file dir", __wasi_path_open(dir, 0, "file", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READ, 0, 0, &g));
  SHOW("open dir trunc", __wasi_path_open(dir, 0, "dir", __WASI_OFLAGS_TRUNC, __WASI_RIGHTS_FD_READ, 0, 0, &g));

  /* APPEND set at open, cleared later; and set later */
  SHOW("open append", open_("app", __WASI_OFLAGS_CREAT, R_FILE, __WASI_FDFLAGS_APPEND, &f));
  put(f, "aaaa");
  __wasi_filesize_t pos;
  SHOW("seek 0 appending", __wasi_fd_seek(f, 0, __WASI_WHENCE_SET, &pos));
  put(f, "b");
  contents("append, seek 0, write", "app");
  SHOW("clear append", __wasi_fd_fdstat_set_flags(f, 0));
  __wasi_fdstat_t fs;
  SHOW("fdstat", __wasi_fd_fdstat_get(f, &fs));
  printf("flags after clearing: %d\n", fs.fs_flags);
  SHOW("seek 0", __wasi_fd_seek(f, 0, __WASI_WHENCE_SET, &pos));
  put(f, "c");
  SHOW("tell", __wasi_fd_tell(f, &pos));
  printf("offset after the write: %llu\n", (unsigned long long)pos);
  contents("cleared, seek 0, write", "app");
  SHOW("set append again", __wasi_fd_fdstat_set_flags(f, __WASI_FDFLAGS_APPEND));
  SHOW("seek 1", __wasi_fd_seek(f, 1, __WASI_WHENCE_SET, &pos));
  put(f, "d");
  contents("set again, seek 1, write", "app");
  SHOW("close app", __wasi_fd_close(f));
  SHOW("open plain", open_("plain", __WASI_OFLAGS_CREAT, R_FILE, 0, &f));
  put(f, "xxxx");
  SHOW("set append", __wasi_fd_fdstat_set_flags(f, __WASI_FDFLAGS_APPEND));
  SHOW("seek 0", __wasi_fd_seek(f, 0, __WASI_WHENCE_SET, &pos));
  put(f, "y");
  contents("plain, append set, seek 0, write", "plain");
  SHOW("close plain", __wasi_fd_close(f));

  /* timestamps to the nanosecond */
  const __wasi_timestamp_t T = 1700000000123456789ull, U = T - 100;
  SHOW("open for times", open_("file", 0, R_FILE, 0, &f));
  SHOW("fd set both", __wasi_fd_filestat_set_times(f, T, U, __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_MTIM));
  times("after fd set both", 0, "file");
  SHOW("fd set mtim only", __wasi_fd_filestat_set_times(f, 0, U - 1, __WASI_FSTFLAGS_MTIM));
  times("after fd set mtim only", 0, "file");
  SHOW("fd set atim only", __wasi_fd_filestat_set_times(f, U - 7, 0, __WASI_FSTFLAGS_ATIM));
  times("after fd set atim only", 0, "file");
  SHOW("path set both", __wasi_path_filestat_set_times(dir, 0, "file", U, T, __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_MTIM));
  times("after path set both", 0, "file");
  SHOW("path set mtim via symlink", __wasi_path_filestat_set_times(dir, __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, "tofile", 0, T + 1, __WASI_FSTFLAGS_MTIM));
  times("after path set via symlink", 0, "file");
  SHOW("path set symlink itself", __wasi_path_filestat_set_times(dir, 0, "tofile", T - 3, T - 5, __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_MTIM));
  times("the symlink", 0, "tofile");
  times("its target", 1, "tofile");
  SHOW("path set dir", __wasi_path_filestat_set_times(dir, 0, "dir", T + 9, T + 11, __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_MTIM));
  times("dir", 0, "dir");
  SHOW("fd set mtim now", __wasi_fd_filestat_set_times(f, 0, 0, __WASI_FSTFLAGS_MTIM_NOW));
  __wasi_filestat_t a;
  memset(&a, 0, sizeof a);
  (void)!__wasi_fd_filestat_get(f, &a);
  printf("mtim now moved: %d, atim kept: %d\n", a.mtim > T + 1, a.atim == U);
  SHOW("close for times", __wasi_fd_close(f));
  printf("conformance done\n");
  return 0;
}
