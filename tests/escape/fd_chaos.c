/* Four threads opening, writing, reading and closing each other's fds through a shared array of
 * slots, as a program with a careless fd discipline does. Every call may fail (EBADF: another
 * thread closed the fd first) but the runtime must neither crash nor abort, nor let a call reach
 * an OS fd it does not own (Node's and libuv's own fds live in the same process). Exits 0 with
 * "fd_chaos: ok".
 * Usage: fd_chaos.wasm [iterations per thread, default 20000] */
#include "escape.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#define SLOTS 16
#define THREADS 4
static atomic_int slot[SLOTS];
static long iterations;

static void *chaos(void *arg) {
  long n = iterations;
  unsigned seed = (unsigned)(long)arg * 2654435761u + 1;
  char name[32], buf[64];
  struct stat st;
  for (long i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    unsigned r = seed >> 8;
    int s = r % SLOTS, fd;
    switch ((r / SLOTS) % 5) {
    case 0:
      snprintf(name, sizeof name, "/box/c%d", s);
      fd = open(name, O_RDWR | O_CREAT, 0644);
      if (fd >= 0) {
        int expected = -1;
        if (!atomic_compare_exchange_strong(&slot[s], &expected, fd)) close(fd);
      }
      break;
    case 1: (void)!write(atomic_load(&slot[s]), "chaos\n", 6); break;
    case 2: (void)!pread(atomic_load(&slot[s]), buf, sizeof buf, 0); break;
    case 3: fd = atomic_exchange(&slot[s], -1); if (fd >= 0) close(fd); break;
    case 4: (void)fstat(atomic_load(&slot[s]), &st); (void)lseek(atomic_load(&slot[s]), 0, SEEK_END); break;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  iterations = argc > 1 ? atol(argv[1]) : 20000;
  for (int i = 0; i < SLOTS; i++) atomic_store(&slot[i], -1);
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, chaos, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) CHECK(pthread_join(t[i], NULL) == 0);
  for (int i = 0; i < SLOTS; i++) if (atomic_load(&slot[i]) >= 0) close(atomic_load(&slot[i]));
  printf("fd_chaos: ok\n");
  return finish("fd_chaos");
}
