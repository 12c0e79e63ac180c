// exit(n) from a non-main thread while main blocks in pthread_join on a thread that never ends:
// the whole program ends with n (argv[1], default 7). Output written before exit is not lost.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int code = 7;

static void *forever(void *arg) {
  (void)arg;
  for (;;) sleep(1);
  return NULL;
}

static void *exiter(void *arg) {
  (void)arg;
  printf("thread calling exit(%d)\n", code);
  exit(code);
}

int main(int argc, char **argv) {
  if (argc > 1) code = atoi(argv[1]);
  pthread_t a, b;
  pthread_create(&a, NULL, forever, NULL);
  printf("main joining\n");
  fflush(stdout);
  pthread_create(&b, NULL, exiter, NULL);
  pthread_join(a, NULL);
  printf("unreachable\n");
  return 99;
}
