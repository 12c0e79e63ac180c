// spindle-alloc guest test: out of memory. Linked with a 32 MiB maximum memory; every entry point
// returns null (errno ENOMEM) at the limit, the old block survives a failed realloc, and memory
// freed afterwards serves new requests. Prints "oom ok".
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spindle.h"

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } } while (0)

static void *blocks[1 << 16];

int main(void) {
    int n = 0;
    for (;;) {
        void *p = malloc(1000);
        if (!p) { CHECK(errno == ENOMEM, "errno after failed malloc"); break; }
        memset(p, n & 0xff, 1000);
        CHECK(n < (1 << 16) - 1, "no memory limit reached");
        blocks[n++] = p;
    }
    CHECK(n > 10000, "only %d blocks before out of memory", n);
    // Through a volatile: the compiler may elide an allocation only compared with NULL.
    void *volatile sink = malloc(10u << 20);
    CHECK(sink == NULL, "large malloc at the limit");
    sink = calloc(1, 10u << 20);
    CHECK(sink == NULL, "calloc at the limit");
    void *a = NULL;
    CHECK(posix_memalign(&a, 1 << 20, 100) == ENOMEM, "posix_memalign at the limit");
    sink = realloc(blocks[n - 1], 20u << 20);
    CHECK(sink == NULL, "realloc at the limit");
    unsigned char *last = blocks[n - 1];
    for (int i = 0; i < 1000; i++) CHECK(last[i] == ((n - 1) & 0xff), "block damaged by failed realloc");
    CHECK(spindle_alloc_validate() == 0, "invariants at the limit");
    for (int i = n / 2; i < n; i++) free(blocks[i]);
    spindle_alloc_thread_flush();
    void *big = malloc(4u << 20);
    CHECK(big, "freed memory not reused for a large block");
    memset(big, 1, 4u << 20);
    free(big);
    for (int i = n / 2; i < n; i++) { blocks[i] = malloc(1000); CHECK(blocks[i], "malloc after frees"); }
    for (int i = 0; i < n; i++) free(blocks[i]);
    CHECK(spindle_alloc_validate() == 0, "invariants after recovery");
    printf("oom ok (%d blocks at the limit)\n", n);
    return 0;
}
