/*
 * test_user_kernel.c — user C source as a foreign implementation
 * (acc_register_kernel, docs/PLUGINS.md "User kernels"): compiled by the
 * CPU backend's compiler, called with host pointers and extents on the
 * interp and cpu backends, split over the thread pool, scalar functions
 * put into generated kernels, a signature that does not fit (the fallback
 * runs, the plan says why), source that does not compile (the compiler's
 * message), bad arguments, and the text language.  Every result is
 * compared with the fallback's, computed by a context without the kernel.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "foreign_support.h"

static const char scale_src[] =
    "void scale(const double *x, double *out, int64_t n)\n"
    "{\n"
    "    for (int64_t i = 0; i < n; i++)\n"
    "        out[i] = 3 * x[i] + 1;\n"
    "}\n";

static acc_user_kernel kernel_of(const char *name, const char *source,
                                 const char *entry, const char *sig)
{
    return tf_user_kernel(name, ACC_BACKEND_CPU, source, entry, sig);
}

/* foreign NAME (map (\v -> 3 v + 1)) xs, over a vector of type s */
static acc_node *scale_node(acc_context *ctx, acc_graph *g, const char *name,
                            acc_scalar s)
{
    const acc_type *t = acc_type_scalar(s);
    acc_node *xs = acc_input(g, t, 1);
    acc_node *p = acc_param(g, acc_type_array(ctx, t, 1));
    acc_node *v = acc_param(g, t);
    acc_node *body = acc_binop(g, ACC_OP_ADD, acc_binop(
        g, ACC_OP_MUL, acc_const_f64(g, s, 3), v), acc_const_f64(g, s, 1));
    acc_node *f = acc_lambda(g, 1, &p, acc_map(g, acc_lambda(g, 1, &v, body),
                                               p));
    return acc_foreign(g, name, f, xs);
}

/* Runs `foreign "uk.scale" ... xs` in ctx on n values; returns the plan. */
static char *run_scale(acc_context *ctx, acc_scalar s, const double *x,
                       int64_t n, double *out)
{
    acc_graph *g = ts_graph(ctx);
    acc_program *p = tf_compile(ctx, g, scale_node(ctx, g, "uk.scale", s));
    char *plan = tf_plan(p);
    acc_array in = tf_f64(1, &n, (double *)x), o;
    tf_run(p, 1, &in, 1, &o);
    cr_assert_eq(o.extents[0], n);
    memcpy(out, o.data[0], (size_t)n * sizeof *out);
    acc_array_release(&o);
    acc_program_free(p);
    acc_graph_free(g);
    return plan;
}

