// Thread spawn latency: the time from just before pthread_create to the first instruction of the
// new thread, measured with CLOCK_MONOTONIC on both sides (the host's monotonic clock must be the
// same clock on every thread).
//
//   spawn_latency K N      K = threads spawned back-to-back per round (1 or 2), N = rounds
//
// Each round: read the clock, pthread_create (x K, reading the clock before each), then join all
// K. Only the main thread spawns and it blocks in pthread_join, so no thread ever spawns a thread
// (a shape that also works on @emnapi/wasi-threads, whose child-thread spawns go through the JS
// main thread). Prints one line:
//   spawn_latency k=K n=N samples=S p50_ns=.. p90_ns=.. p99_ns=.. min_ns=.. max_ns=.. ok
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_K 8

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *thread_main(void *arg) {
  *(volatile uint64_t *)arg = now_ns(); // first thing the thread does
  return NULL;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

// Nearest-rank percentile of a sorted array.
static uint64_t pct(const uint64_t *v, size_t n, double p) {
  size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999);
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return v[rank - 1];
}

int main(int argc, char **argv) {
  int k = argc > 1 ? atoi(argv[1]) : 1;
  int n = argc > 2 ? atoi(argv[2]) : 1000;
  if (k < 1 || k > MAX_K || n < 1) {
    fprintf(stderr, "usage: spawn_latency K(1..%d) N(>=1)\n", MAX_K);
    return 2;
  }
  size_t samples = (size_t)k * (size_t)n;
  uint64_t *lat = malloc(samples * sizeof *lat);
  if (!lat) { fprintf(stderr, "out of memory\n"); return 1; }
  size_t s = 0;
  for (int r = 0; r < n; r++) {
    pthread_t t[MAX_K];
    uint64_t before[MAX_K];
    volatile uint64_t started[MAX_K];
    for (int i = 0; i < k; i++) {
      started[i] = 0;
      before[i] = now_ns();
      int e = pthread_create(&t[i], NULL, thread_main, (void *)&started[i]);
      if (e) { fprintf(stderr, "pthread_create failed in round %d: error %d\n", r, e); return 1; }
    }
    for (int i = 0; i < k; i++) {
      pthread_join(t[i], NULL);
      if (started[i] < before[i]) { fprintf(stderr, "clock went backwards across threads\n"); return 1; }
      lat[s++] = started[i] - before[i];
    }
  }
  qsort(lat, samples, sizeof *lat, cmp_u64);
  printf("spawn_latency k=%d n=%d samples=%zu p50_ns=%llu p90_ns=%llu p99_ns=%llu min_ns=%llu max_ns=%llu ok\n",
         k, n, samples, (unsigned long long)pct(lat, samples, 50), (unsigned long long)pct(lat, samples, 90),
         (unsigned long long)pct(lat, samples, 99),
         (unsigned long long)lat[0], (unsigned long long)lat[samples - 1]);
  free(lat);
  return 0;
}
