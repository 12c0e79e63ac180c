// Which of fds 0-2 the program sees as a terminal (wasi-libc's isatty: fd_fdstat_get answers
// CHARACTER_DEVICE without seek/tell rights). With the argument "thread" a pthread asks: the
// program then runs _start on a worker, which gets the answers from its owner in its WorkerInit.
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *report(void *arg) {
  (void)arg;
  int in = isatty(0), out = isatty(1), err = isatty(2);
  printf("isatty 0=%d 1=%d 2=%d\n", in, out, err);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "thread") == 0) {
    pthread_t t;
    if (pthread_create(&t, NULL, report, NULL) != 0) return 1;
    pthread_join(t, NULL);
  } else {
    report(NULL);
  }
  return 0;
}
