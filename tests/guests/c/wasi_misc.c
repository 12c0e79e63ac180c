// Corners of WASI preview1 that are not files, called directly through <wasi/api.h>; every line
// prints a result that does not depend on timing:
//  - random_get fills a buffer (two draws differ), sched_yield succeeds;
//  - out-of-bounds pointers give EFAULT (21), never a crash of the host;
//  - poll_oneoff: the earlier of two relative clock timeouts fires first; fd_read readiness on
//    stdin (run with non-empty stdin, or at EOF) beats a 5 s timeout;
//  - sock_* on stdout/unknown fds answer with an errno.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wasi/api.h>

static void poll_clocks(void) {
  __wasi_subscription_t subs[2];
  memset(subs, 0, sizeof subs);
  subs[0].userdata = 111;
  subs[0].u.tag = __WASI_EVENTTYPE_CLOCK;
  subs[0].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  subs[0].u.u.clock.timeout = 2000 * 1000000ull;  // 2 s: far enough that it never fires with the 5 ms one
  subs[1].userdata = 222;
  subs[1].u.tag = __WASI_EVENTTYPE_CLOCK;
  subs[1].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  subs[1].u.u.clock.timeout = 5 * 1000000ull;  // 5 ms
  __wasi_event_t ev[2];
  __wasi_size_t n = 0;
  __wasi_errno_t e = __wasi_poll_oneoff(subs, ev, 2, &n);
  printf("poll two clocks: errno %d, events %u, first userdata %llu, error %d\n", e, (unsigned)n,
         n ? (unsigned long long)ev[0].userdata : 0ull, n ? ev[0].error : -1);
}

static void poll_stdin(void) {
  __wasi_subscription_t subs[2];
  memset(subs, 0, sizeof subs);
  subs[0].userdata = 1;
  subs[0].u.tag = __WASI_EVENTTYPE_FD_READ;
  subs[0].u.u.fd_read.file_descriptor = 0;
  subs[1].userdata = 2;
  subs[1].u.tag = __WASI_EVENTTYPE_CLOCK;
  subs[1].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  subs[1].u.u.clock.timeout = 5ull * 1000000000ull;  // 5 s: must not be the one that fires
  __wasi_event_t ev[2];
  __wasi_size_t n = 0;
  __wasi_errno_t e = __wasi_poll_oneoff(subs, ev, 2, &n);
  int stdin_ready = 0;
  for (__wasi_size_t i = 0; i < n; i++) {
    stdin_ready |= ev[i].userdata == 1 && ev[i].type == __WASI_EVENTTYPE_FD_READ && ev[i].error == 0;
  }
  printf("poll stdin: errno %d, stdin readable: %s\n", e, stdin_ready ? "true" : "false");
  for (__wasi_size_t i = 0; i < n; i++) {
    fprintf(stderr, "event %u: userdata %llu type %d error %d nbytes %llu\n", (unsigned)i,
            (unsigned long long)ev[i].userdata, ev[i].type, ev[i].error, (unsigned long long)ev[i].fd_readwrite.nbytes);
  }
}

static void out_of_bounds(void) {
  // An iovec whose buffer lies past the end of memory (memory max is 1 GiB, so 0xFFFFFF00 is out).
  __wasi_ciovec_t bad = {(const uint8_t *)(uintptr_t)0xFFFFFF00u, 16};
  __wasi_size_t written = 12345;
  printf("fd_write, buffer out of bounds: errno %d\n", __wasi_fd_write(1, &bad, 1, &written));
  printf("fd_write, iovec array out of bounds: errno %d\n",
         __wasi_fd_write(1, (const __wasi_ciovec_t *)(uintptr_t)0xFFFFFFF0u, 1, &written));
  printf("random_get out of bounds: errno %d\n", __wasi_random_get((uint8_t *)(uintptr_t)0xFFFFFFF0u, 64));
  __wasi_ciovec_t ok = {(const uint8_t *)"", 0};
  printf("fd_write, result pointer out of bounds: errno %d\n",
         __wasi_fd_write(1, &ok, 1, (__wasi_size_t *)(uintptr_t)0xFFFFFFFEu));
}

int main(int argc, char **argv) {
  // "no-oob" skips the EFAULT checks (wasmtime fails the program on those instead).
  int oob = !(argc > 1 && strcmp(argv[1], "no-oob") == 0);
  uint8_t a[32] = {0}, b[32] = {0};
  __wasi_errno_t ea = __wasi_random_get(a, sizeof a), eb = __wasi_random_get(b, sizeof b);
  printf("random_get: errno %d %d, draws differ: %s\n", ea, eb, memcmp(a, b, sizeof a) ? "true" : "false");
  printf("sched_yield: errno %d\n", __wasi_sched_yield());

  if (oob) out_of_bounds();

  __wasi_fd_t conn;
  printf("sock_accept on fd 99: errno %d\n", __wasi_sock_accept(99, 0, &conn));
  printf("sock_shutdown on stdout: errno %d\n", __wasi_sock_shutdown(1, __WASI_SDFLAGS_WR));

  poll_clocks();
  poll_stdin();
  fflush(stdout);
  return 0;
}
