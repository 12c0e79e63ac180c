// spindle-alloc guest test: the program defines its own `malloc_usable_size` (with wasi-libc's
// dlmalloc this is a duplicate symbol). The archive must let the program's definition win and
// never call it itself: realloc, which needs a block's size, must keep every byte.
// Prints "own malloc_usable_size ok".
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spindle.h"

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } } while (0)

static int calls;

// The program's version: a wrong answer on purpose, so that any use by the allocator shows.
size_t malloc_usable_size(void *p) {
    calls++;
    return p ? 1 : 0;
}

int main(void) {
    unsigned char *p = malloc(10);
    CHECK(p, "malloc");
    for (size_t n = 10; n < (4u << 20); n = n * 3 + 1) {
        for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 13);
        unsigned char *q = realloc(p, n * 3 + 1);
        CHECK(q, "realloc to %zu", n * 3 + 1);
        for (size_t i = 0; i < n; i++) CHECK(q[i] == (unsigned char)(i * 13), "byte %zu lost at %zu", i, n);
        p = q;
    }
    free(p);
    CHECK(malloc_usable_size(p) == 1 && calls == 1, "the program's malloc_usable_size is not the one called");
    CHECK(spindle_alloc_validate() == 0, "allocator invariants");
    printf("own malloc_usable_size ok\n");
    return 0;
}
