/* The OPFS guest (runtime/test/opfs.test.mjs, bench/browser/opfs.mjs): a C program linked with
 * libspindle-fs-opfs.a, run in Chromium with SPINDLE_FS_MOUNTS=/data=opfs:DIR. One command per
 * run, so a test can reload the page (or crash the tab) between two runs:
 *
 *   write PATH TEXT        create/truncate, write, fsync, close; prints "synced"
 *   write-close PATH TEXT  the same without fsync (close queues the write-back)
 *   write-hang PATH TEXT   write without fsync or close, print "hanging", then wait forever
 *                          (fd open: only the idle write-back persists the bytes)
 *   write-return PATH TEXT write without fsync or close, print "left open", return from main
 *   write-exit PATH TEXT   the same, ending with exit(0) (both: the exit flush persists it)
 *   read PATH              prints the file's bytes
 *   ls DIR                 prints the sorted names, one a line
 *   ops DIR                mkdir DIR/d, create DIR/d/a, rename to DIR/d/b, mkdir DIR/e, rmdir
 *                          DIR/e, create+unlink DIR/gone, fsync DIR; prints "ops done"
 *   threads DIR            4 threads write+fsync DIR/t0..t3; DIR/shared opened by main, written
 *                          and closed by a thread, fsynced by main through a read-only fd
 *   dirmove DIR            mkdir DIR/p, write+fsync DIR/p/x, rename DIR/p to DIR/q, fsync DIR
 *   fill PATH BYTES        writes BYTES bytes and fsyncs; prints "fsync errno N" (0: ok)
 *   workload DIR ROUNDS [sync]  the reference fs workload (bench/fs/workload.c) on DIR; prints
 *                          "workload ns N" (time inside the program, CLOCK_MONOTONIC); with
 *                          `sync`, an fsync of DIR at the end (waits for every write-back) is
 *                          inside the timing
 */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf(" (errno %d)\n", errno); return 1; } while (0)

static int put(const char *path, const char *text, int sync, int close_it) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) FAIL("open %s", path);
  if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) FAIL("write %s", path);
  if (sync && fsync(fd) != 0) FAIL("fsync %s", path);
  if (!close_it) {
    printf("hanging\n");
    fflush(stdout);
    for (;;) sleep(1000);
  }
  if (close(fd) != 0) FAIL("close %s", path);
  printf(sync ? "synced\n" : "closed\n");
  return 0;
}

/* Writes TEXT to PATH and leaves the fd open; the caller then ends the program. */
static int leave_open(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) FAIL("open %s", path);
  if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) FAIL("write %s", path);
  printf("left open\n");
  return 0;
}

static int get(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) FAIL("fopen %s", path);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, stdout);
  fclose(f);
  return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int ls(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) FAIL("opendir %s", dir);
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, n, sizeof *names, cmp);
  for (int i = 0; i < n; i++) printf("%s\n", names[i]);
  return 0;
}

static int ops(const char *dir) {
  char a[256], b[256];
  snprintf(a, sizeof a, "%s/d", dir);
  if (mkdir(a, 0755) != 0) FAIL("mkdir %s", a);
  snprintf(a, sizeof a, "%s/d/a", dir);
  if (put(a, "moved", 0, 1)) return 1;
  snprintf(b, sizeof b, "%s/d/b", dir);
  if (rename(a, b) != 0) FAIL("rename %s", a);
  snprintf(a, sizeof a, "%s/e", dir);
  if (mkdir(a, 0755) != 0 || rmdir(a) != 0) FAIL("mkdir/rmdir %s", a);
  snprintf(a, sizeof a, "%s/gone", dir);
  if (put(a, "x", 0, 1) || unlink(a) != 0) FAIL("unlink %s", a);
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0 || fsync(fd) != 0) FAIL("fsync dir %s", dir);
  close(fd);
  printf("ops done\n");
  return 0;
}

/* threads DIR: 4 threads each write+fsync DIR/t<i>; a fd main opened is written and closed by
 * another thread, then fsynced by main through a second fd. */
static const char *tdir;
static int shared_fd;

static void *tworker(void *arg) {
  char path[256], text[64];
  int i = (int)(long)arg;
  snprintf(path, sizeof path, "%s/t%d", tdir, i);
  snprintf(text, sizeof text, "thread %d was here", i);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fsync(fd) != 0 || close(fd) != 0) return (void *)1;
  return NULL;
}

