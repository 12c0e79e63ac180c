// spindle-alloc guest test: seeded multithreaded stress with cross-thread frees (producers hand
// pattern-filled blocks of random sizes to consumer threads through a ring; consumers check and
// free them), then thread exit and reuse (N short threads allocate, free, leave blocks for main to
// free after they exit; committed memory must stay bounded).
// Usage: threads.wasm [seed] [short_threads]   Prints "threads ok".
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spindle.h"

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } } while (0)

static uint64_t rnd(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }
static size_t rsize(uint64_t *s) {
    unsigned k = rnd(s) % 100;
    if (k < 80) return 1 + rnd(s) % 256;
    if (k < 95) return 1 + rnd(s) % 8192;
    if (k < 99) return 1 + rnd(s) % 200000;
    return 1 + rnd(s) % 1500000;
}
// The first and last 64 bytes get a pattern that depends on the tag and the byte's index.
static unsigned char pat(uint64_t tag, size_t i) { return (unsigned char)((tag >> (i % 8)) + i * 31); }
static void fill(unsigned char *p, size_t n, uint64_t tag) {
    for (size_t i = 0; i < n && i < 64; i++) p[i] = pat(tag, i);
    for (size_t i = n > 64 ? n - 64 : 0; i < n; i++) p[i] = pat(tag, i);
}
static void check(const unsigned char *p, size_t n, uint64_t tag) {
    for (size_t i = 0; i < n && i < 64; i++) CHECK(p[i] == pat(tag, i), "corruption at %zu in a %zu-byte block", i, n);
    for (size_t i = n > 64 ? n - 64 : 0; i < n; i++) CHECK(p[i] == pat(tag, i), "corruption at %zu in a %zu-byte block", i, n);
}

typedef struct { unsigned char *p; size_t n; uint64_t tag; } blk;
#define RING 256
typedef struct {
    blk q[RING]; unsigned head, tail; int done;
    pthread_mutex_t m; pthread_cond_t c;
} chan;

static void send(chan *ch, blk b) {
    pthread_mutex_lock(&ch->m);
    while (ch->tail - ch->head == RING) pthread_cond_wait(&ch->c, &ch->m);
    ch->q[ch->tail++ % RING] = b;
    pthread_cond_broadcast(&ch->c);
    pthread_mutex_unlock(&ch->m);
}
static int recv(chan *ch, blk *b) {
    pthread_mutex_lock(&ch->m);
    while (ch->tail == ch->head && !ch->done) pthread_cond_wait(&ch->c, &ch->m);
    int ok = ch->tail != ch->head;
    if (ok) *b = ch->q[ch->head++ % RING];
    pthread_cond_broadcast(&ch->c);
    pthread_mutex_unlock(&ch->m);
    return ok;
}

#define P 3
static chan chans[P];
static uint64_t seed0;

static void *producer(void *arg) {
    uintptr_t t = (uintptr_t)arg;
    uint64_t s = seed0 * 7919 + t + 1;
    blk local[200]; int nl = 0;
    for (int i = 0; i < 4000; i++) {
        size_t n = rsize(&s);
        uint64_t tag = rnd(&s);
        unsigned char *p = malloc(n);
        CHECK(p, "malloc(%zu)", n);
        fill(p, n, tag);
        blk b = {p, n, tag};
        if (i % 3 == 0) send(&chans[rnd(&s) % P], b);
        else if (nl < 200) local[nl++] = b;
        else {
            int k = rnd(&s) % 200;
            check(local[k].p, local[k].n, local[k].tag);
            free(local[k].p);
            local[k] = b;
        }
    }
    for (int k = 0; k < nl; k++) { check(local[k].p, local[k].n, local[k].tag); free(local[k].p); }
    return NULL;
}

static void *consumer(void *arg) {
    chan *ch = arg;
    blk b;
    while (recv(ch, &b)) { check(b.p, b.n, b.tag); free(b.p); }
    return NULL;
}

