/* Out of memory in the in-program FS. Built with a 32 MiB maximum memory (build.sh), this
 * program writes one file until memory runs out. It must get short writes and then ENOSPC, as
 * from a full tmpfs (not a trap), keep every byte it was told was written, and after removing
 * the file have the memory back for new files. Prints "enospc ok". */
#include "check.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char block[64 * 1024];
static char back[64 * 1024];

int main(void) {
  memset(block, 'z', sizeof block);
  int fd = open("/tmp/big", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  long long total = 0;
  for (;;) {
    errno = 0;
    ssize_t n = write(fd, block, sizeof block);
    if (n < 0) break;
    CHECK(n > 0);
    total += n;
    CHECK(total < (64LL << 20)); /* the memory is 32 MiB: it must run out first */
  }
  CHECK(errno == ENOSPC);
  CHECK(total > (8LL << 20)); /* most of the memory went to the file */
  struct stat st;
  CHECK(fstat(fd, &st) == 0 && st.st_size == total);
  /* The last bytes written read back. */
  off_t at = total > (long long)sizeof back ? total - (long long)sizeof back : 0;
  CHECK(pread(fd, back, sizeof back, at) == (ssize_t)(total - at));
  for (long long i = 0; i < total - at; i++) CHECK(back[i] == 'z');
  CHECK(close(fd) == 0);
  /* The memory comes back. */
  CHECK(unlink("/tmp/big") == 0);
  fd = open("/tmp/again", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 64; i++) CHECK(write(fd, block, sizeof block) == (ssize_t)sizeof block);
  CHECK(close(fd) == 0);
  CHECK(stat("/tmp/again", &st) == 0 && st.st_size == 64LL * (long long)sizeof block);
  printf("enospc ok\n");
  return 0;
}
