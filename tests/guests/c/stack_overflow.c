// Unbounded recursion in a thread: the engine's call stack runs out (a trap on wasmtime, "call
// stack exhausted"); the program ends with 134 and a message naming the thread.
#include <pthread.h>
#include <stdio.h>

// Called through a volatile pointer so the compiler can neither inline the recursion nor turn it
// into a loop; no local has its address taken, so only the engine's stack grows (not the shadow
// stack in linear memory, whose overflow would silently corrupt memory instead of trapping).
static unsigned (*volatile next)(unsigned);

static unsigned recurse(unsigned n) { return next(n + 1) + n; }

static void *work(void *arg) {
  (void)arg;
  printf("recursing\n");
  fflush(stdout);
  next = recurse;
  printf("%u\n", recurse(0));
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, work, NULL);
  pthread_join(t, NULL);
  printf("unreachable\n");
  return 0;
}
