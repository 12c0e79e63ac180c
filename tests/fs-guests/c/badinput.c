/* Bad input through the raw WASI calls: invalid fds, bad pointers, escaping paths. */
#include "check.h"
#include <fcntl.h>
#include <unistd.h>
#include <wasi/api.h>

int main(void) {
  int fd = open("/tmp/bad.txt", O_RDWR | O_CREAT, 0644);
  CHECK(SPINDLE_FD(fd));
  __wasi_size_t n;
  __wasi_ciovec_t iov = {.buf = (const uint8_t *)"abc", .buf_len = 3};
  CHECK(__wasi_fd_write(0x40000000 + 999, &iov, 1, &n) == __WASI_ERRNO_BADF);
  CHECK(__wasi_fd_write(-5, &iov, 1, &n) == __WASI_ERRNO_BADF);
  /* a buffer beyond the end of memory */
  __wasi_ciovec_t far = {.buf = (const uint8_t *)0xfffffff0u, .buf_len = 64};
  CHECK(__wasi_fd_write(fd, &far, 1, &n) == __WASI_ERRNO_FAULT);
  CHECK(__wasi_fd_write(fd, (const __wasi_ciovec_t *)0xfffffff8u, 2, &n) == __WASI_ERRNO_FAULT);
  CHECK(__wasi_fd_write(fd, &iov, 1, (__wasi_size_t *)0xfffffffeu) == __WASI_ERRNO_FAULT);
  __wasi_filestat_t st;
  CHECK(__wasi_fd_filestat_get(fd, &st) == 0 && st.size == 0); /* nothing was written */
  CHECK(__wasi_fd_seek(fd, 0, 7, &st.size) == __WASI_ERRNO_INVAL);
  /* paths: escaping the preopen, through a file, a NUL inside */
  __wasi_fd_t out;
  int tmp = -1;
  for (int p = FS_GUEST_FIRST_FD; p < FS_GUEST_FIRST_FD + 16; p++) {
    __wasi_prestat_t pre;
    if (__wasi_fd_prestat_get(p, &pre) == 0) { tmp = p; break; }
  }
  CHECK(tmp >= FS_GUEST_FIRST_FD);
  char name[8] = {0};
  CHECK(__wasi_fd_prestat_dir_name(tmp, (uint8_t *)name, 4) == 0 && memcmp(name, "/tmp", 4) == 0);
  CHECK(__wasi_fd_prestat_dir_name(tmp, (uint8_t *)name, 2) == __WASI_ERRNO_NAMETOOLONG);
  CHECK(IS_WASI_ESCAPE(__wasi_path_open(tmp, 0, "../x", 0, 0, 0, 0, &out)));
  CHECK(IS_WASI_ESCAPE(__wasi_path_open(tmp, 0, "/etc", 0, 0, 0, 0, &out)));
  CHECK(__wasi_path_open(tmp, 0, "bad.txt/x", 0, 0, 0, 0, &out) == __WASI_ERRNO_NOTDIR);
  CHECK(__wasi_path_open(fd, 0, "x", 0, 0, 0, 0, &out) == __WASI_ERRNO_NOTDIR);
#ifdef FS_GUEST_PLAIN
  /* the runtime's table holds stdio too: renumbering over fd 1 would work (as in wasmtime) */
  CHECK(__wasi_fd_renumber(fd, 0x40000000 + 999) == __WASI_ERRNO_BADF);
#else
  CHECK(__wasi_fd_renumber(fd, 1) == __WASI_ERRNO_BADF);
#endif
  CHECK(close(fd) == 0);
  printf("badinput ok\n");
  return 0;
}
