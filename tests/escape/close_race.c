/* Writes to a file nobody named: one thread writes "AAAAAAAA" to fd T over and over while another
 * replaces the file at T (fd_renumber of a fresh fd onto T closes T's file) and opens other files,
 * which the OS may give the closed file's OS fd number. POSIX: a write reaches the file T named
 * when it started, or the one renumbered onto T; it never lands in a file opened at another fd
 * number. T is never free, so the other files (y0..y3) always get other numbers and no byte of
 * the writer's may ever appear in them.
 * Usage: close_race.wasm [rounds, default 3000]  (a misdirected byte exits 1) */
#include "escape.h"
#include <pthread.h>
#include <stdatomic.h>
#include <wasi/api.h>

#define YS 4
static atomic_int stop;
static atomic_int target = -1;
static atomic_long written;

static void *writer(void *arg) {
  (void)arg;
  int fd = atomic_load(&target);
  while (!atomic_load(&stop))
    if (write(fd, "AAAAAAAA", 8) == 8) atomic_fetch_add(&written, 1);
  return NULL;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  long rounds = argc > 1 ? atol(argv[1]) : 3000;
  const int T = open("/box/x", O_WRONLY | O_CREAT | O_APPEND, 0644);
  CHECK(T >= 0);
  atomic_store(&target, T);
  pthread_t w;
  CHECK(pthread_create(&w, NULL, writer, NULL) == 0);
  char name[16];
  for (long r = 0; r < rounds; r++) {
    int x = open("/box/x", O_WRONLY | O_APPEND);
    CHECK(x >= 0 && x != T);
    errno = __wasi_fd_renumber(x, T);
    CHECK(errno == 0);
    int y[YS];
    for (int i = 0; i < YS; i++) {
      snprintf(name, sizeof name, "/box/y%d", i);
      y[i] = open(name, O_WRONLY | O_CREAT | O_APPEND, 0644);
      CHECK(y[i] >= 0 && y[i] != T);
    }
    for (int i = 0; i < YS; i++) CHECK(close(y[i]) == 0);
  }
  atomic_store(&stop, 1);
  CHECK(pthread_join(w, NULL) == 0);
  long misdirected = 0;
  char buf[4096];
  for (int i = 0; i < YS; i++) {
    snprintf(name, sizeof name, "/box/y%d", i);
    int fd = open(name, O_RDONLY);
    CHECK(fd >= 0);
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) misdirected += n;
    CHECK(close(fd) == 0);
  }
  fprintf(stderr, "close_race: rounds %ld writes to T %ld\n", rounds, atomic_load(&written));
  if (atomic_load(&written) == 0) FAIL("the writer never wrote: the race tested nothing");
  if (misdirected) ESCAPED("close race", "%ld bytes written to fd %d landed in files opened at other fds", misdirected, T);
  else printf("close race: ok\n");
  return finish("close_race");
}
