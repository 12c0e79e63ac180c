// A chain of threads: main starts thread 1, thread k starts thread k+1 and joins it, down to
// depth D; each thread returns the depth the chain reached below it.
//
//   chain D       prints: chain depth=D reached=D elapsed_ms=F
//
// Each link's spawn happens on a thread that was itself just spawned, so nothing overlaps: the
// time per link is the latency of one thread start beyond the pool. Exit 1 if a create failed.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static intptr_t depth;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *chain_link(void *arg) {
  intptr_t k = (intptr_t)arg;
  if (k == depth) return (void *)k;
  pthread_t next;
  if (pthread_create(&next, NULL, chain_link, (void *)(k + 1)) != 0) return (void *)(intptr_t)-1;
  void *reached;
  pthread_join(next, &reached);
  return reached;
}

int main(int argc, char **argv) {
  depth = argc > 1 ? atoi(argv[1]) : 100;
  if (depth < 1) { fprintf(stderr, "usage: chain D (D >= 1)\n"); return 2; }
  double t0 = now_ms();
  intptr_t reached = (intptr_t)chain_link((void *)0);
  printf("chain depth=%d reached=%d elapsed_ms=%.3f\n", (int)depth, (int)reached, now_ms() - t0);
  return reached == depth ? 0 : 1;
}
