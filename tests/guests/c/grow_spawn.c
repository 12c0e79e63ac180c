// Threads started on workers that were created before the memory grew: main grows the memory by
// two pages, then starts a thread that does an atomic add on the last word of the memory as main
// sees it, N times. Run with a large prewarmed pool (threads: N), whose workers boot while main
// grows the memory. On V8 a worker learns of another thread's growth lazily, and one that
// received the memory while it grew could run its thread on an older view: its atomics then
// trapped ("memory access out of bounds"; 2 of 9 runs of 64 threads on a loaded 2-core machine).
//
//   grow_spawn N    prints: grow_spawn threads=N sum=N
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void *touch(void *arg) {
  atomic_fetch_add((_Atomic uint32_t *)arg, 1);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  pthread_t *t = malloc(sizeof(pthread_t) * (size_t)n);
  uint32_t **words = malloc(sizeof(uint32_t *) * (size_t)n);
  for (int i = 0; i < n; i++) {
    size_t pages = __builtin_wasm_memory_grow(0, 2);
    if (pages == (size_t)-1) { printf("memory.grow failed at thread %d\n", i); return 1; }
    words[i] = (uint32_t *)((pages + 2) * 65536 - 4);
    if (pthread_create(&t[i], NULL, touch, words[i]) != 0) { printf("pthread_create %d failed\n", i); return 1; }
  }
  unsigned sum = 0;
  for (int i = 0; i < n; i++) {
    pthread_join(t[i], NULL);
    sum += *words[i];
  }
  printf("grow_spawn threads=%d sum=%u\n", n, sum);
  return sum == (unsigned)n ? 0 : 1;
}
