// spindle-alloc benchmark workloads, in C, for every malloc under test (wasi-libc's dlmalloc,
// spindle-alloc's archive, native glibc/mimalloc). One workload per run:
//
//   ring    (a) T threads share TOTAL malloc/free pairs; each keeps a ring of 256 live blocks of
//               pseudo-random sizes 8..1024 and touches every block it allocates.
//   xfree   (b) one thread allocates (16..512 bytes), another frees, through a lock-free ring.
//   larson  (c) server churn: T chains of threads; each thread replaces random slots of a 1,000-block
//               array (16..1024 bytes) for a while, then hands the array to a new thread and exits.
//   article (d) TOTAL pairs split across T threads, each with a ring of 1,024 blocks of 1000..2023 B.
//   threads (e) T threads that each hold TOTAL blocks of 16..1024 bytes at the same moment (a
//               barrier), then free them: what every thread of a program costs in memory.
//
// Usage: malloc_bench WORKLOAD THREADS TOTAL
// Prints one line: RESULT workload=.. threads=.. ops=.. ms=.. mem_kb=.. checksum=XXXXXXXX
// ms is the workload's wall time (threads included); mem_kb is the linear memory size at the end
// on wasm (memory only grows, so this is the peak) or the peak RSS natively.
// checksum: every block's first and last bytes are read back just before it is freed and folded
// into a per-thread (per-chain for larson, per-consumer for xfree) sum, `acc = acc*31 + word`;
// the sums are added. The block sizes are seeded, so the value depends only on the workload and T:
// the same for every allocator, host and for bench/alloc/rust. Corrupted blocks change it.
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <malloc.h>
struct spindle_alloc_stats { size_t in_use, committed, peak_committed, metadata, slabs, spare_slabs, large, free, heaps, view_refreshes; };
extern void spindle_alloc_stats(struct spindle_alloc_stats *out) __attribute__((weak));
extern void spindle_alloc_span_log(size_t *out) __attribute__((weak));
static void pstats(const char *w) { if (!spindle_alloc_stats) return; struct spindle_alloc_stats x; spindle_alloc_stats(&x); fprintf(stderr, "%s: mem_kb=%ld committed=%zu meta=%zu slabs=%zu spare=%zu large=%zu free=%zu in_use=%zu heaps=%zu\n", w, (long)__builtin_wasm_memory_size(0)*64, x.committed, x.metadata, x.slabs, x.spare_slabs, x.large, x.free, x.in_use, x.heaps); }
extern unsigned char __heap_base, __data_end, __global_base;

#ifndef __wasm__
#include <sys/resource.h>
#endif

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline uint32_t rnd(uint32_t *s) { *s ^= *s << 13; *s ^= *s >> 17; *s ^= *s << 5; return *s; }
static inline void touch(unsigned char *p, size_t n) { p[0] = (unsigned char)n; p[n - 1] = (unsigned char)n; }
// Reads back what `touch` wrote (call before freeing p) and folds it into *acc.
static inline void fold(uint32_t *acc, const unsigned char *p, size_t n) { *acc = *acc * 31u + (p[0] | (uint32_t)p[n - 1] << 8); }

typedef struct { unsigned char *p; size_t n; } block;
typedef struct { long ops; int id; int ring; size_t lo, span; uint32_t acc; } ring_arg;

static void *ring_worker(void *a) {
    ring_arg *r = a;
    uint32_t s = 2463534242u + r->id * 7919, acc = 0;
    int ring = r->ring;
    block *blocks = calloc(ring, sizeof(block));
    long live = 0, blk = 0, maxlive = 0, maxblk = 0; long pages = __builtin_wasm_memory_size(0);
    if (r->id == 0) { fprintf(stderr, "heap_base=%zu data_end=%zu\n", (size_t)&__heap_base, (size_t)&__data_end); pstats("start"); }
    for (int i = 0; i < ring; i++) { size_t n = r->lo + rnd(&s) % r->span; blocks[i] = (block){malloc(n), n}; touch(blocks[i].p, n); live += n; blk += malloc_usable_size(blocks[i].p) + 16; }
    for (long i = 0; i < r->ops; i++) {
        int k = i & (ring - 1);
        fold(&acc, blocks[k].p, blocks[k].n);
        live -= blocks[k].n; blk -= malloc_usable_size(blocks[k].p) + 16;
        free(blocks[k].p);
        size_t n = r->lo + rnd(&s) % r->span;
        unsigned char *p = malloc(n);
        live += n; blk += malloc_usable_size(p) + 16; if (live > maxlive) maxlive = live; if (blk > maxblk) maxblk = blk;
        if (r->id == 0 && (long)__builtin_wasm_memory_size(0) != pages) { pages = __builtin_wasm_memory_size(0); fprintf(stderr, "grow at pair %ld: pages=%ld live=%ld blk=%ld maxlive=%ld maxblk=%ld\n", i, pages, live, blk, maxlive, maxblk); pstats("  "); }
        if (r->id == 0 && (i % 500000) == 0) fprintf(stderr, "pair %ld: live=%ld blk=%ld maxlive=%ld maxblk=%ld\n", i, live, blk, maxlive, maxblk);
        touch(p, n);
        blocks[k] = (block){p, n};
    }
    if (r->id == 0) { fprintf(stderr, "end: live=%ld blk=%ld maxlive=%ld maxblk=%ld\n", live, blk, maxlive, maxblk); pstats("end"); if (spindle_alloc_span_log) { size_t L[128]; spindle_alloc_span_log(L); for (int k = 0; k < 32 && (L[4*k] || L[4*k+3]); k++) fprintf(stderr, "  new_span#%d: arena=%zu binned=%zu inuse=%zu passes=%zu\n", k, L[4*k], L[4*k+1], L[4*k+2], L[4*k+3]); } }
    for (int i = 0; i < ring; i++) { fold(&acc, blocks[i].p, blocks[i].n); free(blocks[i].p); }
    free(blocks);
    r->acc = acc;
    return NULL;
}

