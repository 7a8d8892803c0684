/*
 * test_lifetimes.c — intermediate arrays live from their step to their
 * last use (core/schedule: release lists; core/exec: the executor frees
 * them).  The chain of six scans of docs/ARCHITECTURE.md ("Memory") keeps
 * at most the array it reads and the one it writes, plus, on the
 * interpreter, the scan a fused map reads: the peak of accel's host
 * memory (rt_peak_bytes) during a run is measured against that.  Before
 * release after last use, every intermediate lived until the run ended
 * (six arrays on the CPU backend, eleven on the interpreter).
 */
#include <criterion/criterion.h>

#include "core/backend/rt_array.h"
#include "cpu_support.h"
#include "support.h"

#include <stdlib.h>

TestSuite(lifetimes, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

static const char chain[] =
    "chain (x : Vector f32) : Vector f32 =\n"
    "  let a = scanl1 (+) x; b = scanl1 max (map (* 0.5) a);\n"
    "      c = scanl1 (+) (map (* 0.25) b); d = scanl1 max (map (* 0.5) c);\n"
    "      e = scanl1 (+) (map (* 0.125) d); f = scanl1 max (map (* 0.5) e)\n"
    "  in f\n";

enum { N = 1 << 20 };

/* The peak of accel's host memory during one run of the chain, the
 * output written into the caller's buffer (so it is not counted). */
static uint64_t peak_of_run(acc_context *ctx)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, chain, (size_t)-1, NULL, &p), ACC_OK,
                 "%s", acc_last_error());
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    cr_assert(x && y);
    for (int64_t i = 0; i < N; i++)
        x[i] = (float)(i % 7) - 3.0f;
    int64_t n = N;
    acc_array in = ts_host(ACC_F32, 1, &n, x), out = ts_host(ACC_F32, 1, &n,
                                                            y);
    uint64_t before = rt_live_bytes();
    rt_reset_peak();
    cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
    uint64_t peak = rt_peak_bytes() - before;
    cr_expect_eq(rt_live_bytes(), before, "the run released everything");
    acc_program_free(p);
    free(x);
    free(y);
    return peak;
}

Test(lifetimes, the_chain_holds_two_intermediates_at_once_on_the_cpu)
{
    acc_context *ctx = ts_cpu_context();
    uint64_t peak = peak_of_run(ctx);
    uint64_t array = (uint64_t)N * sizeof(float);
    cr_expect_leq(peak, 2 * array, "peak %llu bytes, arrays of %llu",
                  (unsigned long long)peak, (unsigned long long)array);
    acc_context_destroy(ctx);
}

Test(lifetimes, the_chain_holds_three_arrays_at_once_on_the_interpreter)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    uint64_t peak = peak_of_run(ctx);
    uint64_t array = (uint64_t)N * sizeof(float);
    /* the step it runs, the scan its map reads, the array it reads */
    cr_expect_leq(peak, 3 * array, "peak %llu bytes, arrays of %llu",
                  (unsigned long long)peak, (unsigned long long)array);
    acc_context_destroy(ctx);
}