static void *tcloser(void *arg) {
  (void)arg;
  if (write(shared_fd, "shared fd", 9) != 9 || close(shared_fd) != 0) return (void *)1;
  return NULL;
}

static int threads(const char *dir) {
  char path[256];
  pthread_t t[5];
  void *r;
  tdir = dir;
  snprintf(path, sizeof path, "%s/shared", dir);
  shared_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (shared_fd < 0) FAIL("open %s", path);
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, tworker, (void *)i);
  pthread_create(&t[4], NULL, tcloser, NULL);
  for (int i = 0; i < 5; i++) {
    pthread_join(t[i], &r);
    if (r) FAIL("thread %d", i);
  }
  int fd = open(path, O_RDONLY);
  if (fd < 0 || fsync(fd) != 0) FAIL("fsync %s", path);
  close(fd);
  printf("threads done\n");
  return 0;
}

/* A directory with a file in it, renamed, then the parent fsynced. */
static int dirmove(const char *dir) {
  char a[256], b[256];
  snprintf(a, sizeof a, "%s/p", dir);
  if (mkdir(a, 0755) != 0) FAIL("mkdir %s", a);
  snprintf(a, sizeof a, "%s/p/x", dir);
  if (put(a, "in a moved directory", 1, 1)) return 1;
  snprintf(a, sizeof a, "%s/p", dir);
  snprintf(b, sizeof b, "%s/q", dir);
  if (rename(a, b) != 0) FAIL("rename %s", a);
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0 || fsync(fd) != 0) FAIL("fsync dir %s", dir);
  close(fd);
  printf("dirmove done\n");
  return 0;
}

static int fill(const char *path, long bytes) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) FAIL("open %s", path);
  char *buf = calloc(1, 1 << 20);
  for (long done = 0; done < bytes;) {
    long n = bytes - done < (1 << 20) ? bytes - done : (1 << 20);
    if (write(fd, buf, n) != n) FAIL("write %s", path);
    done += n;
  }
  int r = fsync(fd);
  printf("fsync errno %d\n", r ? errno : 0);
  close(fd);
  return 0;
}

/* bench/fs/workload.c's round: over 64 files create+write 1 KiB+close, open+read+close, stat. */
static int workload(const char *dir, int rounds, int sync) {
  char buf[1024], path[256];
  memset(buf, 'x', sizeof buf);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < 64; i++) {
      snprintf(path, sizeof path, "%s/f%d", dir, i);
      int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || write(fd, buf, sizeof buf) != sizeof buf || close(fd) != 0) FAIL("create %s", path);
      fd = open(path, O_RDONLY);
      if (fd < 0 || read(fd, buf, sizeof buf) != sizeof buf || close(fd) != 0) FAIL("read %s", path);
      struct stat st;
      if (stat(path, &st) != 0 || st.st_size != sizeof buf) FAIL("stat %s", path);
    }
  }
  if (sync) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0 || fsync(fd) != 0) FAIL("fsync %s", dir);
    close(fd);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("workload ns %lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) { printf("usage: opfs_guest CMD ARGS (see the source)\n"); return 2; }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "write") && argc == 4) return put(argv[2], argv[3], 1, 1);
  if (!strcmp(cmd, "write-close") && argc == 4) return put(argv[2], argv[3], 0, 1);
  if (!strcmp(cmd, "write-hang") && argc == 4) return put(argv[2], argv[3], 0, 0);
  if (!strcmp(cmd, "write-return") && argc == 4) return leave_open(argv[2], argv[3]);
  if (!strcmp(cmd, "write-exit") && argc == 4) exit(leave_open(argv[2], argv[3]));
  if (!strcmp(cmd, "read")) return get(argv[2]);
  if (!strcmp(cmd, "ls")) return ls(argv[2]);
  if (!strcmp(cmd, "ops")) return ops(argv[2]);
  if (!strcmp(cmd, "dirmove")) return dirmove(argv[2]);
  if (!strcmp(cmd, "threads")) return threads(argv[2]);
  if (!strcmp(cmd, "fill") && argc == 4) return fill(argv[2], atol(argv[3]));
  if (!strcmp(cmd, "workload") && (argc == 4 || argc == 5))
    return workload(argv[2], atoi(argv[3]), argc == 5 && !strcmp(argv[4], "sync"));
  printf("unknown command %s\n", cmd);
  return 2;
}