static uint32_t run_ring(int t, long total, int ring, size_t lo, size_t hi) {
    pthread_t th[64];
    ring_arg args[64];
    uint32_t sum = 0;
    for (int i = 0; i < t; i++) {
        args[i] = (ring_arg){total / t, i, ring, lo, hi - lo + 1, 0};
        pthread_create(&th[i], NULL, ring_worker, &args[i]);
    }
    for (int i = 0; i < t; i++) { pthread_join(th[i], NULL); sum += args[i].acc; }
    return sum;
}

// (b) single-producer single-consumer ring of pointers.
#define QN 4096
static void *_Atomic q[QN];
static atomic_long q_head, q_tail;
static long xfree_total;
static uint32_t xfree_acc;

static void *xfree_consumer(void *a) {
    (void)a;
    uint32_t acc = 0;
    for (long i = 0; i < xfree_total; i++) {
        long h = atomic_load_explicit(&q_head, memory_order_relaxed);
        while (atomic_load_explicit(&q_tail, memory_order_acquire) == h) {}
        unsigned char *p = atomic_load_explicit(&q[h % QN], memory_order_relaxed);
        atomic_store_explicit(&q_head, h + 1, memory_order_release);
        uint32_t n;
        memcpy(&n, p, 4);
        acc = acc * 31u + (n | (uint32_t)p[n - 1] << 16);
        free(p);
    }
    xfree_acc = acc;
    return NULL;
}

// The producer writes each block's size into its first 4 bytes (n >= 16) for the consumer.
static uint32_t run_xfree(long total) {
    xfree_total = total;
    pthread_t c;
    pthread_create(&c, NULL, xfree_consumer, NULL);
    uint32_t s = 88172645u;
    for (long i = 0; i < total; i++) {
        size_t n = 16 + rnd(&s) % 497;
        unsigned char *p = malloc(n);
        touch(p, n);
        uint32_t n32 = (uint32_t)n;
        memcpy(p, &n32, 4);
        long t = atomic_load_explicit(&q_tail, memory_order_relaxed);
        while (t - atomic_load_explicit(&q_head, memory_order_acquire) >= QN) {}
        atomic_store_explicit(&q[t % QN], p, memory_order_relaxed);
        atomic_store_explicit(&q_tail, t + 1, memory_order_release);
    }
    pthread_join(c, NULL);
    return xfree_acc;
}

// (c) larson-style churn.
#define SLOTS 1000
typedef struct { block *slots; long ops_left; long per_thread; uint32_t seed, acc; } larson_arg;

static void *larson_worker(void *a) {
    larson_arg *l = a;
    long n = l->per_thread < l->ops_left ? l->per_thread : l->ops_left;
    for (long i = 0; i < n; i++) {
        int k = rnd(&l->seed) % SLOTS;
        fold(&l->acc, l->slots[k].p, l->slots[k].n);
        free(l->slots[k].p);
        size_t sz = 16 + rnd(&l->seed) % 1009;
        l->slots[k] = (block){malloc(sz), sz};
        touch(l->slots[k].p, sz);
    }
    l->ops_left -= n;
    if (l->ops_left > 0) {
        // Hand the blocks to a fresh thread (its frees are cross-thread) and exit.
        pthread_t next;
        pthread_create(&next, NULL, larson_worker, l);
        pthread_detach(next);
    } else {
        for (int k = 0; k < SLOTS; k++) { fold(&l->acc, l->slots[k].p, l->slots[k].n); free(l->slots[k].p); }
        free(l->slots);
        __atomic_store_n(&l->slots, NULL, __ATOMIC_RELEASE);
    }
    return NULL;
}

