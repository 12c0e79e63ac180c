// The CLI acceptance program: 4 pthreads each sum a quarter of 1..1,000,000; main prints each
// partial sum and the total (500000500000).
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define N 4
#define COUNT 1000000LL

static long long partial[N];

static void *work(void *arg) {
  int i = (int)(intptr_t)arg;
  long long lo = i * (COUNT / N) + 1, hi = (i + 1) * (COUNT / N), s = 0;
  for (long long k = lo; k <= hi; k++) s += k;
  partial[i] = s;
  return NULL;
}

int main(void) {
  pthread_t t[N];
  for (intptr_t i = 0; i < N; i++) pthread_create(&t[i], NULL, work, (void *)i);
  long long total = 0;
  for (int i = 0; i < N; i++) {
    pthread_join(t[i], NULL);
    printf("thread %d partial %lld\n", i, partial[i]);
    total += partial[i];
  }
  printf("total %lld\n", total);
  return 0;
}
