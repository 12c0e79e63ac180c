/* Shared by the in-program filesystem guests: CHECK(cond) prints the failed condition with
 * errno to stderr and exits 1; a guest that passes prints "<name> ok" and exits 0. */
#ifndef FS_GUEST_CHECK_H
#define FS_GUEST_CHECK_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                                              \
  do {                                                                                        \
    if (!(c)) {                                                                               \
      fprintf(stderr, "%s:%d: CHECK(%s) failed (errno %d: %s)\n", __FILE__, __LINE__, #c, errno, \
              strerror(errno));                                                               \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

/* Expects a -1 return with errno == e. */
#define CHECK_ERR(call, e) do { errno = 0; CHECK((call) == -1 && errno == (e)); } while (0)

#define SPINDLE_FD(fd) ((fd) >= 0x40000000)
#endif
