// Memory growth seen by every thread: 4 threads each malloc 16 MiB (the shared memory grows
// while others run), fill it, and write() straight from the new region; main then reads stdin
// into freshly grown memory and echoes it. Exercises WASI calls on a memory grown by another thread.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 4
#define SIZE (16u << 20)

static void *work(void *arg) {
  int id = (int)(intptr_t)arg;
  uint8_t *p = malloc(SIZE);
  if (!p) return (void *)1;
  memset(p, 'a' + id, SIZE);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < SIZE; i += 4096) sum += p[i];
  // Write the tail of the new block (far past the memory size at start-up) through fd_write.
  char *line = (char *)p + SIZE - 64;
  int n = snprintf(line, 64, "thread %d block sum %u\n", id, sum);
  write(1, line, (size_t)n);
  free(p);
  return NULL;
}

int main(void) {
  pthread_t t[N];
  for (intptr_t i = 0; i < N; i++) {
    pthread_create(&t[i], NULL, work, (void *)i);
    pthread_join(t[i], NULL);  // one at a time: lines in a fixed order
  }
  size_t cap = 32u << 20;
  char *in = malloc(cap);
  size_t got = 0;
  ssize_t n;
  while ((n = read(0, in + got, cap - got)) > 0) got += (size_t)n;
  printf("stdin into grown memory: %zu bytes, last byte %d\n", got, got ? in[got - 1] : -1);
  return 0;
}
