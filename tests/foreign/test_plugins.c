/*
 * test_plugins.c — plugins (DESIGN.md §8): loading errors (missing plugin,
 * missing file, not a plugin, wrong ABI version), the plugin_path option,
 * the cblas and fftw plugins against the pure fallbacks of the standard
 * library, the same program without the plugin, and the example plugin.
 *
 * Tolerances: f64 results agree within 1e-9 (relative to the largest
 * magnitude), f32 within 1e-4; BLAS and FFTW sum in other orders than the
 * fallbacks, nothing more.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foreign_support.h"

static acc_context *plugin_context(const char *plugin)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.plugin_path = ACC_TEST_PLUGIN_DIR;
    o.plugins = "none"; /* only the plugin asked for */
    acc_context *ctx = NULL;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK);
    if (plugin)
        cr_assert_eq(acc_plugin_load(ctx, plugin), ACC_OK, "%s",
                     acc_last_error());
    return ctx;
}

Test(plugins, a_missing_plugin_names_the_folders_searched)
{
    acc_context *ctx = plugin_context(NULL);
    cr_assert_eq(acc_plugin_load(ctx, "nonexistent"), ACC_ERR_PLUGIN);
    const char *m = acc_context_last_error(ctx);
    cr_assert(strstr(m, "plugin 'nonexistent' not found: no "
                        "accel_nonexistent.so in the folders searched"), "%s", m);
    cr_assert(strstr(m, "ACC_PLUGIN_PATH="), "%s", m);
    cr_assert(strstr(m, "plugin_path=" ACC_TEST_PLUGIN_DIR), "%s", m);
    cr_assert(strstr(m, "install folder"), "%s", m);
    cr_assert_eq(acc_plugin_load(ctx, "/nonexistent/accel_x.so"),
                 ACC_ERR_PLUGIN);
    cr_assert(strstr(acc_last_error(), "plugin file /nonexistent/accel_x.so "
                     "does not exist"), "%s", acc_last_error());
    cr_assert_eq(acc_plugin_load(ctx, ACC_TEST_FNS_LIB), ACC_ERR_PLUGIN);
    cr_assert(strstr(acc_last_error(), "is not an accel plugin: it has no "
                     "symbol acc_plugin_entry"), "%s", acc_last_error());
    cr_assert_eq(acc_plugin_load(ctx, NULL), ACC_ERR_INVALID_ARGUMENT);
    acc_context_destroy(ctx);
}

Test(plugins, a_plugin_built_for_another_abi_is_refused_naming_both_versions)
{
    acc_context *ctx = plugin_context(NULL);
    char want[200];
    cr_assert_eq(acc_plugin_load(ctx, ACC_TEST_BAD_PLUGIN),
                 ACC_ERR_ABI_MISMATCH);
    snprintf(want, sizeof want, "was built for accel ABI version %u, but this "
             "library has ABI version %u", ACC_ABI_VERSION + 1,
             ACC_ABI_VERSION);
    cr_assert(strstr(acc_last_error(), want), "%s", acc_last_error());
    cr_assert(strstr(acc_last_error(), "plugin 'bad_abi'"), "%s",
              acc_last_error());
    char *list = NULL;
    cr_assert_eq(acc_foreign_list(ctx, &list), ACC_OK);
    cr_assert_str_eq(list, "", "nothing of the plugin is kept");
    acc_free(list);
    acc_context_destroy(ctx);
}

