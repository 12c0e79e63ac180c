// Two threads spin forever through a cycle of tail calls (wasm `return_call`: no `loop`, no
// plain call, a stack that does not grow) while main ends the program: it returns 0, or with an
// argument N calls exit(N). The program must end with main's status at once. On Node 24 and 26
// worker.terminate() cannot end such a cycle by itself (docs/known-issues/v8-tail-call-terminate.md):
// a pool thread's rewrite (runtime/src/thread-guards.ts) counts its tail calls and makes a real
// call every so many, where V8 can stop the thread.
//
// Built with -mtail-call (the line below; tests/guests/build.sh reads it).
// wasi-cc flags: -mtail-call
//
//   forever_tail [N]   prints: 2 threads spinning through tail calls
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int started, never;

// noinline keeps them two functions (inlined into one, the self tail call would become a loop);
// musttail makes the compiler emit return_call or fail the build.
__attribute__((noinline)) static long pong(long n);
__attribute__((noinline)) static long ping(long n) {
  if (atomic_load_explicit(&never, memory_order_relaxed)) return n;
  __attribute__((musttail)) return pong(n + 1);
}
__attribute__((noinline)) static long pong(long n) { __attribute__((musttail)) return ping(n); }

static void *spin(void *arg) {
  atomic_fetch_add(&started, 1);
  return (void *)ping((long)arg);
}

int main(int argc, char **argv) {
  pthread_t t;
  pthread_create(&t, NULL, spin, NULL);
  pthread_create(&t, NULL, spin, NULL);
  while (atomic_load(&started) < 2) usleep(1000);
  usleep(50000); // both well inside the cycle (and tiered up)
  printf("2 threads spinning through tail calls\n");
  fflush(stdout);
  if (argc > 1) exit(atoi(argv[1]));
  return 0;
}
