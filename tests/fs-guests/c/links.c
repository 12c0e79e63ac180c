/* link/symlink/readlink/lstat/rename/unlink-while-open on spindle's /tmp. */
#include "check.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  int fd = open("/tmp/a", O_RDWR | O_CREAT, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, "data", 4) == 4);
  CHECK(close(fd) == 0);

  /* hard links */
  CHECK(link("/tmp/a", "/tmp/b") == 0);
  struct stat sa, sb;
  CHECK(stat("/tmp/a", &sa) == 0 && stat("/tmp/b", &sb) == 0);
  CHECK(sa.st_ino == sb.st_ino && sa.st_nlink == 2);
  CHECK_ERR(link("/tmp/a", "/tmp/b"), EEXIST);

  /* symlinks */
  CHECK(symlink("a", "/tmp/s") == 0);
  char buf[64] = {0};
  CHECK(readlink("/tmp/s", buf, sizeof buf) == 1 && buf[0] == 'a');
  CHECK(lstat("/tmp/s", &sb) == 0 && S_ISLNK(sb.st_mode));
  CHECK(stat("/tmp/s", &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_ino == sa.st_ino);
  fd = open("/tmp/s", O_RDONLY);
  CHECK(fd >= 0 && read(fd, buf, 4) == 4 && memcmp(buf, "data", 4) == 0);
  CHECK(close(fd) == 0);
  CHECK_ERR(readlink("/tmp/a", buf, sizeof buf), EINVAL);
  /* an absolute symlink: spindle-fs stores it and refuses to follow it; wasmtime (and the
   * runtime's host directories) refuse to create it */
  int abs = symlink("/etc/passwd", "/tmp/abs");
  CHECK(abs == 0 || IS_ESCAPE_ERRNO(errno));
  if (abs == 0) CHECK_ESCAPE(open("/tmp/abs", O_RDONLY));

  /* rename: over an existing file, into a directory, a directory */
  CHECK(rename("/tmp/b", "/tmp/a") == 0); /* same inode: nothing happens */
  CHECK(rename("/tmp/b", "/tmp/c") == 0);
  CHECK_ERR(stat("/tmp/b", &sb), ENOENT);
  CHECK(stat("/tmp/c", &sb) == 0 && sb.st_ino == sa.st_ino);
  CHECK(mkdir("/tmp/dir", 0755) == 0);
  CHECK(rename("/tmp/c", "/tmp/dir/c") == 0);
  CHECK(rename("/tmp/dir", "/tmp/dir2") == 0);
  CHECK(stat("/tmp/dir2/c", &sb) == 0);
  CHECK_ERR(rename("/tmp/dir2", "/tmp/dir2/sub"), EINVAL);
  fd = open("/tmp/x", O_RDWR | O_CREAT, 0644);
  CHECK(fd >= 0 && write(fd, "new", 3) == 3 && close(fd) == 0);
  CHECK(rename("/tmp/x", "/tmp/dir2/c") == 0);
  fd = open("/tmp/dir2/c", O_RDONLY);
  CHECK(fd >= 0 && read(fd, buf, 8) == 3 && memcmp(buf, "new", 3) == 0 && close(fd) == 0);

  /* unlink while open: the data stays readable and writable through the fd */
  fd = open("/tmp/a", O_RDWR);
  CHECK(fd >= 0);
  CHECK(unlink("/tmp/a") == 0);
  CHECK_ERR(stat("/tmp/a", &sb), ENOENT);
  CHECK(fstat(fd, &sb) == 0 && sb.st_nlink == 0 && sb.st_size == 4);
  CHECK(pwrite(fd, "DATA!", 5, 0) == 5);
  CHECK(pread(fd, buf, 8, 0) == 5 && memcmp(buf, "DATA!", 5) == 0);
  CHECK(close(fd) == 0);
  CHECK_ERR(stat("/tmp/s", &sb), ENOENT); /* dangling now */
  CHECK(lstat("/tmp/s", &sb) == 0);
  CHECK(unlink("/tmp/s") == 0 && (abs != 0 || unlink("/tmp/abs") == 0));
  printf("links ok\n");
  return 0;
}
