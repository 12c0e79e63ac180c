// pthread_create / pthread_join / pthread_detach: 3 joinable threads return values through
// pthread_join; 2 detached threads signal completion through an atomic counter main polls.
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

static atomic_int detached_done;

static void *square(void *arg) {
  intptr_t n = (intptr_t)arg;
  return (void *)(n * n);
}

static void *detached(void *arg) {
  (void)arg;
  atomic_fetch_add(&detached_done, 1);
  return NULL;
}

int main(void) {
  pthread_t t[3];
  for (intptr_t i = 0; i < 3; i++) {
    if (pthread_create(&t[i], NULL, square, (void *)(i + 2)) != 0) return 10;
  }
  for (int i = 0; i < 3; i++) {
    void *ret;
    if (pthread_join(t[i], &ret) != 0) return 11;
    printf("joined thread %d: %d\n", i, (int)(intptr_t)ret);
  }
  for (int i = 0; i < 2; i++) {
    pthread_t d;
    if (pthread_create(&d, NULL, detached, NULL) != 0) return 12;
    if (pthread_detach(d) != 0) return 13;
  }
  while (atomic_load(&detached_done) < 2) sched_yield();
  printf("detached threads finished: %d\n", atomic_load(&detached_done));
  printf("main thread is pthread_self: %d\n", pthread_equal(pthread_self(), pthread_self()));
  return 0;
}
