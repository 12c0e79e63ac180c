/* mkdir/opendir/readdir/rewinddir/rmdir on spindle's /tmp. */
#include "check.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void) {
  CHECK(mkdir("/tmp/d", 0755) == 0);
  CHECK_ERR(mkdir("/tmp/d", 0755), EEXIST);
  CHECK(mkdir("/tmp/d/sub", 0755) == 0);
  for (int i = 0; i < 50; i++) {
    char p[64];
    snprintf(p, sizeof p, "/tmp/d/f%02d", i);
    int fd = open(p, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0);
    CHECK(close(fd) == 0);
  }
  DIR *d = opendir("/tmp/d");
  CHECK(d != NULL);
  char *names[64];
  int n = 0, dots = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) { dots++; continue; }
    CHECK(n < 64);
    if (!strcmp(e->d_name, "sub")) CHECK(e->d_type == DT_DIR);
    else CHECK(e->d_type == DT_REG);
    names[n++] = strdup(e->d_name);
  }
  CHECK(dots == 2 && n == 51);
  qsort(names, n, sizeof *names, cmp);
  for (int i = 0; i < 50; i++) {
    char want[8];
    snprintf(want, sizeof want, "f%02d", i);
    CHECK(strcmp(names[i], want) == 0);
  }
  CHECK(strcmp(names[50], "sub") == 0);
  rewinddir(d);
  int again = 0;
  while (readdir(d) != NULL) again++;
  CHECK(again == 53);
  CHECK(closedir(d) == 0);

  CHECK_ERR(rmdir("/tmp/d"), ENOTEMPTY);
  CHECK_ERR(rmdir("/tmp/d/f00"), ENOTDIR);
  CHECK_ERR(unlink("/tmp/d/sub"), EISDIR);
  for (int i = 0; i < 50; i++) {
    char p[64];
    snprintf(p, sizeof p, "/tmp/d/f%02d", i);
    CHECK(unlink(p) == 0);
  }
  CHECK(rmdir("/tmp/d/sub") == 0);
  CHECK(rmdir("/tmp/d") == 0);
  CHECK(opendir("/tmp/d") == NULL && errno == ENOENT);

  /* A listing larger than wasi-libc's readdir buffer: several fd_readdir calls resume by cookie. */
  CHECK(mkdir("/tmp/big", 0755) == 0);
  enum { BIG = 300 };
  for (int i = 0; i < BIG; i++) {
    char p[128];
    snprintf(p, sizeof p, "/tmp/big/a-rather-long-file-name-to-fill-the-buffer-%04d", i);
    int fd = open(p, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0 && close(fd) == 0);
  }
  static char seen[BIG];
  d = opendir("/tmp/big");
  CHECK(d != NULL);
  int count = 0;
  while ((e = readdir(d)) != NULL) {
    int i;
    if (sscanf(e->d_name, "a-rather-long-file-name-to-fill-the-buffer-%d", &i) != 1) continue;
    CHECK(i >= 0 && i < BIG && !seen[i]);
    seen[i] = 1;
    count++;
  }
  CHECK(count == BIG && closedir(d) == 0);
  printf("dirs ok\n");
  return 0;
}