Test(plugins, the_example_plugin_loads_and_computes)
{
    FILE *f = fopen(ACC_TEST_EXAMPLE_PLUGIN, "r");
    if (!f)
        cr_skip_test("examples are not built");
    fclose(f);
    acc_context *ctx = plugin_context(ACC_TEST_EXAMPLE_PLUGIN);
    cr_assert_eq(acc_plugin_load(ctx, ACC_TEST_EXAMPLE_PLUGIN), ACC_OK,
                 "loading twice does nothing");
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *p = acc_param(g, acc_node_type(xs));
    acc_node *norm = acc_foreign(g, "example.norm2", acc_lambda(
        g, 1, &p, acc_map(g, NULL, NULL)), xs);
    cr_assert_null(norm, "the builder refuses a NULL function");
    acc_graph_free(g);
    g = ts_graph(ctx);
    xs = acc_input(g, acc_type_scalar(ACC_F64), 1);
    p = acc_param(g, acc_node_type(xs));
    acc_node *v = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *root = acc_lambda(g, 1, &v, acc_unop(g, ACC_OP_SQRT, v));
    acc_node *fallback = acc_lambda(g, 1, &p, acc_map(g, root, acc_dot(g, p,
                                                                       p)));
    acc_program *prog = tf_compile(ctx, g, acc_foreign(g, "example.norm2",
                                                       fallback, xs));
    char *plan = tf_plan(prog);
    cr_assert(strstr(plan, "uses: example.norm2.loop (plugin example"), "%s",
              plan);
    acc_free(plan);
    double x[2] = {3, 4};
    int64_t n = 2;
    acc_array in = tf_f64(1, &n, x), o;
    tf_run(prog, 1, &in, 1, &o);
    cr_assert_eq(*(double *)o.data[0], 5.0);
    acc_array_release(&o);
    acc_program_free(prog);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* ---- plugin results against the fallbacks ---------------------------------- */

typedef acc_node *(*binary_op)(acc_graph *g, acc_node *a, acc_node *b);
typedef acc_node *(*unary_op)(acc_graph *g, acc_node *a);

/* Runs op over inputs of the given ranks/extents and element type (f64 or
 * f32 data from the f64 arrays) in ctx; returns the output as f64 values
 * (malloc'd; leaves re then im for pairs) and the plan. */
typedef struct run_spec {
    acc_scalar e;
    int pairs;                 /* inputs and output are (re, im) arrays */
    size_t n_in;
    int32_t rank[2];
    int64_t ext[2][2];
    const double *data[2][2];  /* per input, per leaf */
    binary_op op2;
    unary_op op1;
} run_spec;

static size_t count(int32_t rank, const int64_t *ext)
{
    size_t n = 1;
    for (int32_t d = 0; d < rank; d++)
        n *= (size_t)ext[d];
    return n;
}

static void *leaf_buffer(acc_scalar e, const double *src, size_t n)
{
    void *b = malloc(n * 8 + 8);
    for (size_t i = 0; i < n; i++) {
        if (e == ACC_F32)
            ((float *)b)[i] = (float)src[i];
        else
            ((double *)b)[i] = src[i];
    }
    return b;
}

static double *run_op(acc_context *ctx, const run_spec *s, size_t *n_out,
                      char **plan)
{
    const acc_type *e = acc_type_scalar(s->e);
    const acc_type *pair[2] = {e, e};
    const acc_type *elem = s->pairs ? acc_type_tuple(ctx, 2, pair) : e;
    acc_graph *g = ts_graph(ctx);
    acc_node *in[2];
    acc_array arrays[2], o;
    void *bufs[2][2] = {{NULL, NULL}, {NULL, NULL}};
    for (size_t i = 0; i < s->n_in; i++) {
        in[i] = acc_input(g, elem, s->rank[i]);
        size_t n = count(s->rank[i], s->ext[i]);
        for (int l = 0; l < (s->pairs ? 2 : 1); l++)
            bufs[i][l] = leaf_buffer(s->e, s->data[i][l], n);
        arrays[i] = ts_host_array(elem, s->rank[i], s->ext[i], bufs[i]);
    }
    acc_node *r = s->op2 ? s->op2(g, in[0], in[1]) : s->op1(g, in[0]);
    acc_program *p = tf_compile(ctx, g, r);
    *plan = tf_plan(p);
    tf_run(p, s->n_in, arrays, 1, &o);
    size_t n = (size_t)acc_array_size(&o), leaves = s->pairs ? 2 : 1;
    double *out = malloc((n * leaves + 1) * sizeof *out);
    for (size_t l = 0; l < leaves; l++)
        for (size_t i = 0; i < n; i++)
            out[l * n + i] = s->e == ACC_F32 ? ((float *)o.data[l])[i]
                                             : ((double *)o.data[l])[i];
    *n_out = n * leaves;
    acc_array_release(&o);
    acc_program_free(p);
    acc_graph_free(g);
    for (size_t i = 0; i < 2; i++)
        for (int l = 0; l < 2; l++)
            free(bufs[i][l]);
    return out;
}

/* The plugin's result equals the fallback's within the tolerance, and the
 * plans say which ran. */
static void compare(const char *plugin, const run_spec *s, const char *uses)
{
    acc_context *with = plugin_context(plugin), *without = plugin_context(NULL);
    size_t n1 = 0, n2 = 0;
    char *plan1 = NULL, *plan2 = NULL;
    double *a = run_op(with, s, &n1, &plan1);
    double *b = run_op(without, s, &n2, &plan2);
    cr_assert(strstr(plan1, uses), "%s", plan1);
    cr_assert(strstr(plan2, "fallback: no implementation"), "%s", plan2);
    cr_assert_eq(n1, n2);
    double scale = 1.0;
    for (size_t i = 0; i < n2; i++)
        scale = fmax(scale, fabs(b[i]));
    double tol = s->e == ACC_F32 ? 1e-4 : 1e-9;
    cr_assert_leq(tf_max_diff(a, b, n1) / scale, tol, "%s: %g", uses,
                  tf_max_diff(a, b, n1));
    free(a);
    free(b);
    acc_free(plan1);
    acc_free(plan2);
    acc_context_destroy(with);
    acc_context_destroy(without);
}

static double data_a[64], data_b[64], data_c[64], data_d[64];

static void fill_data(void)
{
    for (int i = 0; i < 64; i++) {
        data_a[i] = sin(0.7 * i) + 0.25;
        data_b[i] = cos(1.3 * i) - 0.5;
        data_c[i] = 0.01 * i * i - 0.3;
        data_d[i] = (i % 7) - 3.0;
    }
}

#ifdef ACC_TEST_HAVE_CBLAS
Test(plugins, cblas_dot_gemv_gemm_agree_with_the_fallbacks, .init = fill_data)
{
    for (int k = 0; k < 2; k++) {
        acc_scalar e = k ? ACC_F32 : ACC_F64;
        run_spec dot = {e, 0, 2, {1, 1}, {{13}, {11}},
                        {{data_a}, {data_b}}, acc_dot, NULL};
        compare("cblas", &dot, "uses: cblas.dot (plugin cblas, priority 10)");
        run_spec gemv = {e, 0, 2, {2, 1}, {{5, 7}, {7}},
                         {{data_a}, {data_b}}, acc_gemv, NULL};
        compare("cblas", &gemv, "uses: cblas.gemv");
        run_spec gemm = {e, 0, 2, {2, 2}, {{4, 6}, {6, 5}},
                         {{data_a}, {data_b}}, acc_gemm, NULL};
        compare("cblas", &gemm, "uses: cblas.gemm");
        run_spec cut = {e, 0, 2, {2, 2}, {{3, 6}, {4, 2}},
                        {{data_a}, {data_b}}, acc_gemm, NULL};
        compare("cblas", &cut, "uses: cblas.gemm");
    }
}

/* 2.5 x + y through the foreign blas.axpy. */
static acc_node *axpy(acc_graph *g, acc_node *x, acc_node *y)
{
    acc_node *a = acc_unit(g, acc_const_f64(g, ACC_F64, 2.5));
    acc_node *items[3] = {a, x, y};
    return tf_axpy(g, acc_tuple(g, 3, items));
}

Test(plugins, cblas_axpy_agrees_with_its_fallback, .init = fill_data)
{
    run_spec s = {ACC_F64, 0, 2, {1, 1}, {{9}, {12}}, {{data_c}, {data_d}},
                  axpy, NULL};
    compare("cblas", &s, "uses: cblas.axpy");
}

Test(plugins, cblas_refuses_integers_and_the_fallback_runs)
{
    acc_context *ctx = plugin_context("cblas");
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I32), 1);
    acc_program *p = tf_compile(ctx, g, acc_dot(g, xs, xs));
    char *plan = tf_plan(p);
    cr_assert(strstr(plan, "fallback: cblas.dot refused (the element type is "
                           "not f32 or f64)"), "%s", plan);
    acc_free(plan);
    char *list = NULL;
    cr_assert_eq(acc_foreign_list(ctx, &list), ACC_OK);
    cr_assert(strstr(list, "blas.dot cblas.dot backend=cpu priority=10 "
                           "from=plugin cblas; OpenBLAS"), "%s", list);
    acc_free(list);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}
