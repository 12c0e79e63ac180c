// Large output: 16 KiB lines "line NNNNNN ...", 1 MiB in all, to stdout through stdio, from the
// main thread and (the second half) from a thread, then a final line. Nothing may be lost.
// With argument "exit" it ends with exit(3) right after writing (output still complete).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE 64
#define LINES 16384  // 16384 * 64 = 1 MiB

static void emit(int from, int to) {
  char buf[LINE + 1];
  for (int i = from; i < to; i++) {
    snprintf(buf, sizeof buf, "line %06d %s", i, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    buf[LINE - 1] = '\n';
    fwrite(buf, 1, LINE, stdout);
  }
}

static void *second_half(void *arg) {
  (void)arg;
  emit(LINES / 2, LINES);
  fflush(stdout);
  return NULL;
}

int main(int argc, char **argv) {
  emit(0, LINES / 2);
  fflush(stdout);
  pthread_t t;
  pthread_create(&t, NULL, second_half, NULL);
  pthread_join(t, NULL);
  if (argc > 1 && strcmp(argv[1], "exit") == 0) exit(3);
  return 0;
}
