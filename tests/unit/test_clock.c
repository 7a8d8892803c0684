/*
 * test_clock.c — the statistics' timestamps (core/base/clock.h): TSC
 * counts where the TSC is invariant and the kernel's clock counts with it
 * (clocksource tsc or kvm-clock), CLOCK_MONOTONIC nanoseconds elsewhere,
 * seconds either way once converted; durations that never wrap; and
 * acc_program_last_run's seconds, which come from them.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include "accel.h"
#include "core/base/clock.h"
#include "cpu_support.h"
#include "support.h"

static double monotonic(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_seconds(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) != 0)
        ;
}

Test(clock, ticks_never_go_back)
{
    uint64_t last = clock_ticks();
    for (int i = 0; i < 100000; i++) {
        uint64_t now = clock_ticks();
        cr_assert_geq(now, last, "read %d went back", i);
        last = now;
    }
}

#if defined(__x86_64__)
/* Whether clock.c should count with the TSC here: invariant TSC and a
 * kernel clock that counts with it (the test's own reading of the same
 * facts, so that a detection that stopped finding them fails). */
static int tsc_expected(char *source, size_t room)
{
    unsigned a, b, c, d;
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
                    "current_clocksource", "r");
    source[0] = '\0';
    if (f) {
        if (!fgets(source, (int)room, f))
            source[0] = '\0';
        fclose(f);
    }
    source[strcspn(source, "\n")] = '\0';
    return __get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8)) &&
           (strcmp(source, "tsc") == 0 || strcmp(source, "kvm-clock") == 0);
}

/* Where the TSC qualifies, a tick is a TSC count: it lies between two TSC
 * reads taken around it (CLOCK_MONOTONIC nanoseconds would not, the TSC
 * running at GHz rates since boot). */
Test(clock, ticks_are_tsc_counts_where_the_kernel_clock_counts_with_it)
{
    char source[64];
    if (!tsc_expected(source, sizeof source))
        cr_skip_test("no invariant TSC under clocksource \"%s\": ticks "
                     "are CLOCK_MONOTONIC nanoseconds here", source);
    (void)clock_ticks(); /* the first call detects */
    for (int i = 0; i < 1000; i++) {
        uint64_t before = __rdtsc();
        uint64_t tick = clock_ticks();
        uint64_t after = __rdtsc();
        cr_assert(before <= tick && tick <= after,
                  "clocksource %s, read %d: tick %llu outside the TSC reads "
                  "%llu..%llu", source, i, (unsigned long long)tick,
                  (unsigned long long)before, (unsigned long long)after);
    }
}
#endif

/* A duration from a start the clock has not reached (a thread moved to a
 * core whose counter lags) is 0, not a wrapped 2^64 - d; from a start in
 * the past it is what passed. */
Test(clock, durations_never_wrap)
{
    uint64_t now = clock_ticks();
    cr_expect_eq(clock_ticks_since(now + 1000000000000ull), 0);
    cr_expect_eq(clock_ticks_since(UINT64_MAX), 0);
    sleep_seconds(0.002);
    double s = clock_ticks_seconds(clock_ticks_since(now));
    cr_expect(s >= 0.002 * 0.98 && s < 10, "%g s for a sleep of 2 ms", s);
}

/* Durations of 30 and 60 ms, measured in ticks, converted, against
 * CLOCK_MONOTONIC around them (a sleep may last longer than asked, never
 * shorter). */
Test(clock, durations_convert_to_seconds)
{
    for (int k = 1; k <= 2; k++) {
        double m0 = monotonic();
        uint64_t t0 = clock_ticks();
        sleep_seconds(0.03 * k);
        uint64_t t1 = clock_ticks();
        double m1 = monotonic();
        double s = clock_ticks_seconds(t1 - t0);
        cr_expect_geq(s, 0.03 * k * 0.98, "%g s for a sleep of %g s", s,
                      0.03 * k);
        cr_expect_leq(s, (m1 - m0) * 1.02 + 1e-4, "%g s within %g s", s,
                      m1 - m0);
    }
    cr_expect_eq(clock_ticks_seconds(0), 0.0);
}

/* A run's seconds (acc_program_last_run): positive, and no longer than the
 * wall time around acc_run, for a run through the executor and a direct
 * one (cpu_direct.h) of 2 x 10^6 elements. */
Test(clock, last_run_seconds_are_the_runs, .init = ts_make_cache_dir,
     .fini = ts_remove_cache_dir)
{
    acc_context *ctx = ts_cpu_context();
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx,
                                  "dotp (xs : Vector f32) (ys : Vector f32) "
                                  ": Scalar f32 = fold (+) 0 (zipWith (*) "
                                  "xs ys)\n",
                                  (size_t)-1, "dotp", &p),
                 ACC_OK, "%s", acc_last_error());
    enum { N = 2000000 };
    float *x = malloc(N * sizeof *x), got = 0;
    cr_assert_not_null(x);
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 5);
    int64_t n = N;
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, x), ts_host(ACC_F32, 1, &n, x)};
    for (int r = 0; r < 3; r++) {
        acc_array out = ts_host(ACC_F32, 0, NULL, &got);
        double m0 = monotonic();
        cr_assert_eq(acc_run(p, 2, in, 1, &out), ACC_OK, "%s",
                     acc_last_error());
        double wall = monotonic() - m0;
        acc_run_stats st = {sizeof st, 0, 0, 0, 0};
        cr_assert_eq(acc_program_last_run(p, &st), ACC_OK);
        cr_expect_gt(st.seconds, 0, "run %d", r);
        cr_expect_leq(st.seconds, wall * 1.02 + 1e-5,
                      "run %d: %g s, the call took %g s", r, st.seconds, wall);
        cr_expect_eq(st.kernels_launched, 1);
    }
    acc_program_free(p);
    free(x);
    acc_context_destroy(ctx);
}
