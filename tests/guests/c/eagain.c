// pthread_create past the runtime's thread limit: threads block on a barrier-like gate so none
// finish; main creates threads until pthread_create fails, prints the error, releases them, joins
// them all and prints how many it made. Run with a small maximum (e.g. --max-threads 4).
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define LIMIT 200
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int released;

static void *wait_gate(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  while (!released) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return NULL;
}

int main(void) {
  pthread_t t[LIMIT];
  int made = 0, rc = 0;
  while (made < LIMIT) {
    rc = pthread_create(&t[made], NULL, wait_gate, NULL);
    if (rc != 0) break;
    made++;
  }
  printf("pthread_create failed: %s\n", rc == EAGAIN ? "EAGAIN" : rc == 0 ? "never" : strerror(rc));
  pthread_mutex_lock(&mu);
  released = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < made; i++) pthread_join(t[i], NULL);
  printf("created %d threads, joined all\n", made);
  // The pool slots are free again: one more thread works.
  pthread_t again;
  rc = pthread_create(&again, NULL, wait_gate, NULL);
  if (rc == 0) pthread_join(again, NULL);
  printf("create after join: %s\n", rc == 0 ? "ok" : strerror(rc));
  return 0;
}
