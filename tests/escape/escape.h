/* Shared by the escape suite (the C programs of tests/escape): each program attacks the confinement of a host
 * directory the way a hostile program would, and reports what it reached.
 *
 * The runner (runtime/test/escape.test.mjs) gives every program the same host layout and runs it
 * on spindle and on wasmtime 46 side by side:
 *
 *   ROOT/outside/secret.txt   "OUTSIDE\n"  (must never be read, changed or listed by the program)
 *   ROOT/outside/dir/         (empty; must stay empty)
 *   ROOT/box/                 preopened as /box (--dir ROOT/box::/box); empty at start
 *
 * ROOT/box/sub -> ../outside is how every program reaches for the outside: a relative symlink a
 * program may create (an absolute target is refused at creation), followed only if confinement
 * fails. A program prints one line per attack, "<attack>: ok" or "<attack>: ESCAPE <what>", and a
 * last line "<program> escapes <n>"; it exits 0 only with no escape and no failed check. */
#ifndef ESCAPE_H
#define ESCAPE_H
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int escapes;

#define FAIL(...)                                                   \
  do {                                                              \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                 \
    fprintf(stderr, __VA_ARGS__);                                   \
    fprintf(stderr, " (errno %d: %s)\n", errno, strerror(errno));   \
    exit(2);                                                        \
  } while (0)
#define CHECK(c) do { if (!(c)) FAIL("CHECK(%s) failed", #c); } while (0)

/* An attack that reached the outside: counted, printed, the program goes on. */
#define ESCAPED(attack, ...)                         \
  do {                                               \
    escapes++;                                       \
    printf("%s: ESCAPE ", attack);                   \
    printf(__VA_ARGS__);                             \
    printf("\n");                                    \
  } while (0)

/* Reads up to n-1 bytes of fd (closed afterwards) as a string; "" on error. */
static inline const char *slurp_fd(int fd, char *buf, size_t n) {
  buf[0] = 0;
  if (fd < 0) return buf;
  ssize_t r = pread(fd, buf, n - 1, 0);
  buf[r > 0 ? r : 0] = 0;
  close(fd);
  return buf;
}

static inline void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  CHECK(close(fd) == 0);
}

static inline int finish(const char *program) {
  printf("%s escapes %d\n", program, escapes);
  return escapes ? 1 : 0;
}
#endif
