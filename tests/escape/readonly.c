/* Read-only means read-only: run with the box mounted read-only (spindle --dir-ro ROOT/box::/box,
 * the runner having put f = "data" and d/ in it). Every call that would change data or metadata
 * fails with wasmtime's errno for a directory without DirPerms::MUTATE / a file without
 * FilePerms::WRITE (NotPermitted = EPERM; fd_allocate: ENOTSUP, wasmtime's answer for it on any
 * file), through paths, through fds opened read-only, and through a subdirectory's fd; the runner
 * checks that nothing on the host changed (names, sizes, times). wasmtime 46's CLI has no
 * read-only form, so this program runs on spindle only; its expected errnos are wasmtime's
 * (crates/wasi/src/filesystem.rs: set_size, set_times, open_at, *_at).
 * Usage: readonly.wasm */
#include "escape.h"
#include <sys/stat.h>
#include <wasi/api.h>

static int failures;
#define EXPECT(label, call, e)                                                        \
  do {                                                                                \
    errno = 0;                                                                        \
    int r_ = (call);                                                                  \
    if (r_ != -1 || errno != (e)) {                                                   \
      failures++;                                                                     \
      printf("%s: CHANGED or wrong answer (returned %d, errno %d, expected %d)\n", label, r_, errno, e); \
    } else {                                                                          \
      printf("%s: ok\n", label);                                                      \
    }                                                                                 \
  } while (0)
/* raw WASI calls return the errno */
#define EXPECT_WASI(label, call, e) EXPECT(label, (errno = (call)) ? -1 : 0, e)

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  struct timespec ts[2] = {{.tv_sec = 1}, {.tv_sec = 2}};
  struct timespec now[2] = {{.tv_nsec = UTIME_NOW}, {.tv_nsec = UTIME_NOW}};
  int f = open("/box/f", O_RDONLY);
  CHECK(f >= 0);
  char buf[8] = {0};
  CHECK(read(f, buf, sizeof buf) == 4 && memcmp(buf, "data", 4) == 0);
  EXPECT("futimens", futimens(f, ts), EPERM);
  EXPECT("futimens now", futimens(f, now), EPERM);
  EXPECT("ftruncate", ftruncate(f, 0), EPERM);
  EXPECT("ftruncate grow", ftruncate(f, 100), EPERM);
  EXPECT_WASI("fd_allocate", __wasi_fd_allocate(f, 0, 100), ENOTSUP);
  EXPECT("write", write(f, "x", 1), EBADF);
  EXPECT("pwrite", pwrite(f, "x", 1, 0), EBADF);

  int d = open("/box/d", O_RDONLY | O_DIRECTORY);
  CHECK(d >= 0);
  EXPECT("futimens dir", futimens(d, ts), EPERM);
  EXPECT("openat create in subdir", openat(d, "new", O_WRONLY | O_CREAT, 0644), EPERM);
  EXPECT("mkdirat in subdir", mkdirat(d, "new", 0755), EPERM);
  EXPECT("utimensat in subdir", utimensat(d, ".", ts, 0), EPERM);
  int root = open("/box", O_RDONLY | O_DIRECTORY);
  CHECK(root >= 0);
  EXPECT("futimens root", futimens(root, ts), EPERM);

  EXPECT("utimensat", utimensat(AT_FDCWD, "/box/f", ts, 0), EPERM);
  EXPECT("utimensat nofollow", utimensat(AT_FDCWD, "/box/f", ts, AT_SYMLINK_NOFOLLOW), EPERM);
  EXPECT("utimensat now", utimensat(AT_FDCWD, "/box/f", now, 0), EPERM);
  EXPECT("utimensat dir", utimensat(AT_FDCWD, "/box/d", ts, 0), EPERM);
  EXPECT("open write", open("/box/f", O_WRONLY), EPERM);
  EXPECT("open rdwr", open("/box/f", O_RDWR), EPERM);
  EXPECT("open trunc", open("/box/f", O_RDONLY | O_TRUNC), EPERM);
  EXPECT("open create existing", open("/box/f", O_RDONLY | O_CREAT, 0644), EPERM);
  EXPECT("open create new", open("/box/new", O_RDWR | O_CREAT, 0644), EPERM);
  EXPECT("open append", open("/box/f", O_WRONLY | O_APPEND), EPERM);
  EXPECT("mkdir", mkdir("/box/new", 0755), EPERM);
  EXPECT("rmdir", rmdir("/box/d"), EPERM);
  EXPECT("unlink", unlink("/box/f"), EPERM);
  EXPECT("rename", rename("/box/f", "/box/g"), EPERM);
  EXPECT("rename dir", rename("/box/d", "/box/e"), EPERM);
  EXPECT("symlink", symlink("f", "/box/s"), EPERM);
  EXPECT("link", link("/box/f", "/box/h"), EPERM);

  struct stat st;
  CHECK(fstat(f, &st) == 0 && st.st_size == 4 && st.st_mtim.tv_sec > 2);
  CHECK(close(f) == 0 && close(d) == 0 && close(root) == 0);
  printf("readonly failures %d\n", failures);
  return failures ? 1 : 0;
}
