/* One filesystem for all threads: a file written by one thread is read by another, and an fd
 * opened in one thread is used in others (also after the opening thread has exited). */
#include "check.h"
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static int fd_from_thread = -1;

static void *producer(void *arg) {
  (void)arg;
  int fd = open("/tmp/shared.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, "written by a thread\n", 20) == 20);
  CHECK(close(fd) == 0);
  fd_from_thread = open("/tmp/opened-in-thread.txt", O_RDWR | O_CREAT, 0644);
  CHECK(fd_from_thread >= 0);
  return NULL;
}

static void *consumer(void *arg) {
  char buf[32] = {0};
  int fd = open("/tmp/shared.txt", O_RDONLY);
  CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 20 && memcmp(buf, "written by a thread\n", 20) == 0);
  CHECK(close(fd) == 0);
  /* the fd the main thread opened */
  int main_fd = (int)(long)arg;
  CHECK(pwrite(main_fd, "from consumer", 13, 0) == 13);
  /* the fd the (finished) producer opened */
  CHECK(write(fd_from_thread, "hello", 5) == 5);
  return NULL;
}

int main(void) {
  int main_fd = open("/tmp/opened-in-main.txt", O_RDWR | O_CREAT, 0644);
  CHECK(main_fd >= 0);
  pthread_t p, c;
  CHECK(pthread_create(&p, NULL, producer, NULL) == 0);
  CHECK(pthread_join(p, NULL) == 0);
  CHECK(pthread_create(&c, NULL, consumer, (void *)(long)main_fd) == 0);
  CHECK(pthread_join(c, NULL) == 0);
  char buf[32] = {0};
  CHECK(pread(main_fd, buf, sizeof buf, 0) == 13 && memcmp(buf, "from consumer", 13) == 0);
  CHECK(pread(fd_from_thread, buf, sizeof buf, 0) == 5 && memcmp(buf, "hello", 5) == 0);
  CHECK(close(fd_from_thread) == 0 && close(main_fd) == 0);
  printf("threads_share ok\n");
  return 0;
}
