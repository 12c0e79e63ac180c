#!/usr/bin/env node
/**
 * Writes a large C program to stdout: N distinct functions, each called once in order (the shape
 * of a compiler pass over a big input: many functions, each run a little), then a checksum.
 * Built by bench/hosts/large.mjs into a multi-megabyte module for the large-module benchmark.
 *
 *   node gen-large.mjs N > large.c        large [--version]   prints: large checksum HEX
 * With -DTHREADED the work runs on one spawned thread (the module imports thread-spawn).
 */
const N = Number(process.argv[2] ?? 20000);
const hex = (n) => (n & 0xffffffffffffffffn).toString(16);
const out = [`#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
typedef uint64_t (*fn)(uint64_t, unsigned char *);
`];
for (let i = 0; i < N; i++) {
  const a = BigInt(i) * 0x9e3779b97f4a7c15n + 12345n;
  const r = i % 13 + 1;
  out.push(`__attribute__((noinline)) static uint64_t f${i}(uint64_t x, unsigned char *buf) {
  for (int i = 0; i < ${3 + (i % 5)}; i++) x = (x ^ (x >> ${1 + (i % 31)})) * 0x${hex(a)}ull + ${i};
  switch ((x >> 3) & 7) {
  case 0: x += ${(i * 7) % 1000}; break;
  case 1: x ^= 0x${hex(a >> 3n)}ull; break;
  case 2: x = (x << ${r}) | (x >> ${64 - r}); break;
  case 3: x -= buf[${i % 64}]; break;
  case 4: x *= ${(i | 1) % 99991}; break;
  case 5: x += x >> ${(i % 17) + 3}; break;
  default: memcpy(buf + (x & 31), buf + 32 + ${i % 32}, (size_t)(x & 15) + ${i % 8}); x += buf[x & 63]; break;
  }
  return x;
}
`);
}
out.push(`static const fn table[${N}] = {${Array.from({ length: N }, (_, i) => `f${i}`).join(',')}};
static uint64_t run_all(void) {
  unsigned char buf[128];
  memset(buf, 7, sizeof buf);
  uint64_t x = 1;
  for (int i = 0; i < ${N}; i++) x = table[i](x, buf);
  return x;
}
static void *thread_main(void *p) { *(uint64_t *)p = run_all(); return 0; }
int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--version")) { printf("large %d functions\\n", ${N}); return 0; }
  uint64_t x;
#ifdef THREADED
  pthread_t t;
  if (pthread_create(&t, 0, thread_main, &x)) return 1;
  pthread_join(t, 0);
#else
  thread_main(&x);
#endif
  printf("large checksum %016llx\\n", (unsigned long long)x);
  return 0;
}
`);
process.stdout.write(out.join(''));
