/* O_APPEND from 8 threads: every record lands whole, none is lost, each thread's records stay
 * in its order. Half the threads share one fd, the other half open their own. */
#include "check.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#define THREADS 8
#define RECORDS 2000
#define REC 16

static int shared_fd;

static void *writer(void *arg) {
  int id = (int)(long)arg;
  int fd = id % 2 ? shared_fd : open("/tmp/append.log", O_WRONLY | O_APPEND);
  CHECK(fd >= 0);
  for (int i = 0; i < RECORDS; i++) {
    char rec[REC + 1];
    snprintf(rec, sizeof rec, "t%d %012d\n", id, i); /* exactly 16 bytes */
    CHECK(write(fd, rec, REC) == REC);
  }
  if (fd != shared_fd) CHECK(close(fd) == 0);
  return NULL;
}

int main(void) {
  shared_fd = open("/tmp/append.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
  CHECK(shared_fd >= 0);
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, writer, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) CHECK(pthread_join(t[i], NULL) == 0);
  CHECK(close(shared_fd) == 0);

  struct stat st;
  CHECK(stat("/tmp/append.log", &st) == 0 && st.st_size == THREADS * RECORDS * REC);
  int fd = open("/tmp/append.log", O_RDONLY);
  CHECK(fd >= 0);
  static char all[THREADS * RECORDS * REC];
  CHECK(read(fd, all, sizeof all) == (ssize_t)sizeof all);
  int next[THREADS] = {0};
  for (int r = 0; r < THREADS * RECORDS; r++) {
    const char *rec = all + r * REC;
    int id = -1, seq = -1;
    CHECK(sscanf(rec, "t%d %d", &id, &seq) == 2 && rec[REC - 1] == '\n');
    CHECK(id >= 0 && id < THREADS && seq == next[id]);
    next[id]++;
  }
  CHECK(close(fd) == 0);
  printf("append_threads ok\n");
  return 0;
}
