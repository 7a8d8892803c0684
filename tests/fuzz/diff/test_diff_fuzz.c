/*
 * test_diff_fuzz.c — the fixed-seed slice of the differential fuzzer
 * (docs/TESTING.md): seeds 1 .. ACC_DIFF_FUZZ_SEEDS (cmake sets fewer in a
 * sanitizer build), each a random program run on 4 data sets in every
 * configuration (the interpreter with and without fusion, cpu, cuda when
 * there is a device) and the CUDA source of every 4th compiled by NVRTC;
 * then the regression seeds (regressions.c).  The slice leaves out the
 * patterns of the bugs still open (dz_options.avoid); `make fuzz-diff`
 * runs random seeds for longer.  A failure prints its seed and the
 * command that reproduces it.
 */
#include <criterion/criterion.h>

#include "cpu_support.h"
#include "diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

TestSuite(diff_fuzz, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

static const char repro_tool[] = "build/tests/fuzz/diff/fuzz_diff";

static size_t slice_seeds(void)
{
    const char *env = getenv("ACC_DIFF_FUZZ_SEEDS");
    long n = env ? atol(env) : 0;
    return n > 0 ? (size_t)n : 60;
}

static dz_batch batch(void)
{
    return (dz_batch){.seed_timeout = 120, .cache_dir = ts_cpu_cache_dir,
                      .argv0 = repro_tool};
}

/* Runs batch b with options o into *st; logs each failing seed and
 * expects none.  Returns the number of failing seeds. */
static size_t run_expecting_agreement(const dz_batch *b, const dz_options *o,
                                      dz_stats *st)
{
    enum { MAX_FAIL = 8 };
    dz_failure f[MAX_FAIL];
    size_t bad = dz_run_batch(b, o, st, f, MAX_FAIL);
    dz_print_stats(stderr, st, 0);
    for (size_t i = 0; i < bad && i < MAX_FAIL; i++)
        cr_log_error("seed %" PRIu64 ": %s", f[i].seed, f[i].what);
    cr_expect_eq(bad, 0, "%zu of %zu seeds failed (see above)", bad,
                 b->n_seeds);
    return bad;
}

Test(diff_fuzz, fixed_seeds_agree_with_the_interpreter, .timeout = 280)
{
    dz_options o;
    dz_options_default(&o);
    o.nvrtc = 4;
    dz_batch b = batch();
    b.first = 1;
    b.n_seeds = slice_seeds();
    dz_stats st;
    run_expecting_agreement(&b, &o, &st);
    cr_expect_eq(st.programs, b.n_seeds);
    if (st.per_config_programs[DZ_CPU] == 0)
        cr_skip_test("the cpu backend is not available: only the "
                     "interpreter's fusion was checked");
    cr_expect_eq(st.per_config_runs[DZ_CPU], 4 * b.n_seeds);
    /* most runs must compute values for the comparison to mean much */
    cr_expect_gt(st.runs_ok, st.runs_err, "%" PRIu64 " runs computed values, %"
                 PRIu64 " failed", st.runs_ok, st.runs_err);
}

/* Programs that are one fold over their inputs (dz_options.single_fold):
 * the cpu's second run on each data set goes direct (cpu_direct.h), and
 * must equal the first run and the interpreter; the count shows that the
 * direct path ran at all. */
Test(diff_fuzz, single_fold_programs_agree_and_run_direct, .timeout = 280)
{
    dz_options o;
    dz_options_default(&o);
    o.nvrtc = 0;
    o.single_fold = 1;
    dz_batch b = batch();
    b.first = 1;
    b.n_seeds = slice_seeds() < 40 ? slice_seeds() : 40; /* 16: sanitizers */
    dz_stats st;
    run_expecting_agreement(&b, &o, &st);
    if (st.per_config_programs[DZ_CPU] == 0)
        cr_skip_test("the cpu backend is not available: no direct runs");
    cr_expect_gt(st.direct_runs, 0, "no cpu run went direct in %zu "
                 "single-fold programs", b.n_seeds);
    /* the seeds of this mode that found a bug (regressions.c holds the
     * default generator's) */
    static const uint64_t found[] = {
        1122, /* a loop's hoisted dead term used an undeclared leaf of
                 expand's element: the cpu kernel did not compile
                 (core/codegen/kernel_fill.c, cg_param_locals) */
    };
    b.seeds = found;
    b.n_seeds = sizeof found / sizeof *found;
    run_expecting_agreement(&b, &o, &st);
}

/* The fuzzer itself: a changed output, a crash and a hang are failures
 * of their seeds, and the next seeds still run. */
Test(diff_fuzz, differences_crashes_and_hangs_are_failures, .timeout = 120)
{
    dz_options o;
    dz_options_default(&o);
    o.nvrtc = 0;
    o.n_data = 2;
    dz_batch b = batch();
    b.first = 1;
    b.n_seeds = 4;
    b.quiet = 1;
    dz_failure f[4];
    dz_stats st;
    o.inject = 1;
    size_t bad = dz_run_batch(&b, &o, &st, f, 4);
    cr_expect_geq(bad, 2, "a corrupted cpu output is found: %zu of 4", bad);
    for (size_t i = 0; i < bad; i++)
        cr_expect(strstr(f[i].what, "cpu output") != NULL, "%s", f[i].what);
    o.inject = 2;
    b.n_seeds = 2;
    cr_expect_eq(dz_run_batch(&b, &o, &st, f, 4), 2);
    cr_expect(strstr(f[1].what, "crashed") != NULL, "%s", f[1].what);
    cr_expect_eq(st.crashes, 2);
    o.inject = 3;
    b.n_seeds = 1;
    b.seed_timeout = 1;
    cr_expect_eq(dz_run_batch(&b, &o, &st, f, 4), 1);
    cr_expect(strstr(f[0].what, "did not finish") != NULL, "%s", f[0].what);
}

Test(diff_fuzz, regression_seeds_agree, .timeout = 280)
{
    dz_options o;
    dz_options_default(&o);
    o.nvrtc = 1;
    size_t ran = 0;
    for (size_t i = 0; i < dz_n_regressions; i++) {
        const dz_regression *g = &dz_regressions[i];
        if (g->open) {
            cr_log_info("seed %" PRIu64 " skipped until %s is merged (%s)",
                        g->seed, g->open, g->found);
            continue;
        }
        dz_batch b = batch();
        b.seeds = &g->seed;
        b.n_seeds = 1;
        dz_regression_options(g, &o);
        dz_failure f;
        dz_stats st;
        size_t bad = dz_run_batch(&b, &o, &st, &f, 1);
        cr_expect_eq(bad, 0, "regression seed %" PRIu64 " (%s) fails again: %s",
                     g->seed, g->found, bad ? f.what : "");
        ran++;
    }
    cr_log_info("%zu regression seeds ran", ran);
}
