// Threads beyond the pool, all alive at once: N threads block on a condition variable until the
// last one has started, then main releases them and joins them all.
//
//   blocked N     prints: blocked threads=N joined=N create_ms=F elapsed_ms=F
//
// create_ms: main's time in the N pthread_create calls; elapsed_ms: from the first create to the
// last join (CLOCK_MONOTONIC). Exit 1 if a create fails or not every thread was joined.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released_cv = PTHREAD_COND_INITIALIZER, all_started = PTHREAD_COND_INITIALIZER;
static int started, released, n;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *gate(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  if (++started == n) pthread_cond_signal(&all_started);
  while (!released) pthread_cond_wait(&released_cv, &mu);
  pthread_mutex_unlock(&mu);
  return NULL;
}

int main(int argc, char **argv) {
  n = argc > 1 ? atoi(argv[1]) : 512;
  if (n < 1) { fprintf(stderr, "usage: blocked N (N >= 1)\n"); return 2; }
  pthread_t *t = malloc(sizeof(pthread_t) * (size_t)n);
  double t0 = now_ms();
  for (int i = 0; i < n; i++) {
    if (pthread_create(&t[i], NULL, gate, NULL) != 0) { printf("pthread_create %d of %d failed\n", i, n); return 1; }
  }
  double t1 = now_ms();
  pthread_mutex_lock(&mu);
  while (started < n) pthread_cond_wait(&all_started, &mu);
  released = 1;
  pthread_cond_broadcast(&released_cv);
  pthread_mutex_unlock(&mu);
  int joined = 0;
  for (int i = 0; i < n; i++) joined += pthread_join(t[i], NULL) == 0;
  printf("blocked threads=%d joined=%d create_ms=%.3f elapsed_ms=%.3f\n", n, joined, t1 - t0, now_ms() - t0);
  return joined == n ? 0 : 1;
}
