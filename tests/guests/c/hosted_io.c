// Threads that do what may block: thread 0 first reads stdin to its end; every thread writes its
// own file, yields, sleeps, reads the file back and appends a line to a shared log under a mutex,
// and each but thread 0 then writes "done K" to stdout. Run with a directory preopened as "/out".
// On spindle's host worker (docs/threads-beyond-the-pool.md) each of these must suspend the
// thread, not block the worker that runs the others: the other threads finish while thread 0
// still waits for input (runtime/test/host-threads.test.mjs gives the input only then).
//
//   hosted_io N    prints: done K (N-1 lines, any order), then
//                  hosted_io threads=N ok=N log_lines=N stdin_bytes=B
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int ok;
static long stdin_bytes = -1;

static void *worker(void *arg) {
  int k = (int)(long)arg;
  char path[64], want[64], got[64] = {0};
  if (k == 0) { // stdin to its end
    long total = 0;
    char buf[256];
    for (ssize_t m; (m = read(0, buf, sizeof buf)) > 0;) total += m;
    stdin_bytes = total;
  }
  snprintf(path, sizeof path, "/out/t%d.txt", k);
  int n = snprintf(want, sizeof want, "thread %d was here\n", k);
  FILE *f = fopen(path, "w");
  if (!f || fputs(want, f) < 0 || fclose(f) != 0) return NULL;
  for (int i = 0; i < 50; i++) sched_yield();
  struct timespec ts = {0, 2000000}; // 2 ms: poll_oneoff
  nanosleep(&ts, NULL);
  f = fopen(path, "r");
  if (!f) return NULL;
  size_t r = fread(got, 1, sizeof got - 1, f);
  fclose(f);
  pthread_mutex_lock(&mu);
  if ((int)r == n && memcmp(got, want, (size_t)n) == 0) {
    ok++;
    FILE *log = fopen("/out/log.txt", "a");
    if (log) { fprintf(log, "%d\n", k); fclose(log); }
  }
  pthread_mutex_unlock(&mu);
  if (k != 0) {
    char line[32];
    int len = snprintf(line, sizeof line, "done %d\n", k);
    if (write(1, line, (size_t)len) != len) return NULL;
  }
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  pthread_t t[64];
  if (n < 1 || n > 64) return 2;
  for (int i = 0; i < n; i++) if (pthread_create(&t[i], NULL, worker, (void *)(long)i) != 0) return 1;
  for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
  int lines = 0;
  FILE *log = fopen("/out/log.txt", "r");
  for (int c; log && (c = fgetc(log)) != EOF;) lines += c == '\n';
  if (log) fclose(log);
  printf("hosted_io threads=%d ok=%d log_lines=%d stdin_bytes=%ld\n", n, ok, lines, stdin_bytes);
  return ok == n && lines == n ? 0 : 1;
}
