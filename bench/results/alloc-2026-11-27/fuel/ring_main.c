// The ring workload's loop on the main thread (no pthread): for wasmtime's fuel (wasm operators
// executed), which counts only the main store. usage: ring_main ring|article PAIRS
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
static inline uint32_t rnd(uint32_t *s) { *s ^= *s << 13; *s ^= *s >> 17; *s ^= *s << 5; return *s; }
typedef struct { unsigned char *p; size_t n; } block;
int main(int argc, char **argv) {
  int article = !strcmp(argv[1], "article");
  long ops = atol(argv[2]);
  int ring = article ? 1024 : 256; size_t lo = article ? 1000 : 8, span = article ? 1024 : 1017;
  uint32_t s = 2463534242u + (argc > 3 ? atoi(argv[3]) : 0) * 7919, acc = 0;
  block *b = calloc(ring, sizeof(block));
  for (int i = 0; i < ring; i++) { size_t n = lo + rnd(&s) % span; b[i] = (block){malloc(n), n}; b[i].p[0] = n; b[i].p[n-1] = n; }
  for (long i = 0; i < ops; i++) {
    int k = i & (ring - 1);
    acc = acc * 31u + (b[k].p[0] | (uint32_t)b[k].p[b[k].n - 1] << 8);
    free(b[k].p);
    size_t n = lo + rnd(&s) % span;
    unsigned char *p = malloc(n); p[0] = n; p[n-1] = n;
    b[k] = (block){p, n};
  }
  for (int i = 0; i < ring; i++) free(b[i].p);
  free(b);
  printf("acc=%08x mem_kb=%lu\n", acc, (unsigned long)__builtin_wasm_memory_size(0) * 64);
  return 0;
}
