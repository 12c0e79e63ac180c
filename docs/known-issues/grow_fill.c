// Reproducer for "memory.fill after another thread's memory.grow" (README, Known issues).
// Thread A grows the shared memory by one page and hands the new page to thread B, which fills
// it (memset = memory.fill). On Node 20 (V8 11.3) B sometimes traps with "memory access out of
// bounds" although the page exists; on wasmtime 46 it never does (3,000 hand-offs per run).
// Build: tools/wasi-cc -O2 -pthread docs/known-issues/grow_fill.c \
//          -Wl,--max-memory=268435456,--export=malloc,--export=free -o grow_fill.wasm
// Run:   node runtime/dist/cli.js run grow_fill.wasm      (prints "ok", or traps)
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Atomic(char *) slot;  // a freshly grown page, handed from main to the consumer
static atomic_int done;       // pages the consumer has filled; negative: stop

static void *consumer(void *a) {
  (void)a;
  for (;;) {
    char *p = atomic_exchange(&slot, NULL);
    if (p) {
      memset(p, 1, 65536);
      atomic_fetch_add(&done, 1);
    } else if (atomic_load(&done) < 0) {
      break;
    }
  }
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, consumer, NULL);
  for (int i = 0; i < 3000; i++) {
    int before = atomic_load(&done);
    int pages = __builtin_wasm_memory_grow(0, 1);
    if (pages < 0) {
      printf("grow failed at %d\n", i);
      break;
    }
    atomic_store(&slot, (char *)((long)pages * 65536));
    while (atomic_load(&done) == before) {}
  }
  atomic_store(&done, -1000000);
  pthread_join(t, NULL);
  printf("ok\n");
  return 0;
}
