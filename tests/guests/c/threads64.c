// 64 threads alive at once: every thread waits at a barrier until all 64 have started (so they
// really coexist), then adds its index to an atomic sum. Expected sum: 0 + ... + 63 = 2016.
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define N 64
static pthread_barrier_t barrier;
static atomic_long sum;

static void *work(void *arg) {
  pthread_barrier_wait(&barrier);
  atomic_fetch_add(&sum, (long)(intptr_t)arg);
  return NULL;
}

int main(void) {
  pthread_t t[N];
  pthread_barrier_init(&barrier, NULL, N);
  for (intptr_t i = 0; i < N; i++) {
    int rc = pthread_create(&t[i], NULL, work, (void *)i);
    if (rc != 0) {
      printf("pthread_create %d failed: %d\n", (int)i, rc);
      return 1;
    }
  }
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
  printf("threads %d sum %ld\n", N, atomic_load(&sum));
  return 0;
}