static void expect_scale_kernel_on(acc_backend b)
{
    enum { N = 1000 };
    static double x[N], got[N], want[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.25 * i - 7;
    acc_context *ctx = ts_context(b), *ref = ts_context_without_plugins(b);
    acc_user_kernel k = kernel_of("uk.scale", scale_src, "scale",
                                  "void(const f64*, f64*, i64)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    char *plan = run_scale(ctx, ACC_F64, x, N, got);
    cr_expect(strstr(plan, "uses: kernel:scale (user kernel, priority 0)"),
              "%s", plan);
    acc_free(plan);
    plan = run_scale(ref, ACC_F64, x, N, want);
    cr_expect(strstr(plan, "fallback"), "%s", plan);
    acc_free(plan);
    cr_expect_eq(tf_max_diff(got, want, N), 0.0);
    char *list = NULL;
    cr_assert_eq(acc_foreign_list(ctx, &list), ACC_OK);
    cr_expect(strstr(list, "uk.scale kernel:scale backend=interp priority=0 "
                           "from=user kernel; user C kernel scale"), "%s",
              list);
    acc_free(list);
    acc_context_destroy(ref);
    acc_context_destroy(ctx);
}

Test(user_kernel, a_c_kernel_runs_on_the_interpreter_like_its_fallback)
{
    expect_scale_kernel_on(ACC_BACKEND_INTERP);
}

Test(user_kernel, a_c_kernel_runs_on_the_cpu_backend_like_its_fallback)
{
    expect_scale_kernel_on(ACC_BACKEND_CPU);
}

Test(user_kernel, a_signature_that_does_not_fit_leaves_the_fallback)
{
    enum { N = 9 };
    double x[N], got[N], want[N];
    for (int i = 0; i < N; i++)
        x[i] = i * 1.5;
    acc_context *ctx = ts_context(ACC_BACKEND_CPU);
    acc_context *ref = ts_context_without_plugins(ACC_BACKEND_CPU);
    static const char src[] =
        "void scale32(const float *x, float *out, int64_t n)\n"
        "{ for (int64_t i = 0; i < n; i++) out[i] = -x[i]; }\n";
    acc_user_kernel k = kernel_of("uk.scale", src, "scale32",
                                  "void(const f32*, f32*, i64)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    char *plan = run_scale(ctx, ACC_F64, x, N, got);
    cr_expect(strstr(plan, "uses: fallback: kernel:scale32 refused (C "
                           "signature: parameter 1 has another element type "
                           "than the argument array it receives)"), "%s",
              plan);
    acc_free(plan);
    acc_free(run_scale(ref, ACC_F64, x, N, want));
    cr_expect_eq(tf_max_diff(got, want, N), 0.0);
    acc_context_destroy(ref);
    acc_context_destroy(ctx);
}

Test(user_kernel, source_that_does_not_compile_reports_the_compiler_message)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_user_kernel k = kernel_of("uk.bad", "void bad(double *x)\n{\n"
                                  "    x[0] = 1 +;\n}\n", "bad",
                                  "void(f64*)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_ERR_COMPILE);
    const char *m = acc_last_error();
    cr_expect(strstr(m, "acc_register_kernel: 'uk.bad': the C source does "
                        "not compile"), "%s", m);
    cr_expect(strstr(m, "uk.bad:3:"), "the line of the user's source: %s", m);
    cr_expect(strstr(m, "error"), "%s", m);
    /* an entry the source does not define */
    k = kernel_of("uk.none", scale_src, "scale_f64",
                  "void(const f64*, f64*, i64)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_ERR_COMPILE);
    cr_expect(strstr(acc_last_error(), "scale_f64"), "%s", acc_last_error());
    /* nothing was registered */
    char *list = NULL;
    cr_assert_eq(acc_foreign_list(ctx, &list), ACC_OK);
    cr_expect(!strstr(list, "uk."), "%s", list);
    acc_free(list);
    acc_context_destroy(ctx);
}

Test(user_kernel, bad_arguments_are_refused_with_a_message)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    cr_expect_eq(acc_register_kernel(ctx, NULL), ACC_ERR_INVALID_ARGUMENT);
    acc_user_kernel k = kernel_of("uk.scale", scale_src, "scale(); int x",
                                  "void(const f64*, f64*, i64)");
    cr_expect_eq(acc_register_kernel(ctx, &k), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "a C identifier"), "%s",
              acc_last_error());
    k = kernel_of("uk.scale", scale_src, "scale", "void(const f64*, f65*)");
    cr_expect_eq(acc_register_kernel(ctx, &k), ACC_ERR_PARSE);
    cr_expect(strstr(acc_last_error(), "position 17"), "%s",
              acc_last_error());
    k = kernel_of("uk.scale", scale_src, "scale",
                  "void(const f64*, f64*, i64)");
    k.split = 1; /* without lo and hi */
    cr_expect_eq(acc_register_kernel(ctx, &k), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "two i64 parameters"), "%s",
              acc_last_error());
    k.split = 0;
    k.struct_size = 8;
    cr_expect_eq(acc_register_kernel(ctx, &k), ACC_ERR_INVALID_ARGUMENT);
    k.struct_size = sizeof k;
    k.backend = (acc_backend)7;
    cr_expect_eq(acc_register_kernel(ctx, &k), ACC_ERR_INVALID_ARGUMENT);
    acc_context_destroy(ctx);
}

/* Files named *.so under folder `dir` (any depth); the last one's inode
 * into *ino. */
static int count_objects(const char *dir, ino_t *ino)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char sub[1024];
        size_t len = strlen(e->d_name);
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".so") == 0) {
            n++;
            if (stat(sub, &st) == 0)
                *ino = st.st_ino;
        } else {
            n += count_objects(sub, ino);
        }
    }
    if (d)
        closedir(d);
    return n;
}

static void remove_tree(const char *dir)
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

Test(user_kernel, the_compiled_source_is_kept_in_the_kernel_cache)
{
    char dir[] = "/tmp/accel_uk_cacheXXXXXX";
    ino_t first = 0, ino = 0;
    cr_assert_not_null(mkdtemp(dir));
    for (int round = 0; round < 2; round++) {
        acc_context_options o;
        acc_context_options_init(&o);
        o.backend = ACC_BACKEND_INTERP; /* (a cpu context would probe its
                                           compiler in the new folder) */
        o.cache_dir = dir;
        o.plugins = "none";
        acc_context *ctx = NULL;
        cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s",
                     acc_last_error());
        acc_user_kernel k = kernel_of("uk.scale", scale_src, "scale",
                                      "void(const f64*, f64*, i64)");
        cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                     acc_last_error());
        /* one object, compiled the first time, found the second (a new
         * compile would have renamed a new file over it) */
        cr_expect_eq(count_objects(dir, &ino), 1, "round %d", round);
        if (round == 0)
            first = ino;
        acc_context_destroy(ctx);
    }
    cr_expect_eq(ino, first, "the second context compiled it again");
    remove_tree(dir);
}

