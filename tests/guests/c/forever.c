// Never ends by itself: 2 threads spin, main prints "running" and sleeps forever. For the
// embedding API's kill() (and anything else that must end a program from outside).
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *spin(void *arg) {
  (void)arg;
  for (volatile unsigned long i = 0;; i++) {}
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, spin, NULL);
  pthread_create(&t, NULL, spin, NULL);
  printf("running\n");
  fflush(stdout);
  for (;;) sleep(60);
}
