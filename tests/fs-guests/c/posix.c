/* open/pread/pwrite/lseek/ftruncate/fsync/fstat/stat, utimensat/futimens, posix_fallocate,
 * posix_fadvise, fcntl(F_SETFL) and their errors on spindle's /tmp. */
#include "check.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  int fd = open("/tmp/posix.bin", O_RDWR | O_CREAT | O_EXCL, 0644);
  CHECK(fd >= 0 && SPINDLE_FD(fd));
  CHECK_ERR(open("/tmp/posix.bin", O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST);
  CHECK(write(fd, "0123456789", 10) == 10);
  CHECK(pwrite(fd, "AB", 2, 4) == 2);
  CHECK(lseek(fd, 0, SEEK_CUR) == 10);
  char buf[16] = {0};
  CHECK(pread(fd, buf, 10, 0) == 10 && memcmp(buf, "0123AB6789", 10) == 0);
  CHECK(pread(fd, buf, 10, 100) == 0);
  CHECK(lseek(fd, 2, SEEK_SET) == 2);
  CHECK(read(fd, buf, 3) == 3 && memcmp(buf, "23A", 3) == 0);
  CHECK(lseek(fd, -1, SEEK_END) == 9);
  CHECK_ERR(lseek(fd, -100, SEEK_SET), EINVAL);
  CHECK(fsync(fd) == 0);
  CHECK(fdatasync(fd) == 0);

  CHECK(ftruncate(fd, 4) == 0);
  struct stat st;
  CHECK(fstat(fd, &st) == 0 && st.st_size == 4 && S_ISREG(st.st_mode) && st.st_nlink == 1);
  CHECK(ftruncate(fd, 1 << 20) == 0);
  CHECK(pread(fd, buf, 4, 1000) == 4 && memcmp(buf, "\0\0\0\0", 4) == 0);
  CHECK(stat("/tmp/posix.bin", &st) == 0 && st.st_size == 1 << 20);
  CHECK(st.st_mtim.tv_sec > 1600000000); /* the host's realtime clock stamps files */
  CHECK(close(fd) == 0);
  CHECK_ERR(close(fd), EBADF);
  CHECK_ERR(read(fd, buf, 1), EBADF);

  /* Access modes: a read-only fd cannot write, a write-only fd cannot read. */
  fd = open("/tmp/posix.bin", O_RDONLY);
  CHECK(fd >= 0);
  CHECK_ERR(write(fd, "x", 1), EBADF);
  CHECK_ERR(ftruncate(fd, 0), EINVAL);
  CHECK(close(fd) == 0);
  fd = open("/tmp/posix.bin", O_WRONLY | O_TRUNC);
  CHECK(fd >= 0);
  CHECK_ERR(read(fd, buf, 1), EBADF);
  CHECK(fstat(fd, &st) == 0 && st.st_size == 0);
  CHECK(close(fd) == 0);

  /* times, allocation, advice, flags */
  fd = open("/tmp/posix.bin", O_RDWR);
  CHECK(fd >= 0);
  struct timespec ts[2] = {{.tv_sec = 1000, .tv_nsec = 5}, {.tv_sec = 2000, .tv_nsec = 7}};
  CHECK(futimens(fd, ts) == 0);
  /* to the nanosecond everywhere, host directories included (Linux; README's host table) */
  CHECK(fstat(fd, &st) == 0 && st.st_atim.tv_sec == 1000 && st.st_atim.tv_nsec == 5 && st.st_mtim.tv_sec == 2000 &&
        st.st_mtim.tv_nsec == 7);
  ts[0].tv_nsec = UTIME_OMIT;
  ts[1].tv_sec = 3000;
  CHECK(utimensat(AT_FDCWD, "/tmp/posix.bin", ts, 0) == 0);
  /* UTIME_OMIT leaves atime exactly as it was */
  CHECK(stat("/tmp/posix.bin", &st) == 0 && st.st_atim.tv_sec == 1000 && st.st_atim.tv_nsec == 5 &&
        st.st_mtim.tv_sec == 3000 && st.st_mtim.tv_nsec == 7);
  CHECK(posix_fallocate(fd, 0, 4096) == 0);
  CHECK(fstat(fd, &st) == 0 && st.st_size == 4096);
  CHECK(posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) == 0);
  CHECK((fcntl(fd, F_GETFL) & O_APPEND) == 0);
  CHECK(fcntl(fd, F_SETFL, O_APPEND) == 0);
  CHECK((fcntl(fd, F_GETFL) & O_APPEND) != 0);
  CHECK(write(fd, "end", 3) == 3);
  CHECK(fstat(fd, &st) == 0 && st.st_size == 4099);
  CHECK(close(fd) == 0);

  CHECK_ERR(open("/tmp/nope", O_RDONLY), ENOENT);
  CHECK_ERR(open("/tmp", O_WRONLY), EISDIR);
  CHECK_ERR(open("/tmp/posix.bin/x", O_RDONLY), ENOTDIR);
  CHECK_ESCAPE(open("/tmp/../etc/passwd", O_RDONLY));
  CHECK(stat("/tmp", &st) == 0 && S_ISDIR(st.st_mode));
  CHECK(unlink("/tmp/posix.bin") == 0);
  CHECK_ERR(stat("/tmp/posix.bin", &st), ENOENT);
  printf("posix ok\n");
  return 0;
}
