/* Host-directory operations one at a time, timed inside the program (the host-directory confinement bench):
 *   open1   open + close of an existing file in the preopen ("f")
 *   open3   the same three components down ("a/b/f")
 *   stat1   stat of "f";  stat3  stat of "a/b/f"
 *   create  open(O_CREAT|O_TRUNC) + close of "a/b/new"
 *   write   a 16-byte pwrite to an open fd
 * Usage: ops DIR N   (DIR: where the host directory is preopened; N operations of each kind)
 * Prints one line per kind: "op=<kind> n=<N> ns_per_op=<t>", then "ops done". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "ops: %s failed\n", what);
  exit(1);
}

int main(int argc, char **argv) {
  if (argc < 3) die("usage: ops DIR N");
  const char *dir = argv[1];
  int n = atoi(argv[2]);
  char f1[256], f3[256], fnew[256], a[256], ab[256];
  snprintf(f1, sizeof f1, "%s/f", dir);
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(ab, sizeof ab, "%s/a/b", dir);
  snprintf(f3, sizeof f3, "%s/a/b/f", dir);
  snprintf(fnew, sizeof fnew, "%s/a/b/new", dir);
  mkdir(a, 0755);
  mkdir(ab, 0755);
  for (int k = 0; k < 2; k++) {
    int fd = open(k ? f3 : f1, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "0123456789abcdef", 16) != 16 || close(fd) != 0) die("setup");
  }
  struct stat st;
  const char *names[] = {"open1", "open3", "stat1", "stat3", "create", "write"};
  int wfd = open(f1, O_WRONLY);
  if (wfd < 0) die("open for write");
  for (int kind = 0; kind < 6; kind++) {
    double t0 = now_ns();
    for (int i = 0; i < n; i++) {
      int fd;
      switch (kind) {
      case 0: case 1:
        fd = open(kind ? f3 : f1, O_RDONLY);
        if (fd < 0 || close(fd) != 0) die(names[kind]);
        break;
      case 2: case 3:
        if (stat(kind == 3 ? f3 : f1, &st) != 0 || st.st_size != 16) die(names[kind]);
        break;
      case 4:
        fd = open(fnew, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || close(fd) != 0) die("create");
        break;
      case 5:
        if (pwrite(wfd, "0123456789abcdef", 16, (i & 63) * 16) != 16) die("write");
        break;
      }
    }
    printf("op=%s n=%d ns_per_op=%.0f\n", names[kind], n, (now_ns() - t0) / n);
  }
  close(wfd);
  printf("ops done\n");
  return 0;
}
