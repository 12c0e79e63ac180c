// 8 threads each write 200 lines "t<id> line <n>" with one write() per line, all at once: the
// lines may interleave between threads, but each line stays whole and each thread's lines stay
// in order. Half the threads write to stdout, half to stderr.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 8
#define LINES 200
static pthread_barrier_t start;

static void *work(void *arg) {
  int id = (int)(intptr_t)arg;
  int fd = id % 2 == 0 ? 1 : 2;
  char buf[64];
  pthread_barrier_wait(&start);
  for (int i = 0; i < LINES; i++) {
    int n = snprintf(buf, sizeof buf, "t%d line %d\n", id, i);
    if (write(fd, buf, (size_t)n) != n) return (void *)1;
  }
  return NULL;
}

int main(void) {
  pthread_t t[N];
  pthread_barrier_init(&start, NULL, N);
  for (intptr_t i = 0; i < N; i++) pthread_create(&t[i], NULL, work, (void *)i);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    void *r;
    pthread_join(t[i], &r);
    bad += r != NULL;
  }
  return bad;
}