static uint32_t run_larson(int t, long total) {
    larson_arg args[64];
    uint32_t sum = 0;
    for (int i = 0; i < t; i++) {
        args[i] = (larson_arg){calloc(SLOTS, sizeof(block)), total / t, 100000, 12345u + i * 777, 0};
        for (int k = 0; k < SLOTS; k++) { args[i].slots[k] = (block){malloc(64), 64}; touch(args[i].slots[k].p, 64); }
        pthread_t th;
        pthread_create(&th, NULL, larson_worker, &args[i]);
        pthread_detach(th);
    }
    // Wait for every chain to finish (the last thread of a chain frees and clears `slots`).
    for (int i = 0; i < t; i++) {
        while (__atomic_load_n(&args[i].slots, __ATOMIC_ACQUIRE) != NULL) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
        sum += args[i].acc;
    }
    return sum;
}

// (e) every thread holds its blocks at once: the main thread waits at the barrier with them, so
// the memory is measured (STATS) while all T threads are alive with their blocks.
typedef struct { int id; long n; uint32_t acc; } hold_arg;
static pthread_barrier_t hold_barrier;

static void *hold_worker(void *a) {
    hold_arg *h = a;
    uint32_t s = 2463534242u + h->id * 7919, acc = 0;
    block *b = malloc(h->n * sizeof(block));
    for (long i = 0; i < h->n; i++) { size_t n = 16 + rnd(&s) % 1009; b[i] = (block){malloc(n), n}; touch(b[i].p, n); }
    pthread_barrier_wait(&hold_barrier); // every thread holds its blocks
    pthread_barrier_wait(&hold_barrier); // the main thread has printed the statistics
    for (long i = 0; i < h->n; i++) { fold(&acc, b[i].p, b[i].n); free(b[i].p); }
    free(b);
    h->acc = acc;
    return NULL;
}

static void print_spindle_stats(long start_kb);

static uint32_t run_threads(int t, long per_thread, long start_kb) {
    pthread_t th[64];
    hold_arg args[64];
    uint32_t sum = 0;
    pthread_barrier_init(&hold_barrier, NULL, t + 1);
    for (int i = 0; i < t; i++) {
        args[i] = (hold_arg){i, per_thread, 0};
        pthread_create(&th[i], NULL, hold_worker, &args[i]);
    }
    pthread_barrier_wait(&hold_barrier);
    print_spindle_stats(start_kb);
    pthread_barrier_wait(&hold_barrier);
    for (int i = 0; i < t; i++) { pthread_join(th[i], NULL); sum += args[i].acc; }
    pthread_barrier_destroy(&hold_barrier);
    return sum;
}

// spindle-alloc's statistics when the program is linked with it (a weak reference: null with
// any other allocator): where the memory went. One line after RESULT:
// STATS start_kb=.. committed_kb=.. metadata_kb=.. slabs_kb=.. spare_kb=.. large_kb=.. free_kb=.. in_use_kb=.. heaps=.. refreshes=..

static void print_spindle_stats(long start_kb) {
    if (!spindle_alloc_stats) return;
    struct spindle_alloc_stats s;
    spindle_alloc_stats(&s);
    printf("STATS start_kb=%ld committed_kb=%zu metadata_kb=%zu slabs_kb=%zu spare_kb=%zu large_kb=%zu free_kb=%zu in_use_kb=%zu heaps=%zu refreshes=%zu\n",
           start_kb, s.committed >> 10, s.metadata >> 10, s.slabs >> 10, s.spare_slabs >> 10, s.large >> 10, s.free >> 10,
           s.in_use >> 10, s.heaps, s.view_refreshes);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: malloc_bench ring|xfree|larson|article|threads THREADS TOTAL\n"); return 2; }
    const char *w = argv[1];
    int t = atoi(argv[2]);
    long total = atol(argv[3]);
    if (t < 1 || t > 64) { fprintf(stderr, "THREADS must be 1..64\n"); return 2; }
#ifdef __wasm__
    long start_kb = (long)__builtin_wasm_memory_size(0) * 64;
#else
    long start_kb = 0;
#endif
    double t0 = now_ms();
    uint32_t checksum;
    if (!strcmp(w, "ring")) checksum = run_ring(t, total, 256, 8, 1024);
    else if (!strcmp(w, "article")) checksum = run_ring(t, total, 1024, 1000, 2023);
    else if (!strcmp(w, "xfree")) checksum = run_xfree(total);
    else if (!strcmp(w, "larson")) checksum = run_larson(t, total);
    else if (!strcmp(w, "threads")) checksum = run_threads(t, total, start_kb);
    else { fprintf(stderr, "unknown workload %s\n", w); return 2; }
    double ms = now_ms() - t0;
#ifdef __wasm__
    long mem_kb = (long)__builtin_wasm_memory_size(0) * 64;
#else
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long mem_kb = ru.ru_maxrss;
#endif
    printf("RESULT workload=%s threads=%d ops=%ld ms=%.1f mem_kb=%ld checksum=%08x\n", w, t, total, ms, mem_kb, checksum);
    if (strcmp(w, "threads")) print_spindle_stats(start_kb); // threads printed them with every thread alive
    return 0;
}
