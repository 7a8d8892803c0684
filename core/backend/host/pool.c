/*
 * pool.c — see pool.h.  A worker that finishes a job spins for a while
 * (POOL_SPIN_US) watching the job generation, then sleeps on a condition
 * variable until it changes; it takes chunks from an atomic counter and
 * reports back.  The caller, done with its own chunks, spins the same
 * while for the workers to finish, then sleeps; it returns only when
 * every worker has left the job, so a job's argument may live on the
 * caller's stack.
 *
 * Why spin: waking a sleeping thread is a futex wake and a reschedule,
 * and on a virtual machine an interrupt to a halted vCPU: 22 us per
 * parallel-for on this project's AMD EPYC VM (a 2-element pool_for;
 * bench/README.md, "The pool's wake-up"), more than a 3 x 10^5-element
 * dot product takes on one thread.  Runs that follow each other within
 * the spin window find the workers awake; the window bounds the time a
 * thread burns for nothing after the last run.
 */
#include "core/backend/host/pool.h"
#include "core/base/mem.h"
#include "core/base/spin.h"
#include "core/base/stop.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { POOL_KEPT = 4,                 /* scratch buffers kept at most */
       SCRATCH_HEADER = 16,           /* the size, before the buffer */
       POOL_SPIN_US = 100,            /* the default spin window */
       POOL_SPIN_CHECK = 64,          /* pauses between looks at the clock */
       POOL_SPIN_YIELD = 1024 };      /* pauses between yields */

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_mutex_t busy; /* held by the thread whose job is running */
    pthread_t *threads;
    int n_workers, started;
    double spin_seconds;  /* how long a waiter spins before it sleeps */
    /* changed under `lock`, read by spinning workers without it; its
     * release publishes fn, arg, n, grain and next */
    atomic_uint_fast64_t generation;
    atomic_int stop;
    atomic_int active;  /* workers that have not finished the current job */
    int sleepers;       /* workers asleep on `wake` (lock) */
    int caller_asleep;  /* the caller sleeps on `done` (lock) */
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

/* Spins until done(p, seen) or the spin window ends; whether it is done.
 * It pauses between looks, reads the clock every POOL_SPIN_CHECK pauses
 * and yields every POOL_SPIN_YIELD, so that on an oversubscribed machine
 * the thread it waits for gets to run.  Not more often: a system call
 * costs about 1 us on this project's VMs (sched_yield 1.2 us, a pause
 * 18 ns on the AMD EPYC), and yielding at every look made a trivial
 * parallel-for take 6 us instead of 1. */
static int spin_until(pool *p, int (*done)(pool *, uint64_t), uint64_t seen)
{
    if (p->spin_seconds <= 0)
        return done(p, seen);
    double until = stop_now() + p->spin_seconds;
    for (unsigned i = 1;; i++) {
        if (done(p, seen))
            return 1;
        spin_pause();
        if (i % POOL_SPIN_CHECK == 0 && stop_now() > until)
            return done(p, seen);
        if (i % POOL_SPIN_YIELD == 0)
            sched_yield();
    }
}

static int new_job_or_stop(pool *p, uint64_t seen)
{
    return atomic_load_explicit(&p->generation, memory_order_acquire) !=
               seen ||
           atomic_load_explicit(&p->stop, memory_order_relaxed);
}

static int workers_done(pool *p, uint64_t unused)
{
    (void)unused;
    return atomic_load_explicit(&p->active, memory_order_acquire) == 0;
}

static void *worker(void *arg)
{
    pool *p = arg;
    uint64_t seen = 0;
    for (;;) {
        if (!spin_until(p, new_job_or_stop, seen)) {
            pthread_mutex_lock(&p->lock);
            p->sleepers++;
            while (!new_job_or_stop(p, seen))
                pthread_cond_wait(&p->wake, &p->lock);
            p->sleepers--;
            pthread_mutex_unlock(&p->lock);
        }
        if (atomic_load_explicit(&p->stop, memory_order_relaxed))
            return NULL;
        seen = atomic_load_explicit(&p->generation, memory_order_acquire);
        run_chunks(p);
        /* the last one out wakes the caller if it sleeps; after its
         * decrement a worker touches nothing of the job */
        if (atomic_fetch_sub_explicit(&p->active, 1, memory_order_acq_rel) ==
            1) {
            pthread_mutex_lock(&p->lock);
            if (p->caller_asleep)
                pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->lock);
        }
    }
}

/* The spin window: ACC_POOL_SPIN_US microseconds when set to a number
 * (0: sleep at once), else POOL_SPIN_US. */
static double spin_window(void)
{
    const char *env = getenv("ACC_POOL_SPIN_US");
    char *end = NULL;
    long us = env && *env ? strtol(env, &end, 10) : POOL_SPIN_US;
    if (env && *env && (*end != '\0' || us < 0))
        us = POOL_SPIN_US;
    return (double)(us > 1000000 ? 1000000 : us) * 1e-6;
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
    p->spin_seconds = spin_window();
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
    atomic_store(&p->stop, 1);
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
    /* every worker left the last job (its caller saw active reach 0),
     * so the job's fields are ours until the generation changes */
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    p->grain = grain;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->active, p->n_workers, memory_order_relaxed);
    pthread_mutex_lock(&p->lock); /* a worker going to sleep sees it */
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    if (p->sleepers > 0)
        pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    run_chunks(p);
    if (!spin_until(p, workers_done, 0)) {
        pthread_mutex_lock(&p->lock);
        p->caller_asleep = 1;
        while (!workers_done(p, 0))
            pthread_cond_wait(&p->done, &p->lock);
        p->caller_asleep = 0;
        pthread_mutex_unlock(&p->lock);
    }
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
