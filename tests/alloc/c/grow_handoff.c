// spindle-alloc guest test: memory one thread grew, handed to another THROUGH THE ALLOCATOR.
// On V8 a thread's view of the memory's size is refreshed lazily after another thread grows it,
// and its bulk memory.fill/memory.copy past that view trap. spindle-alloc must never hand a thread
// memory it cannot touch: before it gives a thread a span above what that thread has seen, the
// thread refreshes its view (memory.grow(0)).
//
// Each round: the producer (main thread) makes the memory grow and gives the new memory back to
// the allocator; the consumer then allocates it and fills and copies it with memset/memcpy (bulk
// instructions). Two shapes: a 1 MiB block (a span of its own from the shared pool), and many
// 3000-byte blocks (slabs that the producer's flush returned to the pool). The consumer keeps
// what it got, so every round needs fresh memory. Both sides spin: a futex wait would give V8 a
// chance to refresh the consumer's view and hide the problem.
//
// What it checks: the bytes, and that the consumer refreshed its view in every round (the
// allocator's statistics count the refreshes: at least 2 per round, one per shape). Whether V8
// would have trapped without the refresh depends on timing: V8 also refreshes a thread's view when
// the thread enters a function after the grow (measured: one non-inlined call between receiving a
// block and memset removed grow_consumer's trap), and the call into malloc is such an entry. The
// window the refresh closes is the other thread growing WHILE this one is inside malloc.
//
//   grow_handoff [ROUNDS]     prints: grow_handoff rounds=N checksum=HEX view_refreshes=K every_round=yes|no
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spindle.h"

#define BIG (1 << 20)
#define SMALL 3000
#define NSMALL 20

static _Atomic unsigned step; // 4r, 4r+2: the producer's turns in round r; 4r+1, 4r+3: the consumer's
#define MAX_ROUNDS 64
static unsigned rounds = 32;
// Everything the consumer got, kept to the end (then read back and freed): the memory must grow
// again each round, and the compiler may not drop an allocation nothing reads.
static unsigned char *kept[MAX_ROUNDS * (NSMALL + 1)];
static unsigned nkept;
static uint64_t checksum = 0xcbf29ce484222325u;

static void mix(uint64_t v) { checksum = (checksum ^ v) * 0x100000001b3u; }
static void wait_for(unsigned s) { while (atomic_load(&step) != s) {} }

static void fail(const char *what, unsigned r) {
    printf("round %u: %s\n", r, what);
    exit(1);
}

// Fills `n` bytes with memset, copies the first half over the second with memcpy, checks both.
static void touch(unsigned char *p, size_t n, unsigned r) {
    memset(p, (int)(r & 0xff), n / 2);            // memory.fill
    memcpy(p + n / 2, p, n / 2);                  // memory.copy
    if (p[0] != (unsigned char)r || p[n - 1 - (n & 1)] != (unsigned char)r) fail("bytes wrong after memset/memcpy", r);
    mix(p[n / 2] + n);
}

static void *consume(void *arg) {
    (void)arg;
    for (unsigned r = 0; r < rounds; r++) {
        wait_for(4 * r + 1);
        unsigned char *big = malloc(BIG);
        if (!big) fail("malloc of the big block failed", r);
        touch(big, BIG, r);
        kept[nkept++] = big;
        atomic_store(&step, 4 * r + 2);
        wait_for(4 * r + 3);
        for (int i = 0; i < NSMALL; i++) {
            unsigned char *s = malloc(SMALL);
            if (!s) fail("malloc of a small block failed", r);
            touch(s, SMALL, r);
            kept[nkept++] = s;
        }
        atomic_store(&step, 4 * r + 4); // every block is kept: the next round grows again
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) rounds = (unsigned)strtoul(argv[1], NULL, 10);
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    pthread_t consumer;
    if (pthread_create(&consumer, NULL, consume, NULL)) fail("pthread_create failed", 0);
    static unsigned char *small[NSMALL];
    for (unsigned r = 0; r < rounds; r++) {
        wait_for(4 * r);
        free(malloc(BIG)); // the memory grows for it; the span goes back to the shared pool
        atomic_store(&step, 4 * r + 1);
        wait_for(4 * r + 2);
        for (int i = 0; i < NSMALL; i++) small[i] = malloc(SMALL);
        for (int i = 0; i < NSMALL; i++) free(small[i]);
        spindle_alloc_thread_flush(); // the producer's empty slabs go back to the pool too
        atomic_store(&step, 4 * r + 3);
    }
    pthread_join(consumer, NULL);
    for (unsigned i = 0; i < nkept; i++) {
        mix(kept[i][1]);
        free(kept[i]);
    }
    struct spindle_alloc_stats st;
    spindle_alloc_stats(&st);
    printf("grow_handoff rounds=%u checksum=%016llx view_refreshes=%zu every_round=%s\n", rounds,
           (unsigned long long)checksum, st.view_refreshes, st.view_refreshes >= 2 * rounds ? "yes" : "no");
    return 0;
}
