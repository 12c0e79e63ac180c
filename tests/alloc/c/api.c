// spindle-alloc guest test: malloc-family semantics on wasm (sizes 0..16 MiB, every power-of-two
// alignment to 64 KiB and beyond, realloc shrink/grow/same, calloc zeroing of fresh and reused
// memory, usable size), then the allocator's own consistency check. Prints "api ok" on success.
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spindle.h"

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } } while (0)

static void fill(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(seed + i * 7);
}
static void check(const unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++)
        CHECK(p[i] == (unsigned char)(seed + i * 7), "pattern broken at %zu of %zu", i, n);
}

int main(void) {
    // Sizes 0..4096 one by one, then geometric to 16 MiB.
    for (size_t n = 0; n <= 4096; n++) {
        unsigned char *p = malloc(n);
        CHECK(p && ((uintptr_t)p & 15) == 0, "malloc(%zu)", n);
        CHECK(malloc_usable_size(p) >= n, "usable size of %zu", n);
        fill(p, n, (unsigned)n);
        check(p, n, (unsigned)n);
        free(p);
    }
    for (size_t n = 4096; n <= (16u << 20); n = n * 5 / 4) {
        unsigned char *p = malloc(n);
        CHECK(p, "malloc(%zu)", n);
        CHECK(malloc_usable_size(p) >= n, "usable size of %zu", n);
        fill(p, 256, 1); fill(p + n - 256, 256, 2);
        check(p, 256, 1); check(p + n - 256, 256, 2);
        free(p);
    }
    // Every power-of-two alignment up to 256 KiB, through all three aligned entry points.
    for (size_t a = sizeof(void *); a <= (256u << 10); a *= 2) {
        size_t sizes[] = {1, a / 2, a, a + 1, 3 * a + 5, 100000, 700000};
        for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            void *p = NULL;
            CHECK(posix_memalign(&p, a, sizes[k]) == 0 && ((uintptr_t)p % a) == 0, "posix_memalign(%zu,%zu)", a, sizes[k]);
            void *q = aligned_alloc(a, sizes[k]);
            CHECK(q && ((uintptr_t)q % a) == 0, "aligned_alloc(%zu,%zu)", a, sizes[k]);
            void *r = memalign(a, sizes[k]);
            CHECK(r && ((uintptr_t)r % a) == 0, "memalign(%zu,%zu)", a, sizes[k]);
            memset(p, 1, sizes[k]); memset(q, 2, sizes[k]); memset(r, 3, sizes[k]);
            free(p); free(q); free(r);
        }
    }
    void *bad = NULL;
    CHECK(posix_memalign(&bad, 24, 8) == EINVAL, "posix_memalign accepted alignment 24");
    // realloc: same, grow, shrink, across slab and large sizes.
    size_t starts[] = {1, 24, 100, 1000, 5000, 70000, 600000, 3u << 20};
    for (unsigned k = 0; k < sizeof starts / sizeof *starts; k++) {
        size_t n = starts[k];
        unsigned char *p = malloc(n);
        fill(p, n, 5);
        unsigned char *same = realloc(p, n);
        CHECK(same == p, "realloc(%zu -> same) moved", n);
        unsigned char *g = realloc(same, n * 3 + 17);
        CHECK(g, "realloc grow");
        check(g, n, 5);
        unsigned char *s = realloc(g, n / 2 + 1);
        CHECK(s, "realloc shrink");
        check(s, n / 2 + 1, 5);
        free(s);
    }
    volatile size_t zero = 0;
    void *r0 = malloc(10);
    CHECK(r0, "malloc(10) failed: errno %d", errno);
    void *volatile q0 = realloc(r0, zero);
    CHECK(q0 == NULL, "realloc(%p, 0) returned %p", r0, (void *)q0);
    // calloc: fresh and reused (dirty) memory both come back zeroed.
    size_t csizes[] = {1, 16, 100, 4000, 70000, 600000, 5u << 20};
    for (unsigned k = 0; k < sizeof csizes / sizeof *csizes; k++) {
        size_t n = csizes[k];
        void *d[8];
        for (int i = 0; i < 8; i++) { d[i] = malloc(n); memset(d[i], 0xAB, n); }
        for (int i = 0; i < 8; i++) free(d[i]);
        for (int i = 0; i < 8; i++) {
            unsigned char *z = calloc(1, n);
            CHECK(z, "calloc(%zu)", n);
            for (size_t j = 0; j < n; j++) CHECK(z[j] == 0, "calloc(%zu) dirty at %zu", n, j);
            memset(z, 0xCD, n);
            free(z);
        }
    }
    volatile size_t huge = SIZE_MAX / 2;
    // Results go through a volatile: the compiler may otherwise elide an allocation whose result is
    // only compared with NULL, and assume it succeeded.
    void *volatile sink = calloc(huge, 4);
    CHECK(sink == NULL, "calloc overflow");
    sink = malloc(huge * 3 / 2);
    CHECK(sink == NULL && errno == ENOMEM, "malloc beyond memory");
    struct spindle_alloc_stats st;
    spindle_alloc_stats(&st);
    CHECK(st.committed > 0 && st.peak_committed >= st.committed, "stats");
    spindle_alloc_thread_flush();
    CHECK(spindle_alloc_validate() == 0, "allocator invariants");
    printf("api ok\n");
    return 0;
}
