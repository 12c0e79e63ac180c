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

#ifdef FS_GUEST_PLAIN
/* Built WITHOUT the in-program FS (build.sh's <name>_plain.wasm): files are the runtime's fds,
 * numbered from 3, and a path escaping its directory is wasmtime's EPERM (host directories) or
 * spindle-fs's ENOTCAPABLE (memory mounts). */
#define FS_GUEST_FIRST_FD 3
#define SPINDLE_FD(fd) ((fd) >= FS_GUEST_FIRST_FD)
#define IS_ESCAPE_ERRNO(e) ((e) == ENOTCAPABLE || (e) == EPERM)
#define IS_WASI_ESCAPE(e) ((e) == __WASI_ERRNO_NOTCAPABLE || (e) == __WASI_ERRNO_PERM)
#else
#define FS_GUEST_FIRST_FD 0x40000000
#define SPINDLE_FD(fd) ((fd) >= FS_GUEST_FIRST_FD)
#define IS_ESCAPE_ERRNO(e) ((e) == ENOTCAPABLE)
#define IS_WASI_ESCAPE(e) ((e) == __WASI_ERRNO_NOTCAPABLE)
#endif
/* Expects a -1 return with errno saying the path led outside its directory. */
#define CHECK_ESCAPE(call) do { errno = 0; CHECK((call) == -1 && IS_ESCAPE_ERRNO(errno)); } while (0)
#endif
