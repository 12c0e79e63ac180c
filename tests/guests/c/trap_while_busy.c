// A trap in one thread while 4 others spin in tight loops that never call the host: the program
// still ends at once with 134 (the runtime must stop threads that never yield).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int spinning;

static void *spin(void *arg) {
  (void)arg;
  atomic_fetch_add(&spinning, 1);
  for (volatile unsigned long i = 0;; i++) {}
  return NULL;
}

static void *crash(void *arg) {
  (void)arg;
  while (atomic_load(&spinning) < 4) {}
  printf("4 threads spinning; trapping\n");
  fflush(stdout);
  __builtin_trap();
}

int main(void) {
  pthread_t t;
  for (int i = 0; i < 4; i++) pthread_create(&t, NULL, spin, NULL);
  pthread_create(&t, NULL, crash, NULL);
  pthread_join(t, NULL);
  return 0;
}