/* ---- split over the thread pool ------------------------------------------------ */

/* out[i, j] = x[i, j] * (i + 1); from[i] = the lo of the call that did row
 * i, so the test sees the ranges. */
static const char rows_src[] =
    "void rows(const double *x, const int64_t *ids, double *out,\n"
    "          int64_t *from, int64_t m, int64_t n, int64_t m2,\n"
    "          int64_t lo, int64_t hi)\n"
    "{\n"
    "    (void)ids, (void)m, (void)m2;\n"
    "    for (int64_t i = lo; i < hi; i++) {\n"
    "        from[i] = lo;\n"
    "        for (int64_t j = 0; j < n; j++)\n"
    "            out[i * n + j] = x[i * n + j] * (double)(i + 1);\n"
    "    }\n"
    "}\n";

Test(user_kernel, a_split_kernel_computes_every_row_in_several_ranges)
{
    enum { M = 400, N = 3 };
    static double x[M * N];
    static int64_t ids[M];
    for (int i = 0; i < M * N; i++)
        x[i] = i % 17 - 8;
    for (int i = 0; i < M; i++)
        ids[i] = i;
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.num_threads = 4;
    acc_context *ctx = NULL;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s", acc_last_error());
    acc_user_kernel k = kernel_of(
        "uk.rows", rows_src, "rows",
        "void(const f64*, const i64*, f64*, i64*, i64, i64, i64, i64, i64)");
    k.split = 1;
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, ts_sc(ACC_F64), 2);
    acc_node *is = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *both[2] = {xs, is};
    acc_node *arg = acc_tuple(g, 2, both);
    /* the fallback gives other `from` values (0), the same products */
    acc_node *p = acc_param(g, acc_node_type(arg));
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *row = acc_get(g, ix, 0);
    acc_node *scaled = acc_lambda(g, 1, &ix, acc_binop(
        g, ACC_OP_MUL, acc_read(g, acc_get(g, p, 0), ix),
        acc_convert(g, acc_binop(g, ACC_OP_ADD, row, ts_i64(g, 1)), ACC_F64)));
    acc_node *res[2] = {
        acc_generate(g, acc_shape(g, acc_get(g, p, 0)), scaled),
        acc_map(g, ts_lam1(g, acc_param(g, ts_sc(ACC_I64)), ts_i64(g, 0)),
                acc_get(g, p, 1))};
    acc_node *fb = acc_lambda(g, 1, &p, acc_tuple(g, 2, res));
    acc_node *r = acc_foreign(g, "uk.rows", fb, arg);
    acc_program *prog = tf_compile(ctx, g, r);
    char *plan = tf_plan(prog);
    cr_expect(strstr(plan, "uses: kernel:rows (user kernel"), "%s", plan);
    acc_free(plan);
    int64_t e2[2] = {M, N}, e1 = M;
    void *px[1] = {x}, *pi[1] = {ids};
    acc_array in[2] = {ts_host_array(ts_sc(ACC_F64), 2, e2, px),
                       ts_host_array(ts_sc(ACC_I64), 1, &e1, pi)};
    acc_array out[2];
    tf_run(prog, 2, in, 2, out);
    const double *v = out[0].data[0];
    const int64_t *from = out[1].data[0];
    int ranges = 0;
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++)
            cr_assert_eq(v[i * N + j], x[i * N + j] * (i + 1));
        cr_assert(from[i] <= i && (i == 0 || from[i] >= from[i - 1]));
        ranges += from[i] == i;
    }
    cr_expect_gt(ranges, 1, "the rows were computed in %d range(s)", ranges);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
    acc_program_free(prog);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* ---- scalar functions ------------------------------------------------------------ */

static const char hyp_src[] =
    "#include <math.h>\n"
    "double uk_hyp(double a, double b) { return sqrt(a * a + b * b); }\n";

