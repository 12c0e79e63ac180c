/* A read-only host directory (spindle run --dir-ro HOST::/ro, HOST holding a file "f" with "data"):
 * reading works, every change is EPERM and changes nothing. With the argument "full" and /dev
 * mapped (--dir /dev::/dev), a write to /dev/full must fail with ENOSPC (the disk-full errno
 * reaching the program). Prints "readonly ok". */
#include "check.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "full") == 0) {
    int fd = open("/dev/full", O_WRONLY);
    CHECK(fd >= 0);
    CHECK_ERR(write(fd, "x", 1), ENOSPC);
    CHECK(close(fd) == 0);
    printf("readonly ok\n");
    return 0;
  }
  char buf[8] = {0};
  int fd = open("/ro/f", O_RDONLY);
  CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 4 && memcmp(buf, "data", 4) == 0 && close(fd) == 0);
  CHECK_ERR(open("/ro/f", O_WRONLY), EPERM);
  CHECK_ERR(open("/ro/f", O_RDONLY | O_TRUNC), EPERM);
  CHECK_ERR(open("/ro/new", O_RDWR | O_CREAT, 0644), EPERM);
  CHECK_ERR(mkdir("/ro/d", 0755), EPERM);
  CHECK_ERR(unlink("/ro/f"), EPERM);
  CHECK_ERR(rename("/ro/f", "/ro/g"), EPERM);
  CHECK_ERR(symlink("f", "/ro/s"), EPERM);
  CHECK_ERR(link("/ro/f", "/ro/h"), EPERM);
  struct timespec ts[2] = {{.tv_sec = 1}, {.tv_sec = 2}};
  CHECK_ERR(utimensat(AT_FDCWD, "/ro/f", ts, 0), EPERM);
  struct stat st;
  CHECK(stat("/ro/f", &st) == 0 && st.st_size == 4 && st.st_mtim.tv_sec != 2);
  CHECK_ERR(stat("/ro/g", &st), ENOENT);
  printf("readonly ok\n");
  return 0;
}
