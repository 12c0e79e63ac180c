// _Thread_local: each of 4 threads counts in its own copy of a TLS variable (initialised to 100);
// main's copy keeps its own value; addresses differ between threads.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static _Thread_local int tls = 100;
static uintptr_t addrs[5];

static void *work(void *arg) {
  int i = (int)(intptr_t)arg;
  for (int k = 0; k < (i + 1) * 10; k++) tls++;
  addrs[i + 1] = (uintptr_t)&tls;
  return (void *)(intptr_t)tls;
}

int main(void) {
  pthread_t t[4];
  tls = 5;
  addrs[0] = (uintptr_t)&tls;
  for (intptr_t i = 0; i < 4; i++) pthread_create(&t[i], NULL, work, (void *)i);
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(t[i], &r);
    printf("thread %d tls %d\n", i, (int)(intptr_t)r);
  }
  printf("main tls %d\n", tls);
  int distinct = 1;
  for (int a = 0; a < 5; a++)
    for (int b = a + 1; b < 5; b++) distinct &= addrs[a] != addrs[b];
  printf("tls addresses distinct: %d\n", distinct);
  return 0;
}
