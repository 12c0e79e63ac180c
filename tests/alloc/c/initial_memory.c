// spindle-alloc guest test: the free end of the module's initial memory (from __heap_base to
// __heap_end, both defined by wasm-ld) is used before the memory grows, as wasi-libc's dlmalloc
// does: the memory has not grown when main starts (wasi-libc's start-up allocations fit there),
// small blocks come from that range until it is used up, and calloc'd blocks there read zero,
// fresh or reused. Prints "initial_memory ok (N KiB before the first growth)".
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } } while (0)

extern unsigned char __heap_base, __heap_end;

static size_t memory_bytes(void) { return __builtin_wasm_memory_size(0) * 65536; }

static int all_zero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) if (p[i]) return 0;
    return 1;
}

int main(void) {
    uintptr_t base = (uintptr_t)&__heap_base, end = (uintptr_t)&__heap_end;
    size_t initial = memory_bytes();
    CHECK(initial == end, "the memory grew before main: %zu bytes, the initial memory ends at %zu", initial, (size_t)end);
    enum { N = 1000, MAX = 4096 };
    static unsigned char *blocks[MAX];
    size_t kept = 0;
    // 1000-byte blocks until the memory grows: every one before that lies in the free end.
    while (kept < MAX) {
        unsigned char *p = calloc(1, N);
        CHECK(p, "calloc(1, %d)", N);
        if (memory_bytes() != initial) { free(p); break; }
        CHECK((uintptr_t)p >= base && (uintptr_t)p + N <= end, "block %p outside the free end [%#zx, %#zx) before the memory grew", (void *)p, (size_t)base, (size_t)end);
        CHECK(all_zero(p, N), "fresh calloc'd block %zu not zero", kept);
        memset(p, 0xa5, N);
        blocks[kept++] = p;
    }
    // Metadata (16 KiB) and the start-up allocations come from the same range.
    CHECK(kept * N >= (end - base) / 2, "only %zu bytes of blocks fit in a free end of %zu bytes", kept * N, (size_t)(end - base));
    for (size_t i = 0; i < kept; i++) free(blocks[i]);
    for (size_t i = 0; i < kept; i++) {
        unsigned char *p = calloc(1, N);
        CHECK(p && all_zero(p, N), "reused calloc'd block %zu not zero", i);
        blocks[i] = p;
    }
    for (size_t i = 0; i < kept; i++) free(blocks[i]);
    printf("initial_memory ok (%zu KiB before the first growth)\n", kept * N / 1024);
    return 0;
}
