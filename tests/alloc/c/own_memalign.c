// spindle-alloc guest test: the program defines its own `memalign` (as mimalloc-bench's shims
// do). Like libc, the archive must let the program's definition win: the link succeeds, calls of
// memalign reach the program's function, and the archive's other functions (aligned_alloc,
// posix_memalign) keep working without calling it. Prints "own memalign ok".
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spindle.h"

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } } while (0)

static int calls;

// The program's memalign: over-allocates through posix_memalign and counts its calls.
void *memalign(size_t align, size_t size) {
    void *p = NULL;
    calls++;
    return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size + 1) ? NULL : p;
}

int main(void) {
    for (size_t a = 16; a <= 65536; a *= 2) {
        unsigned char *p = memalign(a, 100);
        CHECK(p && ((uintptr_t)p % a) == 0, "own memalign(%zu)", a);
        CHECK(malloc_usable_size(p) >= 101, "usable size");
        memset(p, 7, 101);
        free(p);
        void *q = aligned_alloc(a, 3 * a);
        CHECK(q && ((uintptr_t)q % a) == 0, "aligned_alloc(%zu)", a);
        free(q);
    }
    CHECK(calls == 13, "the program's memalign ran %d times, expected 13", calls);
    void *v = valloc(5000); // the archive's valloc must not route through the program's memalign
    CHECK(v && ((uintptr_t)v % 4096) == 0, "valloc");
    free(v);
    CHECK(calls == 13, "valloc called the program's memalign");
    CHECK(spindle_alloc_validate() == 0, "allocator invariants");
    printf("own memalign ok\n");
    return 0;
}
