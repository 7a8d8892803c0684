/*
 * test_handles.c — the registry of live handles (core/base/handles.h):
 * a registered pointer is live with its kind only, until it is
 * unregistered; the table keeps every live key through its rebuilds, and
 * its size follows the handles alive at once, not how many came and went.
 */
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdint.h>

#include "core/base/handles.h"

/* Distinct addresses that no handle of the library has. */
static char keys[4096];

Test(handles, live_with_its_kind_until_unregistered)
{
    cr_assert(!handle_is_live(NULL, HANDLE_PROGRAM));
    cr_assert(!handle_is_live(&keys[0], HANDLE_PROGRAM));
    cr_assert(handle_register(&keys[0], HANDLE_PROGRAM));
    cr_expect(handle_is_live(&keys[0], HANDLE_PROGRAM));
    cr_expect(!handle_is_live(&keys[0], HANDLE_GRAPH), "another kind");
    cr_expect(!handle_is_live(&keys[1], HANDLE_PROGRAM), "another address");
    handle_unregister(&keys[0]);
    cr_expect(!handle_is_live(&keys[0], HANDLE_PROGRAM));
    /* unregistering what is not registered changes nothing */
    handle_unregister(&keys[2]);
    cr_expect(!handle_is_live(&keys[2], HANDLE_PROGRAM));
}

Test(handles, every_live_key_survives_the_rebuilds)
{
    enum { N = 3000 };
    for (size_t i = 0; i < N; i++)
        cr_assert(handle_register(&keys[i], (handle_kind)(1 + i % 4)));
    for (size_t i = 0; i < N; i += 2)
        handle_unregister(&keys[i]);
    for (size_t i = 0; i < N; i++)
        cr_expect_eq(handle_is_live(&keys[i], (handle_kind)(1 + i % 4)),
                     (int)(i % 2), "key %zu", i);
    for (size_t i = 1; i < N; i += 2)
        handle_unregister(&keys[i]);
    for (size_t i = 0; i < N; i++)
        cr_expect(!handle_is_live(&keys[i], (handle_kind)(1 + i % 4)));
}

/* Created and freed one after another a million times: the table neither
 * grows nor rebuilds (it doubled at every rebuild once its tombstones
 * filled half of it, growing with every handle ever made; and a rebuild
 * at some runs and not others made the allocation-failure test's count
 * of a run's allocations change from one run to the next). */
Test(handles, churn_leaves_the_table_as_it_is)
{
    cr_assert(handle_register(&keys[4000], HANDLE_CONTEXT)); /* one stays */
    size_t before = handle_registry_capacity();
    for (size_t i = 0; i < 1000000; i++) {
        const void *p = &keys[i % 3000];
        cr_assert(handle_register(p, HANDLE_PROGRAM));
        handle_unregister(p);
    }
    cr_expect_eq(handle_registry_capacity(), before,
                 "capacity %zu after a million handles, two alive at once; "
                 "%zu before", handle_registry_capacity(), before);
    cr_expect(handle_is_live(&keys[4000], HANDLE_CONTEXT));
    handle_unregister(&keys[4000]);
}

/* Removal moves later keys of a probe chain back: keys removed in a
 * scrambled order leave every other key findable, at every step. */
Test(handles, removal_keeps_every_chain_whole)
{
    enum { N = 1500 };
    for (size_t i = 0; i < N; i++)
        cr_assert(handle_register(&keys[i], HANDLE_GRAPH));
    static uint8_t gone[N];
    for (size_t step = 0; step < N; step++) {
        size_t k = (step * 7919) % N; /* 7919 is prime: a permutation */
        handle_unregister(&keys[k]);
        gone[k] = 1;
        if (step % 50 == 0 || step == N - 1)
            for (size_t i = 0; i < N; i++)
                cr_assert_eq(handle_is_live(&keys[i], HANDLE_GRAPH),
                             !gone[i], "key %zu after %zu removals", i,
                             step + 1);
    }
}

/* Each thread remembers the last live handle it found: a handle another
 * thread unregistered since (before this thread asks again) is not live,
 * and a new handle at the same address is live with its own kind only. */
typedef struct asker {
    const void *p;
    pthread_barrier_t step;
    int before, after, reused;
} asker;

static void *ask_around_a_free(void *arg)
{
    asker *a = arg;
    a->before = handle_is_live(a->p, HANDLE_PROGRAM) &&
                handle_is_live(a->p, HANDLE_PROGRAM); /* the second: memo */
    pthread_barrier_wait(&a->step); /* the main thread unregisters */
    pthread_barrier_wait(&a->step);
    a->after = handle_is_live(a->p, HANDLE_PROGRAM);
    pthread_barrier_wait(&a->step); /* it registers a graph there */
    pthread_barrier_wait(&a->step);
    a->reused = handle_is_live(a->p, HANDLE_PROGRAM) +
                2 * handle_is_live(a->p, HANDLE_GRAPH);
    return NULL;
}

Test(handles, a_remembered_handle_freed_elsewhere_is_not_live)
{
    asker a = {&keys[100], {{0}}, 0, 0, 0};
    cr_assert_eq(pthread_barrier_init(&a.step, NULL, 2), 0);
    cr_assert(handle_register(a.p, HANDLE_PROGRAM));
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, ask_around_a_free, &a), 0);
    pthread_barrier_wait(&a.step);
    handle_unregister(a.p);
    pthread_barrier_wait(&a.step);
    pthread_barrier_wait(&a.step);
    cr_assert(handle_register(a.p, HANDLE_GRAPH));
    pthread_barrier_wait(&a.step);
    cr_assert_eq(pthread_join(t, NULL), 0);
    cr_expect(a.before, "live before the free, asked twice");
    cr_expect(!a.after, "the thread remembered it, but it was freed");
    cr_expect_eq(a.reused, 2, "the address is a graph's now, not a program's");
    handle_unregister(a.p);
    pthread_barrier_destroy(&a.step);
}
