// abort() from a thread: wasi-libc's abort is `unreachable`, so this is a trap (exit 134).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *work(void *arg) {
  (void)arg;
  fprintf(stderr, "thread calling abort()\n");
  abort();
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, work, NULL);
  pthread_join(t, NULL);
  printf("unreachable\n");
  return 0;
}
