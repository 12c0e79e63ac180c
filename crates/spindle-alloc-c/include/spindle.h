/* spindle.h: extras of spindle-alloc, the thread-scalable malloc for wasm32-wasip1-threads.
 *
 * Link libspindle-alloc.a before libc (e.g. `clang ... prog.c -L$PREFIX/lib -lspindle-alloc`):
 * malloc, free, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc,
 * malloc_usable_size (and wasi-libc's internal __libc_malloc/__libc_calloc/__libc_free) then come
 * from spindle-alloc and wasi-libc's dlmalloc is not linked at all. No source change is needed;
 * this header only declares the extras below. As with libc, every function of the archive is a
 * weak definition: a program may define any of them itself (its own memalign, say) and its
 * definition is the one used; the allocator never calls its own exports internally. */
#ifndef SPINDLE_H
#define SPINDLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Also exported, but not declared by wasi-libc's headers. */
void *memalign(size_t alignment, size_t size);
void *valloc(size_t size);

/* Where the allocator's memory is: committed == metadata + slabs + large + free. Inside slabs,
 * (in_use - large) bytes are blocks handed out, spare_slabs are empty slabs kept by threads for
 * reuse, the rest are free blocks of partly used slabs. */
struct spindle_alloc_stats {
    size_t in_use;         /* bytes handed out and not freed (remote frees count once collected) */
    size_t committed;      /* bytes of linear memory taken with memory.grow (never given back) */
    size_t peak_committed; /* highest committed so far */
    size_t metadata;       /* span records, heap records, chunk-map leaves */
    size_t slabs;          /* slabs owned by threads' heaps (including spare_slabs) */
    size_t spare_slabs;    /* empty slabs kept for reuse */
    size_t large;          /* large blocks (> 512 KiB, or aligned beyond 8 KiB) handed out */
    size_t free;           /* free memory in the shared pool, for any thread and size */
    size_t heaps;          /* heap records: the most threads that held one at once */
    size_t view_refreshes; /* memory.grow(0) calls that refreshed a thread's view of memory another
                              thread grew (V8's lazy size refresh; see the README) */
};

/* Fills *out with the current statistics. */
void spindle_alloc_stats(struct spindle_alloc_stats *out);

/* Collects frees other threads made into the calling thread's blocks and returns its empty
 * slabs to the shared pool (for a thread going idle for long). */
void spindle_alloc_thread_flush(void);

/* Caps the linear memory the allocator takes at `bytes` (below the module's maximum); for tests of
 * out-of-memory paths. */
void spindle_alloc_set_limit(size_t bytes);

/* Checks the allocator's internal invariants; returns 0 when consistent, else prints the broken
 * invariant to stderr and returns -1. Only in archives built with the `validate` feature. */
int spindle_alloc_validate(void);

#ifdef __cplusplus
}
#endif

#endif
