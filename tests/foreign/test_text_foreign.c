/*
 * test_text_foreign.c — the text language's `foreign` (LANGUAGE.md §3.8,
 * the dotBlas program of §4) builds a real foreign node: without a plugin
 * the plan says the fallback runs and why; with the cblas plugin loaded the
 * same program calls cblas; both give the dot product.
 */
#include <criterion/criterion.h>

#include "support.h"
#include "text_sources.h"

#include <math.h>
#include <string.h>

static float dot_blas(acc_context *ctx, char **plan)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, ts_language4_source(), (size_t)-1,
                                  "dotBlas", &p), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(acc_program_explain(p, 0, plan), ACC_OK);
    float x[5] = {1, 2, 3, 4, 5}, y[5] = {2, 0.5f, -1, 0, 3}, r = 0;
    int64_t e[1] = {5};
    void *px[1] = {x}, *py[1] = {y}, *pr[1] = {&r};
    acc_array in[2] = {ts_host_array(acc_type_scalar(ACC_F32), 1, e, px),
                       ts_host_array(acc_type_scalar(ACC_F32), 1, e, py)};
    acc_array out = ts_host_array(acc_type_scalar(ACC_F32), 0, NULL, pr);
    cr_assert_eq(acc_run(p, 2, in, 1, &out), ACC_OK, "%s", acc_last_error());
    acc_program_free(p);
    return r;
}

Test(text_foreign, dotblas_uses_the_fallback_without_a_plugin)
{
    acc_context *ctx = ts_context_without_plugins(ACC_BACKEND_INTERP);
    char *plan = NULL;
    float r = dot_blas(ctx, &plan);
    cr_expect_float_eq(r, 2 + 1 - 3 + 0 + 15, 1e-6);
    cr_expect(strstr(plan, "blas.dot"), "%s", plan);
    cr_expect(strstr(plan, "fallback"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}

#ifdef ACC_TEST_HAVE_CBLAS
Test(text_foreign, dotblas_calls_cblas_when_the_plugin_is_loaded)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.plugin_path = ACC_TEST_PLUGIN_DIR;
    o.plugins = "none"; /* only the plugin loaded below */
    acc_context *ctx = NULL;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK);
    cr_assert_eq(acc_plugin_load(ctx, "cblas"), ACC_OK, "%s",
                 acc_last_error());
    char *plan = NULL;
    float r = dot_blas(ctx, &plan);
    cr_expect_float_eq(r, 15, 1e-6);
    cr_expect(strstr(plan, "cblas.dot"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}
#endif

#ifdef ACC_TEST_HAVE_FFTW
/* fft in the text language is "fft.forward": the fftw plugin computes it
 * when loaded, and agrees with the pure fallback. */
static const char fft_source[] =
    "spectrum (xs : Vector (f64, f64)) : Vector (f64, f64) = fft xs\n";

static void run_fft(acc_context *ctx, double *re, double *im, char **plan)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, fft_source, (size_t)-1, NULL, &p),
                 ACC_OK, "%s", acc_last_error());
    cr_assert_eq(acc_program_explain(p, 0, plan), ACC_OK);
    double xr[8] = {1, 2, 3, 4, 0, -1, 2, 0.5}, xi[8] = {0, 1, 0, -1, 2, 0, 0, 1};
    int64_t e[1] = {8};
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    const acc_type *pair_fields[2] = {f64, f64};
    void *px[2] = {xr, xi}, *po[2] = {re, im};
    const acc_type *pair = acc_type_tuple(ctx, 2, pair_fields);
    acc_array in = ts_host_array(pair, 1, e, px);
    acc_array out = ts_host_array(pair, 1, e, po);
    cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
    acc_program_free(p);
}

Test(text_foreign, fft_uses_fftw_when_loaded_and_agrees_with_the_fallback)
{
    double re0[8], im0[8], re1[8], im1[8];
    char *plan0 = NULL, *plan1 = NULL;
    acc_context *plain = ts_context_without_plugins(ACC_BACKEND_INTERP);
    run_fft(plain, re0, im0, &plan0);
    cr_expect(strstr(plan0, "fft.forward") && strstr(plan0, "fallback"), "%s",
              plan0);
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.plugin_path = ACC_TEST_PLUGIN_DIR;
    o.plugins = "none"; /* only the plugin loaded below */
    acc_context *with = NULL;
    cr_assert_eq(acc_context_create(&o, &with), ACC_OK);
    cr_assert_eq(acc_plugin_load(with, "fftw"), ACC_OK, "%s", acc_last_error());
    run_fft(with, re1, im1, &plan1);
    cr_expect(strstr(plan1, "fftw"), "%s", plan1);
    for (int k = 0; k < 8; k++) {
        cr_expect(fabs(re0[k] - re1[k]) < 1e-9, "re[%d]: %g vs %g", k, re0[k],
                  re1[k]);
        cr_expect(fabs(im0[k] - im1[k]) < 1e-9, "im[%d]: %g vs %g", k, im0[k],
                  im1[k]);
    }
    acc_free(plan0);
    acc_free(plan1);
    acc_context_destroy(plain);
    acc_context_destroy(with);
}
#endif
