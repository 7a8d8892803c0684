/*
 * test_pool.c — the CPU contexts' thread pool (core/backend/host/pool.h):
 * every chunk of a parallel-for runs once, on the workers too, whether
 * they are spinning after a job or asleep past the spin window; no wake-up
 * is lost between the two; concurrent callers and a pool destroyed while
 * its workers spin or sleep neither hang nor lose work.  A lost wake-up
 * shows as a hang: each test arms an alarm (SIGALRM, which ends the test's
 * process) that turns it into a failure.  Not Criterion's .timeout: with
 * several such tests running at once its runner leaked 48 bytes, which
 * the sanitizer build reports as a failure.
 */
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "core/backend/host/pool.h"

enum { MAX_N = 1 << 16, WATCHDOG_SECONDS = 120 };

/* A hang (a lost wake-up) ends the test's process after WATCHDOG_SECONDS:
 * a crash, which Criterion reports as a failure. */
static void arm_watchdog(void)
{
    alarm(WATCHDOG_SECONDS);
}

TestSuite(pool, .init = arm_watchdog);

typedef struct job {
    atomic_int runs[MAX_N];
    atomic_int bad_chunks; /* chunks longer than the grain, or empty */
    int64_t grain;
    double chunk_sleep;    /* seconds each chunk sleeps (0: none) */
    pthread_t seen[8];     /* threads that ran a chunk */
    atomic_int n_seen;
    pthread_mutex_t seen_lock;
} job;

static void sleep_seconds(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) != 0)
        ;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void note_thread(job *j)
{
    pthread_t self = pthread_self();
    pthread_mutex_lock(&j->seen_lock);
    int n = atomic_load(&j->n_seen), known = 0;
    for (int i = 0; i < n; i++)
        known |= pthread_equal(j->seen[i], self);
    if (!known && n < 8) {
        j->seen[n] = self;
        atomic_store(&j->n_seen, n + 1);
    }
    pthread_mutex_unlock(&j->seen_lock);
}

static void chunk(void *arg, int64_t lo, int64_t hi)
{
    job *j = arg;
    if (hi <= lo || hi - lo > j->grain)
        atomic_fetch_add(&j->bad_chunks, 1);
    for (int64_t i = lo; i < hi; i++)
        atomic_fetch_add(&j->runs[i], 1);
    note_thread(j);
    if (j->chunk_sleep > 0)
        sleep_seconds(j->chunk_sleep);
}

static job *job_new(int64_t grain, double chunk_sleep)
{
    job *j = calloc(1, sizeof *j);
    cr_assert_not_null(j);
    j->grain = grain;
    j->chunk_sleep = chunk_sleep;
    pthread_mutex_init(&j->seen_lock, NULL);
    return j;
}

static void job_reset(job *j)
{
    for (int i = 0; i < MAX_N; i++)
        atomic_store(&j->runs[i], 0);
    atomic_store(&j->bad_chunks, 0);
    atomic_store(&j->n_seen, 0);
}

static void job_free(job *j)
{
    pthread_mutex_destroy(&j->seen_lock);
    free(j);
}

/* pool_for over [0, n) with `grain`; every index ran exactly once. */
static void run_and_check(pool *p, job *j, int64_t n, int64_t grain,
                          const char *when)
{
    job_reset(j);
    j->grain = grain;
    pool_for(p, n, grain, chunk, j);
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(atomic_load(&j->runs[i]), 1,
                     "%s: n %lld grain %lld: index %lld ran %d times", when,
                     (long long)n, (long long)grain, (long long)i,
                     atomic_load(&j->runs[i]));
    cr_assert_eq(atomic_load(&j->bad_chunks), 0, "%s: a chunk out of shape",
                 when);
}

Test(pool, every_chunk_runs_once)
{
    static const int64_t sizes[] = {1, 2, 3, 7, 64, 1000, 4097, MAX_N};
    static const int64_t grains[] = {1, 2, 5, 64, 1000, 1 << 20};
    pool *p = pool_create(3);
    cr_assert_not_null(p);
    cr_assert_eq(pool_threads(p), 3);
    job *j = job_new(1, 0);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t g = 0; g < sizeof grains / sizeof *grains; g++) {
            /* right after a job (workers spinning), then after the spin
             * window has passed (workers asleep) */
            run_and_check(p, j, sizes[s], grains[g], "back to back");
            if (s % 3 == 0) {
                sleep_seconds(0.002);
                run_and_check(p, j, sizes[s], grains[g], "after a pause");
            }
        }
    job_free(j);
    pool_destroy(p);
}

