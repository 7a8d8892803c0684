/*
 * pool.h — the persistent thread pool of a CPU context.
 *
 * pool_for splits [0, n) into chunks of `grain` that the workers and the
 * calling thread take in turn until none is left; it returns when every
 * chunk is done.  One parallel-for runs at a time: a call made while the
 * pool is busy (another thread's run) executes its chunks on the calling
 * thread alone, so concurrent runs of programs never wait for each other.
 *
 * The pool also keeps a few large host buffers that steps borrow for a
 * run (segment offsets, say): a buffer of megabytes allocated afresh every
 * run has its pages faulted in (and zeroed by the kernel) every run, which
 * cost SMVM's segmented fold about 8% of its time.
 */
#ifndef ACC_CORE_BACKEND_HOST_POOL_H
#define ACC_CORE_BACKEND_HOST_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct pool pool;
typedef void (*pool_fn)(void *arg, int64_t lo, int64_t hi);

/* A pool of `threads` threads in all, the caller included (threads - 1
 * workers); NULL when out of resources. */
pool *pool_create(int threads);
void pool_destroy(pool *p);
/* Threads that take part in pool_for, the caller included. */
int pool_threads(const pool *p);
void pool_for(pool *p, int64_t n, int64_t grain, pool_fn fn, void *arg);
/* The default size: ACC_NUM_THREADS when set to a positive number, else
 * the number of online processors. */
int pool_default_threads(void);

/* A buffer of at least `bytes` bytes (16-byte aligned): one the pool kept
 * when one is large enough, else new memory; NULL when out of memory.
 * Give it back with pool_scratch_done.  p may be NULL (plain memory). */
void *pool_scratch(pool *p, size_t bytes);
/* Gives back a buffer of pool_scratch (NULL: nothing); the pool keeps a
 * few of the largest, frees the others.  p may be NULL. */
void pool_scratch_done(pool *p, void *buf);

#endif
