// Producer/consumer of fresh heap memory (issue 15, item 3): the main thread mallocs 256 KiB
// blocks (the heap grows: the allocator calls memory.grow), a second thread memsets and memcpys
// each block (memory.fill, memory.copy) and checks it with plain loads and stores. On V8, the
// consumer's view of the memory size is refreshed lazily, so without a refresh its bulk
// operations trapped ("memory access out of bounds") on every run (docs/known-issues). It also
// has the host write into each fresh block (getentropy -> random_get), which needs the host's
// JS view of the memory to reach it (Chrome 149+ refreshes that view lazily too).
//
// Built twice by tests/guests/build.sh: grow_consumer.wasm (wasi-libc's dlmalloc) and
// grow_consumer_spindle_alloc.wasm (linked with libspindle-alloc.a).
//
//   grow_consumer [BLOCKS]     prints: grow_consumer blocks=N bytes=B checksum=HEX
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (256 * 1024)
#define HALF (BLOCK / 2)
#define RING 8

// A single-producer single-consumer ring of blocks. Both sides spin (no futex wait): a thread
// that waits in memory.atomic.wait gives V8 a chance to refresh its view of the memory size,
// which would hide the bug this program exists to show.
static unsigned char *ring[RING];
static _Atomic unsigned head, tail; // head: next to take (consumer); tail: next to fill (producer)

static void put(unsigned char *block) {
  unsigned t = atomic_load(&tail);
  while (t - atomic_load(&head) == RING) {}
  ring[t % RING] = block;
  atomic_store(&tail, t + 1);
}

static unsigned char *take(void) {
  unsigned h = atomic_load(&head);
  while (atomic_load(&tail) == h) {}
  unsigned char *block = ring[h % RING];
  atomic_store(&head, h + 1);
  return block;
}

static uint64_t checksum = 0xcbf29ce484222325u;

static void mix(uint64_t v) { checksum = (checksum ^ v) * 0x100000001b3u; }

// Fills the block from its first to its last byte through the bulk operations, then checks it.
static void *consume(void *arg) {
  unsigned n = (unsigned)(uintptr_t)arg;
  for (unsigned i = 0; i < n; i++) {
    unsigned char *b = take();
    if (!b) break;
    // A WASI call that writes into the fresh block: the host's JS view of the memory must reach it.
    if (getentropy(b + BLOCK - 16, 16) != 0) {
      printf("block %u: getentropy failed\n", i);
      exit(1);
    }
    memset(b, (int)(i & 0xff), HALF);              // memory.fill
    b[HALF - 1] = (unsigned char)(i * 7);           // a plain store
    memcpy(b + HALF, b, HALF);                      // memory.copy, into fresh memory
    uint64_t sum = 0;
    for (unsigned k = 0; k < BLOCK; k += 4096) sum += b[k]; // plain loads, one per page
    sum += b[BLOCK - 1];
    if (b[BLOCK - 1] != (unsigned char)(i * 7) || b[HALF] != (unsigned char)(i & 0xff)) {
      printf("block %u: wrong bytes after memset/memcpy\n", i);
      exit(1);
    }
    mix(sum);
  }
  return NULL;
}

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 256;
  pthread_t consumer;
  if (pthread_create(&consumer, NULL, consume, (void *)(uintptr_t)n)) {
    printf("pthread_create failed\n");
    return 1;
  }
  unsigned char **blocks = calloc(n, sizeof *blocks);
  for (unsigned i = 0; i < n; i++) {
    // Kept until the end, so every block is memory the heap had to grow for.
    blocks[i] = malloc(BLOCK);
    if (!blocks[i]) {
      printf("malloc failed at block %u\n", i);
      return 1;
    }
    put(blocks[i]);
  }
  pthread_join(consumer, NULL);
  for (unsigned i = 0; i < n; i++) free(blocks[i]);
  free(blocks);
  printf("grow_consumer blocks=%u bytes=%llu checksum=%016llx\n", n, (unsigned long long)n * BLOCK,
         (unsigned long long)checksum);
  return 0;
}
