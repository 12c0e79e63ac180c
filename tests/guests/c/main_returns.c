// main returns 0 while 3 other threads are still running (one spinning, one sleeping, one
// blocked on a condition variable that is never signalled): the program ends with 0 (POSIX).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int started;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *spin(void *arg) {
  (void)arg;
  atomic_fetch_add(&started, 1);
  for (volatile unsigned long i = 0;; i++) {}
  return NULL;
}
static void *sleeper(void *arg) {
  (void)arg;
  atomic_fetch_add(&started, 1);
  for (;;) sleep(10);
  return NULL;
}
static void *waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  atomic_fetch_add(&started, 1);
  for (;;) pthread_cond_wait(&never, &mu);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, spin, NULL);
  pthread_create(&t, NULL, sleeper, NULL);
  pthread_create(&t, NULL, waiter, NULL);
  while (atomic_load(&started) < 3) usleep(1000);
  printf("3 threads running; main returns 0\n");
  return 0;
}
