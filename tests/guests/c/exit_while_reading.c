// A thread blocks in read(0) on stdin that never ends (the host keeps the pipe open); main then
// returns 0. The program must end with 0 anyway (nothing may wait for the blocked reader).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int reading;

static void *reader(void *arg) {
  (void)arg;
  char buf[64];
  atomic_store(&reading, 1);
  ssize_t n = read(0, buf, sizeof buf);
  printf("reader got %zd bytes\n", n);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  while (!atomic_load(&reading)) usleep(1000);
  usleep(20000);  // let the reader enter read(0)
  printf("main returns while a thread waits for stdin\n");
  return 0;
}
