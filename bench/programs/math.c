// Pure math on T threads, total work fixed: each thread runs ONE long loop (entered once, so V8
// never re-tiers it: the case where the optimizing tier up front matters), mixing integer hashing
// and double arithmetic. The doubles are summed in the same order on every target and nothing can
// be contracted into an FMA (wasm has none; x86-64 gcc -O2 without -march has none), so the
// checksum is identical on wasm and native for the same T.
//
//   math T [ITERS]     prints: math threads=T iters=ITERS checksum=HEX elapsed_ms=F
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_T 64

struct job { uint64_t begin, end, hash; double acc; };

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *work(void *p) {
  struct job *j = p;
  uint64_t h = 0x9e3779b97f4a7c15u ^ j->begin;
  double acc = 0.0;
  for (uint64_t i = j->begin; i < j->end; i++) {
    uint64_t x = i * 0xbf58476d1ce4e5b9u;
    x ^= x >> 31;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 29;
    h = (h ^ x) * 0x100000001b3u;
    // (x & 0xfff) * 0.25 is exact; the division rounds the same way everywhere (IEEE, no FMA).
    acc += (double)(x & 0xfff) * 0.25 / (double)((i & 7) + 1);
  }
  j->hash = h;
  j->acc = acc;
  return NULL;
}

int main(int argc, char **argv) {
  int t = argc > 1 ? atoi(argv[1]) : 1;
  uint64_t iters = argc > 2 ? strtoull(argv[2], NULL, 10) : 200000000u;
  if (t < 1 || t > MAX_T) { fprintf(stderr, "usage: math T(1..%d) [ITERS]\n", MAX_T); return 2; }
  struct job jobs[MAX_T];
  pthread_t th[MAX_T];
  uint64_t start = now_ns();
  for (int i = 0; i < t; i++) {
    jobs[i].begin = iters * (uint64_t)i / (uint64_t)t;
    jobs[i].end = iters * (uint64_t)(i + 1) / (uint64_t)t;
    if (pthread_create(&th[i], NULL, work, &jobs[i])) { fprintf(stderr, "pthread_create failed\n"); return 1; }
  }
  for (int i = 0; i < t; i++) pthread_join(th[i], NULL);
  uint64_t elapsed = now_ns() - start;
  // The checksum depends on how the work is split (each thread hashes its own range and sums its
  // own doubles), so it is compared only between runs with the same T (e.g. against native).
  uint64_t hash = 0;
  double acc = 0.0;
  for (int i = 0; i < t; i++) { hash = (hash ^ jobs[i].hash) * 0x100000001b3u; acc += jobs[i].acc; }
  printf("math threads=%d iters=%llu checksum=%016llx:%.6f elapsed_ms=%.3f\n", t,
         (unsigned long long)iters, (unsigned long long)hash, acc, (double)elapsed / 1e6);
  return 0;
}
