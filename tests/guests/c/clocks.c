// clock_gettime (REALTIME, MONOTONIC), clock_getres, nanosleep, usleep, the cputime clocks; all checks print true/false.
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <wasi/api.h>

static long long ns(struct timespec t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }

int main(void) {
  struct timespec a, b, r;
  clock_gettime(CLOCK_REALTIME, &a);
  printf("realtime after 2020: %s\n", a.tv_sec > 1577836800 ? "true" : "false");
  printf("monotonic res ok: %s\n",
         clock_getres(CLOCK_MONOTONIC, &r) == 0 && ns(r) > 0 && ns(r) <= 1000000 ? "true" : "false");
  int mono = 1;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < 1000; i++) {
    clock_gettime(CLOCK_MONOTONIC, &b);
    mono &= ns(b) >= ns(a);
    a = b;
  }
  printf("monotonic: %s\n", mono ? "true" : "false");
  struct timespec req = {0, 30 * 1000000};
  clock_gettime(CLOCK_MONOTONIC, &a);
  int rc = nanosleep(&req, NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("nanosleep 30ms rc %d slept enough: %s\n", rc, ns(b) - ns(a) >= 30000000 ? "true" : "false");
  clock_gettime(CLOCK_MONOTONIC, &a);
  usleep(10000);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("usleep 10ms slept enough: %s\n", ns(b) - ns(a) >= 10000000 ? "true" : "false");
  // wasi-libc hides the cputime clocks behind an emulation flag; ask WASI directly.
  __wasi_timestamp_t cpu;
  __wasi_errno_t e = __wasi_clock_time_get(__WASI_CLOCKID_PROCESS_CPUTIME_ID, 1, &cpu);
  printf("process cputime: %s (errno %d)\n", e == 0 ? "ok" : "error", e);
  e = __wasi_clock_time_get(__WASI_CLOCKID_THREAD_CPUTIME_ID, 1, &cpu);
  printf("thread cputime: %s (errno %d)\n", e == 0 ? "ok" : "error", e);
  return 0;
}
