/*
 * test_run_allocations.c — a small run of a compiled program allocates
 * nothing on the CPU backend (bench/README.md, "Small inputs, round
 * four"): the inputs' and the destination's wrappers live in acc_run's
 * frame (rt_wrap_at, destinations.h), the backend's run state is the
 * run_env, the kernel's arguments live in the launch (cpu_launch.h,
 * CPU_FEW_ARRAYS), and the value table and the evaluator's block are kept
 * by the program between runs.  Counted with mem_allocations(), which a
 * build configured with -DACC_ALLOC_FAIL=ON (both builds of make test)
 * maintains; skipped otherwise.
 */
#include <criterion/criterion.h>

#include "core/base/mem.h"
#include "cpu_support.h"
#include "support.h"

#include <stdint.h>
#include <stdlib.h>

TestSuite(run_allocations, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

static const char dotp_source[] =
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n";

static void skip_without_counts(void)
{
    uint64_t counted = mem_allocations();
    free(mem_alloc(1));
    if (mem_allocations() == counted)
        cr_skip_test("allocation counts are not built in (configure with "
                     "-DACC_ALLOC_FAIL=ON)");
}

/* The allocations of the second of two runs of dotp on n elements into
 * the caller's scalar (the first makes what the program keeps). */
static uint64_t second_run(acc_context *ctx, int64_t n, float *got)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, dotp_source, (size_t)-1, "dotp", &p),
                 ACC_OK, "%s", acc_last_error());
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    cr_assert(x && y);
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(i % 10);
        y[i] = (float)(i % 3);
    }
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, x), ts_host(ACC_F32, 1, &n, y)};
    acc_array out = ts_host(ACC_F32, 0, NULL, got);
    cr_assert_eq(acc_run(p, 2, in, 1, &out), ACC_OK, "%s", acc_last_error());
    uint64_t before = mem_allocations();
    cr_assert_eq(acc_run(p, 2, in, 1, &out), ACC_OK, "%s", acc_last_error());
    uint64_t made = mem_allocations() - before;
    acc_program_free(p);
    free(x);
    free(y);
    return made;
}

Test(run_allocations, small_dotp_on_cpu_allocates_nothing)
{
    skip_without_counts();
    acc_context *ctx = ts_cpu_context();
    float got = -1;
    /* below the threads' threshold: the fold runs on this thread */
    uint64_t made = second_run(ctx, 10000, &got);
    cr_expect_eq(made, 0, "a second run of dotp made %llu allocations",
                 (unsigned long long)made);
    double want = 0;
    for (int64_t i = 0; i < 10000; i++)
        want += (double)(i % 10) * (double)(i % 3);
    cr_expect_eq((double)got, want, "dotp gave %g, expected %g", (double)got,
                 want);
    acc_context_destroy(ctx);
}
