/* A racing symlink swap: one thread keeps replacing /box/d, a directory holding
 * secret.txt = "INSIDE", with a symlink d -> ../outside (whose secret.txt is "OUTSIDE") and back,
 * by renames; other threads meanwhile open, stat and create through d/ tens of thousands of
 * times. Each call must either act inside /box or fail: a runtime that checks the components
 * and then hands the whole path to the OS follows the symlink swapped in between. Counts reads of
 * "OUTSIDE", stats of the outside file and files created outside (the runner also checks
 * ROOT/outside on the host).
 * Usage: race_swap.wasm [opens per thread, default 40000] */
#include "escape.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

static atomic_int stop;
static atomic_int outside_reads, outside_stats, inside_reads, refused;

static void *flipper(void *arg) {
  (void)arg;
  while (!atomic_load(&stop)) {
    /* d is the directory; park it, put the symlink in its place, and back. */
    if (rename("/box/d", "/box/real") != 0) FAIL("rename d -> real");
    if (rename("/box/lnk", "/box/d") != 0) FAIL("rename lnk -> d");
    if (rename("/box/d", "/box/lnk") != 0) FAIL("rename d -> lnk");
    if (rename("/box/real", "/box/d") != 0) FAIL("rename real -> d");
  }
  return NULL;
}

static void *opener(void *arg) {
  long n = (long)arg;
  char buf[32];
  struct stat st;
  for (long i = 0; i < n; i++) {
    int fd = open("/box/d/secret.txt", O_RDONLY);
    if (fd >= 0) {
      const char *got = slurp_fd(fd, buf, sizeof buf);
      if (strcmp(got, "OUTSIDE\n") == 0) atomic_fetch_add(&outside_reads, 1);
      else if (strcmp(got, "INSIDE\n") == 0) atomic_fetch_add(&inside_reads, 1);
      else FAIL("read \"%s\"", got);
    } else {
      atomic_fetch_add(&refused, 1);
    }
    if ((i & 7) == 0 && stat("/box/d/secret.txt", &st) == 0 && st.st_size == 8) /* "OUTSIDE\n"; INSIDE's is 7 */ atomic_fetch_add(&outside_stats, 1);
    if ((i & 63) == 0) {
      /* create and remove a file through d/: it must never appear in ROOT/outside */
      fd = open("/box/d/created.txt", O_WRONLY | O_CREAT, 0644);
      if (fd >= 0) close(fd);
      unlink("/box/d/created.txt");
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  long n = argc > 1 ? atol(argv[1]) : 40000;
  CHECK(mkdir("/box/d", 0755) == 0);
  write_file("/box/d/secret.txt", "INSIDE\n");
  CHECK(symlink("../outside", "/box/lnk") == 0);
  pthread_t f, o[2];
  CHECK(pthread_create(&f, NULL, flipper, NULL) == 0);
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&o[i], NULL, opener, (void *)n) == 0);
  for (int i = 0; i < 2; i++) CHECK(pthread_join(o[i], NULL) == 0);
  atomic_store(&stop, 1);
  CHECK(pthread_join(f, NULL) == 0);
  /* the counts vary from run to run (printed on stderr so stdout compares across runtimes) */
  fprintf(stderr, "race_swap: opens %ld inside %d refused %d outside reads %d stats %d\n", 2 * n,
          atomic_load(&inside_reads), atomic_load(&refused), atomic_load(&outside_reads), atomic_load(&outside_stats));
  if (atomic_load(&inside_reads) == 0) FAIL("no open reached the inside file: the race tested nothing");
  if (atomic_load(&outside_reads)) ESCAPED("race open", "%d reads of ROOT/outside/secret.txt", atomic_load(&outside_reads));
  else printf("race open: ok\n");
  if (atomic_load(&outside_stats)) ESCAPED("race stat", "%d stats of ROOT/outside/secret.txt", atomic_load(&outside_stats));
  else printf("race stat: ok\n");
  return finish("race_swap");
}
