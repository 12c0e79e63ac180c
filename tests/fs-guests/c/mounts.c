/* Mounts: SPINDLE_FS_MOUNTS at start-up (run with SPINDLE_FS_MOUNTS=/tmp,/data), and
 * spindle_fs_mount() at run time; a rename between two mounts is EXDEV; poll() on a spindle
 * fd is ready at once; stdio still reaches the host; spindle_fs_set_can_wait links. */
#include "check.h"
#include <fcntl.h>
#include <poll.h>
#include <spindle-fs.h>
#include <sys/stat.h>
#include <unistd.h>

static int may_wait(void) { return 1; }

int main(void) {
  spindle_fs_set_can_wait(may_wait);
  const char *m = getenv("SPINDLE_FS_MOUNTS");
  CHECK(m != NULL && strcmp(m, "/tmp,/data") == 0);
  int fd = open("/data/x", O_RDWR | O_CREAT, 0644);
  CHECK(fd >= SPINDLE_FS_FD_BASE);
  CHECK(write(fd, "x", 1) == 1);
  struct stat a, b;
  CHECK(fstat(fd, &a) == 0 && stat("/tmp", &b) == 0 && a.st_dev != b.st_dev);
  struct pollfd p[2] = {{.fd = fd, .events = POLLIN | POLLOUT}, {.fd = 1, .events = POLLOUT}};
  CHECK(poll(p, 2, -1) >= 1 && (p[0].revents & (POLLIN | POLLOUT)));
  CHECK(poll(p, 1, -1) == 1 && (p[0].revents & POLLIN)); /* only a spindle fd: ready at once */
  CHECK(usleep(1000) == 0);                               /* a clock-only poll goes to the host */
  CHECK(close(fd) == 0);
  CHECK_ERR(rename("/data/x", "/tmp/x"), EXDEV);
  CHECK_ERR(link("/data/x", "/tmp/x"), EXDEV);

  CHECK_ERR(open("/later/y", O_RDWR | O_CREAT, 0644), ENOENT);
  CHECK(spindle_fs_mount("/later") == 0);
  CHECK(spindle_fs_mount("/later") == EEXIST);
  fd = open("/later/y", O_RDWR | O_CREAT, 0644);
  CHECK(fd >= SPINDLE_FS_FD_BASE && close(fd) == 0);
  printf("mounts ok\n");
  return 0;
}
