// malloc_bench.c's ring workload with per-thread timestamps (ms from t0, CLOCK_MONOTONIC):
// create = before pthread_create, start = first instruction of the thread, filled = ring filled,
// end = after the last free. One TRACE line per thread, then RESULT as malloc_bench prints it.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now_ms(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6; }
static inline uint32_t rnd(uint32_t *s) { *s ^= *s << 13; *s ^= *s >> 17; *s ^= *s << 5; return *s; }
static inline void touch(unsigned char *p, size_t n) { p[0] = (unsigned char)n; p[n - 1] = (unsigned char)n; }
static inline void fold(uint32_t *acc, const unsigned char *p, size_t n) { *acc = *acc * 31u + (p[0] | (uint32_t)p[n - 1] << 8); }
typedef struct { unsigned char *p; size_t n; } block;
typedef struct { long ops; int id; int ring; size_t lo, span; uint32_t acc; double create, start, filled, q[4], end; } ring_arg;
static double t0;
static void *ring_worker(void *a) {
    ring_arg *r = a;
    r->start = now_ms() - t0;
    uint32_t s = 2463534242u + r->id * 7919, acc = 0;
    int ring = r->ring;
    block *blocks = calloc(ring, sizeof(block));
    for (int i = 0; i < ring; i++) { size_t n = r->lo + rnd(&s) % r->span; blocks[i] = (block){malloc(n), n}; touch(blocks[i].p, n); }
    r->filled = now_ms() - t0;
    long quarter = r->ops / 4;
    for (long i = 0; i < r->ops; i++) {
        int k = i & (ring - 1);
        fold(&acc, blocks[k].p, blocks[k].n);
        free(blocks[k].p);
        size_t n = r->lo + rnd(&s) % r->span;
        unsigned char *p = malloc(n);
        touch(p, n);
        blocks[k] = (block){p, n};
        if (quarter && (i + 1) % quarter == 0 && (i + 1) / quarter <= 4) r->q[(i + 1) / quarter - 1] = now_ms() - t0;
    }
    for (int i = 0; i < ring; i++) { fold(&acc, blocks[i].p, blocks[i].n); free(blocks[i].p); }
    free(blocks);
    r->acc = acc;
    r->end = now_ms() - t0;
    return NULL;
}
int main(int argc, char **argv) {
    int t = argc > 1 ? atoi(argv[1]) : 4;
    long total = argc > 2 ? atol(argv[2]) : 1000000;
    pthread_t th[64]; ring_arg args[64]; uint32_t sum = 0;
    t0 = now_ms();
    for (int i = 0; i < t; i++) {
        args[i] = (ring_arg){total / t, i, 256, 8, 1024, 0};
        args[i].create = now_ms() - t0;
        pthread_create(&th[i], NULL, ring_worker, &args[i]);
    }
    for (int i = 0; i < t; i++) { pthread_join(th[i], NULL); sum += args[i].acc; }
    double ms = now_ms() - t0;
    for (int i = 0; i < t; i++)
        printf("TRACE id=%d create=%.2f start=%.2f filled=%.2f q1=%.2f q2=%.2f q3=%.2f end=%.2f\n", i, args[i].create, args[i].start, args[i].filled, args[i].q[0], args[i].q[1], args[i].q[2], args[i].end);
    printf("T0 %.6f\n", t0);
    printf("RESULT workload=ring threads=%d ops=%ld ms=%.1f checksum=%08x\n", t, total, ms, sum);
    return 0;
}
