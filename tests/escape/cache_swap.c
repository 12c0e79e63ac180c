/* Swap after cache: a runtime may keep the directories it walked through open for the next
 * lookups below them (spindle's per-thread directory cache, host-dir-cache.ts). Warm such a
 * cache with many lookups through /box/a and /box/a/dir, then change the tree under it:
 *   swap     a renamed away (still inside the box) and a symlink a -> ../outside put in its
 *            place: every lookup through a/ must refuse or act inside, never reach ROOT/outside
 *            (ROOT/outside/dir must stay empty: the runner checks the host);
 *   replace  a new directory a with a new a/dir/secret.txt: lookups must see the new file, not
 *            the directory cached before (a wrong answer, not an escape: the program fails);
 *   race     one thread keeps swapping a for that symlink and back while two others open, stat
 *            and create through a/ and a/dir/, each thread's cache warm from the start.
 * Usage: cache_swap.wasm [lookups per racing thread, default 20000]  (layout in escape.h) */
#include "escape.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

static char buf[64];

static const char *read_file(const char *path) {
  return slurp_fd(open(path, O_RDONLY), buf, sizeof buf);
}

/* A lookup through the swapped-in symlink: it must fail (the symlink leads out of the box). */
static void expect_refused(const char *attack, int r) {
  if (r >= 0) ESCAPED(attack, "the call succeeded (it can only have reached ROOT/outside)");
  else printf("%s: ok\n", attack);
}

static void warm(int n) {
  struct stat st;
  for (int i = 0; i < n; i++) {
    CHECK(stat("/box/a/dir/secret.txt", &st) == 0);
    CHECK(stat("/box/a/secret.txt", &st) == 0);
    CHECK(strcmp(read_file("/box/a/dir/secret.txt"), "INSIDE\n") == 0);
  }
}

static atomic_int stop, outside_reads, outside_stats, inside_reads;

static void *flipper(void *arg) {
  (void)arg;
  while (!atomic_load(&stop)) {
    if (rename("/box/a", "/box/parked") != 0) FAIL("rename a -> parked");
    if (rename("/box/lnk", "/box/a") != 0) FAIL("rename lnk -> a");
    if (rename("/box/a", "/box/lnk") != 0) FAIL("rename a -> lnk");
    if (rename("/box/parked", "/box/a") != 0) FAIL("rename parked -> a");
  }
  return NULL;
}

static void *looker(void *arg) {
  long n = (long)arg;
  struct stat st;
  for (long i = 0; i < n; i++) {
    const char *got = read_file("/box/a/secret.txt");
    if (strcmp(got, "OUTSIDE\n") == 0) atomic_fetch_add(&outside_reads, 1);
    else if (strcmp(got, "INSIDE\n") == 0) atomic_fetch_add(&inside_reads, 1);
    else if (got[0]) FAIL("read \"%s\"", got);
    if (stat("/box/a/secret.txt", &st) == 0 && st.st_size == 8) /* "OUTSIDE\n"; INSIDE's is 7 */ atomic_fetch_add(&outside_stats, 1);
    stat("/box/a/dir/secret.txt", &st);
    if ((i & 31) == 0) {
      /* create and remove a file through a/dir/: it must never appear in ROOT/outside/dir */
      int fd = open("/box/a/dir/created.txt", O_WRONLY | O_CREAT, 0644);
      if (fd >= 0) close(fd);
      unlink("/box/a/dir/created.txt");
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  long n = argc > 1 ? atol(argv[1]) : 20000;
  struct stat st;
  CHECK(mkdir("/box/a", 0755) == 0);
  CHECK(mkdir("/box/a/dir", 0755) == 0);
  write_file("/box/a/secret.txt", "INSIDE\n");
  write_file("/box/a/dir/secret.txt", "INSIDE\n");

  /* swap: the cached a and a/dir now sit at /box/parked; a is a symlink out of the box. */
  warm(200);
  CHECK(rename("/box/a", "/box/parked") == 0);
  CHECK(symlink("../outside", "/box/a") == 0);
  expect_refused("open a/secret.txt", open("/box/a/secret.txt", O_RDONLY));
  expect_refused("stat a/secret.txt", stat("/box/a/secret.txt", &st));
  expect_refused("stat a/dir", stat("/box/a/dir", &st));
  expect_refused("stat a/dir/secret.txt", stat("/box/a/dir/secret.txt", &st));
  expect_refused("create a/dir/new.txt", open("/box/a/dir/new.txt", O_WRONLY | O_CREAT, 0644));
  expect_refused("mkdir a/dir/sub", mkdir("/box/a/dir/sub", 0755));
  expect_refused("rename into a/dir", rename("/box/parked/secret.txt", "/box/a/dir/stolen.txt"));
  if (strcmp(read_file("/box/parked/dir/secret.txt"), "INSIDE\n") != 0) FAIL("parked/dir/secret.txt reads \"%s\"", buf);
  printf("parked: ok\n");

  /* replace: a new a/dir; the directories cached before are not it. */
  CHECK(unlink("/box/a") == 0);
  CHECK(mkdir("/box/a", 0755) == 0);
  CHECK(mkdir("/box/a/dir", 0755) == 0);
  write_file("/box/a/dir/secret.txt", "NEW\n");
  if (strcmp(read_file("/box/a/dir/secret.txt"), "NEW\n") != 0) FAIL("a/dir/secret.txt reads \"%s\" after a was replaced", buf);
  if (stat("/box/a/secret.txt", &st) == 0) FAIL("a/secret.txt of the old a is still seen");
  printf("replace: ok\n");

  /* race: back to the first tree, with the symlink parked at lnk. */
  CHECK(rename("/box/a", "/box/new") == 0);
  CHECK(rename("/box/parked", "/box/a") == 0);
  CHECK(symlink("../outside", "/box/lnk") == 0);
  warm(50);
  pthread_t f, o[2];
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&o[i], NULL, looker, (void *)n) == 0);
  CHECK(pthread_create(&f, NULL, flipper, NULL) == 0);
  for (int i = 0; i < 2; i++) CHECK(pthread_join(o[i], NULL) == 0);
  atomic_store(&stop, 1);
  CHECK(pthread_join(f, NULL) == 0);
  /* the counts vary from run to run (on stderr, so that stdout compares across runtimes) */
  fprintf(stderr, "cache_swap: lookups %ld inside reads %d outside reads %d stats %d\n", 2 * n,
          atomic_load(&inside_reads), atomic_load(&outside_reads), atomic_load(&outside_stats));
  if (atomic_load(&inside_reads) == 0) FAIL("no open reached the inside file: the race tested nothing");
  if (atomic_load(&outside_reads)) ESCAPED("race open", "%d reads of ROOT/outside/secret.txt", atomic_load(&outside_reads));
  else printf("race open: ok\n");
  if (atomic_load(&outside_stats)) ESCAPED("race stat", "%d stats of ROOT/outside/secret.txt", atomic_load(&outside_stats));
  else printf("race stat: ok\n");
  return finish("cache_swap");
}