/* zipWith (\a b -> foreignExp "uk.hyp" (a + b) (a, b)) xs xs, on 3 values */
static void run_hyp(acc_context *ctx, double *out, char **plan)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, ts_sc(ACC_F64), 1);
    acc_node *a = acc_param(g, ts_sc(ACC_F64)), *b = acc_param(g, ts_sc(ACC_F64));
    acc_node *ab[2] = {a, b};
    acc_node *pair = acc_tuple(g, 2, ab);
    acc_node *v = acc_param(g, acc_node_type(pair));
    acc_node *fallback = acc_lambda(g, 1, &v, acc_binop(
        g, ACC_OP_ADD, acc_get(g, v, 0), acc_get(g, v, 1)));
    acc_node *h = acc_foreign_exp(g, "uk.hyp", fallback, pair);
    acc_node *arrays[2] = {xs, xs};
    acc_node *r = acc_zipwith(g, acc_lambda(g, 2, ab, h), 2, arrays);
    acc_program *p = tf_compile(ctx, g, r);
    *plan = tf_plan(p);
    double x[3] = {3, -5, 0.5};
    int64_t n = 3;
    acc_array in = tf_f64(1, &n, x), o;
    tf_run(p, 1, &in, 1, &o);
    memcpy(out, o.data[0], sizeof(double) * 3);
    acc_array_release(&o);
    acc_program_free(p);
    acc_graph_free(g);
}

static void expect_hyp_on(acc_backend backend)
{
    acc_context *ctx = ts_context(backend);
    acc_user_kernel k = kernel_of("uk.hyp", hyp_src, "uk_hyp",
                                  "f64(f64, f64)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    double got[3], x[3] = {3, -5, 0.5};
    char *plan = NULL;
    run_hyp(ctx, got, &plan);
    for (int i = 0; i < 3; i++)
        cr_expect_float_eq(got[i], sqrt(2 * x[i] * x[i]), 1e-12,
                           "%d: %g\n%s", i, got[i], plan);
    if (backend == ACC_BACKEND_CPU)
        cr_expect(strstr(plan, "kernels: 1,") &&
                      strstr(plan, " 0 steps interpreted"),
                  "the function is compiled into the kernel: %s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}

Test(user_kernel, a_scalar_function_implements_foreign_exp_on_the_interpreter)
{
    expect_hyp_on(ACC_BACKEND_INTERP);
}

Test(user_kernel, a_scalar_function_is_compiled_into_cpu_kernels)
{
    expect_hyp_on(ACC_BACKEND_CPU);
}

Test(user_kernel, a_cpu_kernel_applies_the_fallback_of_a_missing_function)
{
    acc_context *ctx = ts_context_without_plugins(ACC_BACKEND_CPU);
    double got[3], x[3] = {3, -5, 0.5};
    char *plan = NULL;
    run_hyp(ctx, got, &plan);
    for (int i = 0; i < 3; i++)
        cr_expect_eq(got[i], x[i] + x[i]);
    cr_expect(strstr(plan, "kernels: 1,") &&
                      strstr(plan, " 0 steps interpreted"),
              "the fallback is compiled into the kernel: %s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}

Test(user_kernel, a_library_c_function_in_a_cpu_step_is_still_called)
{
    /* not a user kernel: a C function of a library, which kernels cannot
     * call; the step goes to the interpreter, which calls it (the fallback
     * a + b would give other values) */
    acc_context *ctx = ts_context(ACC_BACKEND_CPU);
    cr_assert_eq(acc_register_c_function(ctx, "uk.hyp", ACC_TEST_FNS_LIB,
                                         "hypot_f64", "f64(f64, f64)"),
                 ACC_OK, "%s", acc_last_error());
    double got[3], x[3] = {3, -5, 0.5};
    char *plan = NULL;
    run_hyp(ctx, got, &plan);
    for (int i = 0; i < 3; i++)
        cr_expect_float_eq(got[i], hypot(x[i], x[i]), 1e-12, "%d", i);
    cr_expect(strstr(plan, " 1 steps interpreted"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}

/* ---- the text language ------------------------------------------------------------ */

Test(user_kernel, a_text_program_calls_a_registered_kernel)
{
    static const char program[] =
        "scaled (xs : Vector f64) : Vector f64 =\n"
        "  foreign \"uk.scale\" (map (\\v -> 3 * v + 1)) xs\n";
    enum { N = 50 };
    double x[N], got[N];
    for (int i = 0; i < N; i++)
        x[i] = i - 20.5;
    acc_context *ctx = ts_context(ACC_BACKEND_CPU);
    acc_user_kernel k = kernel_of("uk.scale", scale_src, "scale",
                                  "void(const f64*, f64*, i64)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, program, sizeof program - 1, "scaled",
                                  &p), ACC_OK, "%s", acc_last_error());
    char *plan = tf_plan(p);
    cr_expect(strstr(plan, "uses: kernel:scale"), "%s", plan);
    acc_free(plan);
    int64_t n = N;
    acc_array in = tf_f64(1, &n, x), o;
    tf_run(p, 1, &in, 1, &o);
    memcpy(got, o.data[0], sizeof got);
    for (int i = 0; i < N; i++)
        cr_expect_eq(got[i], 3 * x[i] + 1);
    acc_array_release(&o);
    acc_program_free(p);
    acc_context_destroy(ctx);
}
