/* Path operations from 4 threads in one directory while another thread lists it: create, write,
 * rename, stat, unlink of each thread's own files; every listing shows each name at most once;
 * the directory ends empty. */
#include "check.h"
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORKERS 4
#define ROUNDS 300

static atomic_int done;

static void *worker(void *arg) {
  int id = (int)(long)arg;
  for (int n = 0; n < ROUNDS; n++) {
    char a[64], b[64];
    snprintf(a, sizeof a, "/tmp/dt/w%d-%d", id, n);
    snprintf(b, sizeof b, "/tmp/dt/r%d-%d", id, n);
    int fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, a, strlen(a)) == (ssize_t)strlen(a));
    CHECK(close(fd) == 0);
    CHECK(rename(a, b) == 0);
    struct stat st;
    CHECK(stat(b, &st) == 0 && st.st_size == (off_t)strlen(a));
    CHECK_ERR(stat(a, &st), ENOENT);
    CHECK(unlink(b) == 0);
  }
  atomic_fetch_add(&done, 1);
  return NULL;
}

static void *lister(void *arg) {
  (void)arg;
  int scans = 0;
  while (atomic_load(&done) < WORKERS || scans == 0) {
    DIR *d = opendir("/tmp/dt");
    CHECK(d != NULL);
    char names[64][32];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      for (int i = 0; i < n; i++) CHECK(strcmp(names[i], e->d_name) != 0);
      if (n < 64) snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    CHECK(closedir(d) == 0);
    scans++;
  }
  return NULL;
}

int main(void) {
  CHECK(mkdir("/tmp/dt", 0755) == 0);
  pthread_t w[WORKERS], l;
  CHECK(pthread_create(&l, NULL, lister, NULL) == 0);
  for (long i = 0; i < WORKERS; i++) CHECK(pthread_create(&w[i], NULL, worker, (void *)i) == 0);
  for (int i = 0; i < WORKERS; i++) CHECK(pthread_join(w[i], NULL) == 0);
  CHECK(pthread_join(l, NULL) == 0);
  CHECK(rmdir("/tmp/dt") == 0);
  printf("dir_threads ok\n");
  return 0;
}