#endif

#ifdef ACC_TEST_HAVE_FFTW
static acc_node *fft_then_ifft(acc_graph *g, acc_node *xs)
{
    return acc_ifft(g, acc_fft(g, xs));
}

Test(plugins, fftw_transforms_agree_with_the_fallbacks, .init = fill_data)
{
    static const int64_t shapes[][2] = {{8, 0}, {6, 0}, {4, 8}, {3, 5}};
    static const int32_t ranks[] = {1, 1, 2, 2};
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < 4; s++) {
            acc_scalar e = k ? ACC_F32 : ACC_F64;
            run_spec f = {e, 1, 1, {ranks[s]}, {{shapes[s][0], shapes[s][1]}},
                          {{data_a, data_b}}, NULL, acc_fft};
            compare("fftw", &f, "uses: fftw.forward (plugin fftw");
            f.op1 = acc_ifft;
            compare("fftw", &f, "uses: fftw.inverse (plugin fftw");
        }
}

Test(plugins, fftw_inverse_undoes_forward, .init = fill_data)
{
    acc_context *ctx = plugin_context("fftw");
    run_spec s = {ACC_F64, 1, 1, {2}, {{5, 3}}, {{data_c, data_d}}, NULL,
                  fft_then_ifft};
    size_t n = 0;
    char *plan = NULL;
    double *r = run_op(ctx, &s, &n, &plan);
    cr_assert_eq(n, 30);
    cr_assert_leq(tf_max_diff(r, data_c, 15), 1e-12);
    cr_assert_leq(tf_max_diff(r + 15, data_d, 15), 1e-12);
    free(r);
    acc_free(plan);
    acc_context_destroy(ctx);
}
#endif