static blk handed[64];
static pthread_key_t key;
static _Atomic int key_dtor_calls;
static void key_dtor(void *v) { (void)v; key_dtor_calls++; }
static void *short_thread(void *arg) {
    uintptr_t t = (uintptr_t)arg;
    // POSIX: a new thread's key values are NULL. wasi-libc takes them from malloc'ed memory, which
    // the allocator may have handed out (and the program dirtied) before.
    CHECK(pthread_getspecific(key) == NULL, "thread %u starts with a stale pthread key value", (unsigned)t);
    if (t % 2) pthread_setspecific(key, (void *)(uintptr_t)(t + 1));
    uint64_t s = t * 2654435761u + 1;
    blk mine[12];
    for (int i = 0; i < 12; i++) {
        size_t n = (rnd(&s) % 10 == 0) ? rsize(&s) : 1 + rnd(&s) % 512;
        mine[i] = (blk){malloc(n), n, rnd(&s)};
        CHECK(mine[i].p, "malloc in short thread");
        fill(mine[i].p, n, mine[i].tag);
    }
    for (int i = 0; i < 10; i++) { check(mine[i].p, mine[i].n, mine[i].tag); free(mine[i].p); }
    handed[(t % 32) * 2] = mine[10];
    handed[(t % 32) * 2 + 1] = mine[11];
    return NULL;
}

int main(int argc, char **argv) {
    seed0 = argc > 1 ? strtoull(argv[1], 0, 10) : 1;
    int nshort = argc > 2 ? atoi(argv[2]) : 10000;
    pthread_t prod[P], cons[P];
    for (int i = 0; i < P; i++) {
        pthread_mutex_init(&chans[i].m, NULL);
        pthread_cond_init(&chans[i].c, NULL);
        CHECK(pthread_create(&cons[i], NULL, consumer, &chans[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < P; i++) CHECK(pthread_create(&prod[i], NULL, producer, (void *)(uintptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < P; i++) pthread_join(prod[i], NULL);
    for (int i = 0; i < P; i++) {
        pthread_mutex_lock(&chans[i].m); chans[i].done = 1;
        pthread_cond_broadcast(&chans[i].c); pthread_mutex_unlock(&chans[i].m);
    }
    for (int i = 0; i < P; i++) pthread_join(cons[i], NULL);
    CHECK(spindle_alloc_validate() == 0, "invariants after stress");

    // Thread exit and reuse: batches of 2 short threads; main frees what they left behind.
    CHECK(pthread_key_create(&key, key_dtor) == 0, "pthread_key_create");
    struct spindle_alloc_stats st;
    spindle_alloc_stats(&st);
    size_t base = st.committed, high = st.committed;
    for (int t = 0; t < nshort; t += 2) {
        pthread_t a, b;
        CHECK(pthread_create(&a, NULL, short_thread, (void *)(uintptr_t)t) == 0, "pthread_create %d", t);
        CHECK(pthread_create(&b, NULL, short_thread, (void *)(uintptr_t)(t + 1)) == 0, "pthread_create %d", t);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        for (int k = 0; k < 2; k++) {
            blk *h = &handed[((t + k) % 32) * 2];
            for (int j = 0; j < 2; j++) { check(h[j].p, h[j].n, h[j].tag); free(h[j].p); }
        }
        spindle_alloc_stats(&st);
        if (st.committed > high) high = st.committed;
    }
    CHECK(spindle_alloc_validate() == 0, "invariants after thread churn");
    CHECK(key_dtor_calls == nshort / 2, "key destructor ran %d times for %d threads that set the key", (int)key_dtor_calls, nshort / 2);
    // Heaps of exited threads are adopted by new ones: no growth per thread.
    CHECK(high - base < (16u << 20), "committed memory grew by %zu over %d threads", high - base, nshort);
    printf("threads ok (%d short threads, committed grew by %zu KiB)\n", nshort, (high - base) >> 10);
    return 0;
}
