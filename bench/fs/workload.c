/* The reference filesystem workload: per round, over 64 files: create + write 1 KiB +
 * close, open + read + close, stat: 3 operations per file. Timed inside the thread that does it.
 *
 *   workload main   ROUNDS DIR      on the program's main thread
 *   workload worker ROUNDS DIR      on one pthread (created, then timed inside it)
 *   workload threads ROUNDS DIR T   T pthreads, each on its own files in DIR/t<i>/ (wall time of all)
 *
 * Prints: fs mode=<mode> threads=<T> ops=<n> checksum=<hex> elapsed_ns=<t>
 *   ops counts every checked operation; checksum hashes what was READ BACK: each write stamps
 *   (thread, round, file) into the first, middle and last words of the 1 KiB, the read goes to a
 *   separate buffer, and those three words of it are hashed. So a file system that returns stale
 *   or wrong data, or a short file, gives another checksum than native for the same arguments,
 *   and the harness fails that configuration. Hashing 3 words keeps the check out of the
 *   per-operation cost (hashing the whole KiB would cost more than an in-memory operation).
 * Same source for wasm (in-program FS or the host's) and native (gcc on tmpfs). */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int rounds;
static const char *dir;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static void die(const char *what, const char *path) {
  fprintf(stderr, "workload: %s %s failed\n", what, path);
  exit(1);
}

static const size_t STAMPS[3] = { 0, 512, 1024 - 8 };

/* Runs the rounds on files under `sub`; returns operations done, stores in *sum the hash of what was read back. */
static long work(const char *sub, int thread, uint64_t *sum) {
  char wbuf[1024], rbuf[1024], path[512];
  memset(wbuf, 'x', sizeof wbuf);
  long ops = 0;
  uint64_t h = 14695981039346656037ull; /* FNV-1a over the stamped words */
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < 64; i++) {
      uint64_t stamp = ((uint64_t)thread << 48) | ((uint64_t)r << 16) | (uint64_t)i;
      for (int k = 0; k < 3; k++) { uint64_t s = stamp ^ ((uint64_t)k << 40); memcpy(wbuf + STAMPS[k], &s, 8); }
      snprintf(path, sizeof path, "%s/f%d", sub, i);
      int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || write(fd, wbuf, sizeof wbuf) != (ssize_t)sizeof wbuf || close(fd) != 0) die("create+write", path);
      fd = open(path, O_RDONLY);
      if (fd < 0 || read(fd, rbuf, sizeof rbuf) != (ssize_t)sizeof rbuf || close(fd) != 0) die("open+read", path);
      for (int k = 0; k < 3; k++) { uint64_t w; memcpy(&w, rbuf + STAMPS[k], 8); h = (h ^ w) * 1099511628211ull; }
      struct stat st;
      if (stat(path, &st) != 0 || st.st_size != (off_t)sizeof wbuf) die("stat", path);
      ops += 3;
    }
  }
  *sum = h;
  return ops;
}

struct job { char sub[256]; int thread; long ops; uint64_t sum; double ns; };

static void *timed(void *arg) {
  struct job *j = arg;
  double t0 = now_ns();
  j->ops = work(j->sub, j->thread, &j->sum);
  j->ns = now_ns() - t0;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: workload main|worker|threads ROUNDS DIR [T]\n"); return 2; }
  const char *mode = argv[1];
  rounds = atoi(argv[2]);
  dir = argv[3];
  int t = argc > 4 ? atoi(argv[4]) : 1;
  static struct job jobs[64];
  if (t < 1 || t > 64) return 2;
  for (int i = 0; i < t; i++) {
    snprintf(jobs[i].sub, sizeof jobs[i].sub, "%s/t%d", dir, i);
    jobs[i].thread = i;
    if (mkdir(jobs[i].sub, 0755) != 0) die("mkdir", jobs[i].sub);
  }
  long ops = 0;
  uint64_t sum = 0;
  double ns = 0;
  if (!strcmp(mode, "main")) {
    timed(&jobs[0]);
    ops = jobs[0].ops, sum = jobs[0].sum, ns = jobs[0].ns;
  } else if (!strcmp(mode, "worker")) {
    pthread_t th;
    if (pthread_create(&th, NULL, timed, &jobs[0]) != 0 || pthread_join(th, NULL) != 0) die("pthread", "");
    ops = jobs[0].ops, sum = jobs[0].sum, ns = jobs[0].ns;
  } else if (!strcmp(mode, "threads")) {
    pthread_t th[64];
    double t0 = now_ns();
    for (int i = 0; i < t; i++) if (pthread_create(&th[i], NULL, timed, &jobs[i]) != 0) die("pthread", "");
    for (int i = 0; i < t; i++) { pthread_join(th[i], NULL); ops += jobs[i].ops; sum += jobs[i].sum; }
    ns = now_ns() - t0;
  } else {
    return 2;
  }
  printf("fs mode=%s threads=%d ops=%ld checksum=%016llx elapsed_ns=%.0f\n", mode, t, ops, (unsigned long long)sum, ns);
  return 0;
}
