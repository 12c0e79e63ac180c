// A trap (wasm `unreachable`, from __builtin_trap) in a worker thread while main blocks in
// pthread_join: the program ends with 134 and the runtime names the thread and the trap.
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) static void crash_here(void) { __builtin_trap(); }

static void *work(void *arg) {
  (void)arg;
  printf("thread about to trap\n");
  fflush(stdout);
  crash_here();
  return NULL;
}

int main(void) {
  pthread_t t;
  printf("main before spawn\n");
  fflush(stdout);
  pthread_create(&t, NULL, work, NULL);
  pthread_join(t, NULL);
  printf("unreachable\n");
  return 0;
}