/* With chunks that take a while, the workers take some: awake (spinning)
 * and asleep alike.  A worker that missed its wake-up would leave every
 * chunk to the caller. */
Test(pool, workers_take_part_awake_or_asleep)
{
    pool *p = pool_create(3);
    cr_assert_not_null(p);
    job *j = job_new(1, 0.002);
    for (int round = 0; round < 4; round++) {
        if (round % 2)
            sleep_seconds(0.005); /* past the spin window: asleep */
        run_and_check(p, j, 24, 1, round % 2 ? "asleep" : "awake");
        cr_expect_geq(atomic_load(&j->n_seen), 2,
                      "round %d: %d thread(s) ran the 24 chunks of 2 ms",
                      round, atomic_load(&j->n_seen));
    }
    job_free(j);
    pool_destroy(p);
}

static double spin_for(double seconds)
{
    double until = now() + seconds, t;
    while ((t = now()) < until)
        ;
    return t;
}

/* Thousands of small jobs with gaps around the spin window's length (100
 * us by default), so that workers are caught as they go to sleep: a wake-up
 * lost between a worker's last look and its sleep hangs the test. */
Test(pool, no_wakeup_is_lost_around_the_spin_window)
{
    pool *p = pool_create(2);
    cr_assert_not_null(p);
    job *j = job_new(1, 0);
    unsigned seed = 12345;
    for (int k = 0; k < 3000; k++) {
        seed = seed * 1103515245u + 12345u;
        double gap = (double)((seed >> 8) % 160) * 1e-6; /* 0 .. 159 us */
        spin_for(gap);
        job_reset(j);
        pool_for(p, 2, 1, chunk, j);
        cr_assert_eq(atomic_load(&j->runs[0]) + atomic_load(&j->runs[1]), 2,
                     "job %d", k);
    }
    job_free(j);
    pool_destroy(p);
}

/* ACC_POOL_SPIN_US=0: workers sleep at once; the work is the same. */
Test(pool, no_spin_window_works_the_same)
{
    setenv("ACC_POOL_SPIN_US", "0", 1);
    pool *p = pool_create(3);
    unsetenv("ACC_POOL_SPIN_US");
    cr_assert_not_null(p);
    job *j = job_new(1, 0);
    for (int k = 0; k < 200; k++)
        run_and_check(p, j, 1 + k * 37 % 5000, 1 + k % 97, "no spin");
    job_free(j);
    pool_destroy(p);
}

typedef struct caller {
    pool *p;
    job *j;
    int rounds;
    int failures;
} caller;

static void *call_many(void *arg)
{
    caller *c = arg;
    for (int r = 0; r < c->rounds; r++) {
        job_reset(c->j);
        pool_for(c->p, 5000, 16, chunk, c->j);
        for (int i = 0; i < 5000; i++)
            c->failures += atomic_load(&c->j->runs[i]) != 1;
    }
    return NULL;
}

/* Two threads run parallel-fors on one pool at once: one gets the pool,
 * the other runs its chunks alone; neither waits for ever or loses work. */
Test(pool, concurrent_callers_both_finish)
{
    pool *p = pool_create(2);
    cr_assert_not_null(p);
    caller c[2] = {{p, job_new(16, 0), 300, 0}, {p, job_new(16, 0), 300, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, call_many, &c[i]), 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        cr_expect_eq(c[i].failures, 0, "caller %d", i);
        job_free(c[i].j);
    }
    pool_destroy(p);
}

/* Destroying a pool whose workers spin (just after a job), sleep (past
 * the window) or never had a job returns. */
Test(pool, destroy_returns_whatever_the_workers_do)
{
    job *j = job_new(1, 0);
    for (int k = 0; k < 3; k++) {
        pool *p = pool_create(4);
        cr_assert_not_null(p);
        if (k > 0)
            run_and_check(p, j, 100, 1, "before destroy");
        if (k == 2)
            sleep_seconds(0.002);
        pool_destroy(p);
    }
    job_free(j);
}
