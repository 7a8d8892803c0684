/*
 * pool.c — see pool.h.  Workers sleep on a condition variable until the
 * job generation changes, take chunks from an atomic counter, and report
 * back; the caller waits until every worker has left the job, so a job's
 * argument may live on the caller's stack.
 */
#include "core/backend/host/pool.h"
#include "core/base/mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { POOL_KEPT = 4,                 /* scratch buffers kept at most */
       SCRATCH_HEADER = 16 };         /* the size, before the buffer */

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_mutex_t busy; /* held by the thread whose job is running */
    pthread_t *threads;
    int n_workers, started;
    uint64_t generation;
    int stop;
    int active; /* workers that have not finished the current job */
    pool_fn fn;
    void *arg;
    int64_t n, grain;
    atomic_llong next;
    pthread_mutex_t scratch_lock;
    void *kept[POOL_KEPT]; /* idle scratch buffers (headers included) */
};

static void run_chunks(pool *p)
{
    for (;;) {
        int64_t lo = atomic_fetch_add(&p->next, p->grain);
        if (lo >= p->n)
            return;
        int64_t hi = p->n - lo > p->grain ? lo + p->grain : p->n;
        p->fn(p->arg, lo, hi);
    }
}

static void *worker(void *arg)
{
    pool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        run_chunks(p);
        pthread_mutex_lock(&p->lock);
        if (--p->active == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int pool_default_threads(void)
{
    const char *env = getenv("ACC_NUM_THREADS");
    long n = env ? strtol(env, NULL, 10) : 0;
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n <= 0 ? 1 : n > 1024 ? 1024 : (int)n;
}

pool *pool_create(int threads)
{
    pool *p = mem_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->busy, NULL);
    pthread_mutex_init(&p->scratch_lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->n_workers = threads > 1 ? threads - 1 : 0;
    p->threads = mem_calloc((size_t)p->n_workers + 1, sizeof *p->threads);
    if (!p->threads) {
        pool_destroy(p);
        return NULL;
    }
    for (; p->started < p->n_workers; p->started++)
        if (pthread_create(&p->threads[p->started], NULL, worker, p) != 0)
            break;
    p->n_workers = p->started; /* fewer threads still work */
    return p;
}

void pool_destroy(pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    for (int i = 0; i < POOL_KEPT; i++)
        free(p->kept[i]);
    pthread_mutex_destroy(&p->scratch_lock);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->busy);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

int pool_threads(const pool *p)
{
    return p->n_workers + 1;
}

void pool_for(pool *p, int64_t n, int64_t grain, pool_fn fn, void *arg)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    if (p->n_workers == 0 || n <= grain || pthread_mutex_trylock(&p->busy)) {
        for (int64_t lo = 0; lo < n; lo += grain)
            fn(arg, lo, n - lo > grain ? lo + grain : n);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    p->grain = grain;
    atomic_store(&p->next, 0);
    p->active = p->n_workers;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    run_chunks(p);
    pthread_mutex_lock(&p->lock);
    while (p->active > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->busy);
}

/* ---- scratch buffers ------------------------------------------------------ */

static size_t scratch_size(const void *block)
{
    size_t bytes;
    memcpy(&bytes, block, sizeof bytes);
    return bytes;
}

void *pool_scratch(pool *p, size_t bytes)
{
    unsigned char *block = NULL;
    if (p) {
        pthread_mutex_lock(&p->scratch_lock);
        for (int i = 0; i < POOL_KEPT && !block; i++)
            if (p->kept[i] && scratch_size(p->kept[i]) >= bytes) {
                block = p->kept[i];
                p->kept[i] = NULL;
            }
        pthread_mutex_unlock(&p->scratch_lock);
    }
    if (!block && bytes <= SIZE_MAX - SCRATCH_HEADER &&
        (block = mem_alloc(SCRATCH_HEADER + bytes)) != NULL)
        memcpy(block, &bytes, sizeof bytes);
    return block ? block + SCRATCH_HEADER : NULL;
}

void pool_scratch_done(pool *p, void *buf)
{
    if (!buf)
        return;
    unsigned char *block = (unsigned char *)buf - SCRATCH_HEADER;
    if (p) { /* keep it in place of the smallest kept one, if larger */
        pthread_mutex_lock(&p->scratch_lock);
        int at = 0; /* an empty slot, else the smallest buffer's */
        for (int i = 0; i < POOL_KEPT; i++) {
            if (!p->kept[i]) {
                at = i;
                break;
            }
            if (scratch_size(p->kept[i]) < scratch_size(p->kept[at]))
                at = i;
        }
        if (!p->kept[at] || scratch_size(p->kept[at]) < scratch_size(block)) {
            void *old = p->kept[at];
            p->kept[at] = block;
            block = old;
        }
        pthread_mutex_unlock(&p->scratch_lock);
    }
    free(block);
}
