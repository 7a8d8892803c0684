/*
 * test_cuda_plugins_device.c — the cublas and cufft plugins computing on a
 * GPU through accel's cuda backend, checked against the pure fallbacks of
 * the standard library run by the interpreter on the same inputs.
 *
 * It needs what tests/foreign/test_cuda_plugins.c cannot have: a context
 * of the cuda backend (accel's cuda runtime and a device).  Where one
 * cannot be created, the runner prints one line, "gpu.test_cuda_plugins_
 * device: SKIPPED, nothing ran on a GPU: <why>", every test skips, and
 * ctest reports the test as skipped (cmake/AccelForeign.cmake sets its
 * SKIP_REGULAR_EXPRESSION), never as passed.
 *
 * Inputs and outputs are host arrays (the outputs' buffers are the
 * test's, of the extents the operation gives), so the runtime moves the
 * data; the plugins see device pointers and the runtime's stream.
 *
 * Tolerances, relative to the largest magnitude of the fallback's result:
 * f64 1e-9 and f32 1e-4, as for the host plugins (tests/foreign/
 * test_plugins.c): cuBLAS and cuFFT sum in other orders than the
 * fallbacks; the sums here have at most 1024 terms of magnitude ~1, whose
 * rounding stays far below those bounds.  cuBLAS's default math mode is
 * IEEE f32 (no TF32), which the f32 bound assumes.
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foreign_support.h"

static acc_context *cuda_context(char *why, size_t why_size)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CUDA;
    o.plugin_path = ACC_TEST_PLUGIN_DIR;
    acc_context *ctx = NULL;
    if (acc_context_create(&o, &ctx) != ACC_OK) {
        snprintf(why, why_size, "%s", acc_last_error());
        return NULL;
    }
    return ctx;
}

/* Once, in the runner: the one line that says nothing ran.  The check runs
 * in a child process (ts_cuda_usable): a context created here would
 * initialise the driver in the runner and leave it unusable in the
 * processes forked after it. */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    char why[1024];
    (void)set;
    if (!ts_cuda_usable(why, sizeof why))
        fprintf(stderr, "gpu.test_cuda_plugins_device: SKIPPED, nothing ran "
                "on a GPU: %s\n", why);
}

/* A cuda context with both plugins, which must be available there. */
static acc_context *device_or_skip(void)
{
    char why[1024], *list = NULL;
    acc_context *ctx = cuda_context(why, sizeof why);
    if (!ctx)
        cr_skip_test("no cuda context: %s", why);
    cr_assert_eq(acc_plugin_load(ctx, "cublas"), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(acc_plugin_load(ctx, "cufft"), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(acc_foreign_list(ctx, &list), ACC_OK);
    cr_assert_null(strstr(list, "unavailable"), "on a device, the plugins "
                   "must be available:\n%s", list);
    acc_free(list);
    return ctx;
}

/* ---- one operation, run in two contexts --------------------------------- */

typedef acc_node *(*builder)(acc_graph *g, acc_node *const *in);

typedef struct spec {
    const char *uses;      /* the plan's choice on the cuda context */
    acc_scalar e;
    int pairs;             /* elements are (re, im) */
    size_t n_in;
    int32_t rank[3];
    int64_t ext[3][3];
    int32_t out_rank;
    int64_t out_ext[3];
    builder build;
} spec;

static int64_t count(int32_t rank, const int64_t *ext)
{
    int64_t n = 1;
    for (int32_t d = 0; d < rank; d++)
        n *= ext[d];
    return n;
}

/* Deterministic inputs of magnitude ~1, different per input and leaf. */
static double value(size_t input, int leaf, int64_t i)
{
    return sin(0.37 * (double)i + 1.3 * (double)input + 0.5 * leaf) +
           0.25 * (double)((i + (int64_t)input) % 5) - 0.5;
}

static void *leaf_buffer(acc_scalar e, size_t input, int leaf, int64_t n)
{
    void *b = calloc((size_t)n + 1, 8);
    for (int64_t i = 0; i < n; i++) {
        if (e == ACC_F32)
            ((float *)b)[i] = (float)value(input, leaf, i);
        else
            ((double *)b)[i] = value(input, leaf, i);
    }
    return b;
}

static const acc_type *elem_type(acc_context *ctx, const spec *s)
{
    const acc_type *e = acc_type_scalar(s->e);
    const acc_type *pair[2] = {e, e};
    return s->pairs ? acc_type_tuple(ctx, 2, pair) : e;
}

/* The inputs of s (buffers in bufs, freed with free_buffers). */
static void make_inputs(acc_context *ctx, const spec *s, acc_array *arrays,
                        void *bufs[3][2])
{
    const acc_type *elem = elem_type(ctx, s);
    memset(bufs, 0, sizeof(void *[3][2]));
    for (size_t i = 0; i < s->n_in; i++) {
        for (int l = 0; l < (s->pairs ? 2 : 1); l++)
            bufs[i][l] = leaf_buffer(s->e, i, l, count(s->rank[i], s->ext[i]));
        arrays[i] = ts_host_array(elem, s->rank[i], s->ext[i], bufs[i]);
    }
}

static void free_buffers(void *bufs[3][2])
{
    for (size_t i = 0; i < 3; i++)
        for (int l = 0; l < 2; l++)
            free(bufs[i][l]);
}

/* An output of the test's own host buffers (bufs[0][*]). */
static acc_array make_output(acc_context *ctx, const spec *s,
                             void *bufs[3][2])
{
    int64_t n = count(s->out_rank, s->out_ext);
    memset(bufs, 0, sizeof(void *[3][2]));
    for (int l = 0; l < (s->pairs ? 2 : 1); l++)
        bufs[0][l] = calloc((size_t)n + 1, 8);
    return ts_host_array(elem_type(ctx, s), s->out_rank, s->out_ext, bufs[0]);
}

/* The output's values as f64 (re then im for pairs), malloc'd. */
static double *values_of(const spec *s, void *bufs[3][2])
{
    int64_t n = count(s->out_rank, s->out_ext);
    int leaves = s->pairs ? 2 : 1;
    double *r = malloc(((size_t)n * (size_t)leaves + 1) * sizeof *r);
    for (int l = 0; l < leaves; l++)
        for (int64_t i = 0; i < n; i++)
            r[l * n + i] = s->e == ACC_F32 ? ((float *)bufs[0][l])[i]
                                           : ((double *)bufs[0][l])[i];
    return r;
}

static acc_program *compile_spec(acc_context *ctx, acc_graph *g,
                                 const spec *s)
{
    acc_node *in[3];
    for (size_t i = 0; i < s->n_in; i++)
        in[i] = acc_input(g, elem_type(ctx, s), s->rank[i]);
    return tf_compile(ctx, g, s->build(g, in));
}

/* Runs s in ctx; returns the result as f64 values and, when plan is not
 * NULL, the plan. */
static double *run_in(acc_context *ctx, const spec *s, char **plan)
{
    acc_graph *g = ts_graph(ctx);
    acc_array arrays[3];
    void *bufs[3][2], *obufs[3][2];
    acc_program *p = compile_spec(ctx, g, s);
    make_inputs(ctx, s, arrays, bufs);
    acc_array out = make_output(ctx, s, obufs);
    if (plan)
        *plan = tf_plan(p);
    acc_status st = acc_run(p, s->n_in, arrays, 1, &out);
    cr_assert_eq(st, ACC_OK, "run: %s", acc_last_error());
    double *r = values_of(s, obufs);
    acc_program_free(p);
    acc_graph_free(g);
    free_buffers(bufs);
    free_buffers(obufs);
    return r;
}

static double tolerance(acc_scalar e)
{
    return e == ACC_F32 ? 1e-4 : 1e-9;
}

/* The reference: the interpreter itself, with no plugin (the fallbacks).
 * Not ts_context(ACC_BACKEND_INTERP), which is ACC_TEST_BACKEND's
 * backend where that is set: with ACC_TEST_BACKEND=cuda the "reference"
 * ran the same plugins on the same device, and a wrong transform agreed
 * with itself (found on the emulated device: a fake cuFFT with the sign
 * of its exponent flipped passed). */
static acc_context *interpreter(void)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.plugins = "none";
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s",
                 acc_last_error());
    return ctx;
}

/* The plugin on the device agrees with the fallback on the interpreter. */
static void compare(acc_context *dev, const spec *s)
{
    acc_context *host = interpreter();
    char *plan = NULL;
    double *a = run_in(dev, s, &plan);
    double *b = run_in(host, s, NULL);
    cr_assert(strstr(plan, s->uses), "%s", plan);
    size_t n = (size_t)count(s->out_rank, s->out_ext) * (s->pairs ? 2 : 1);
    double scale = 1.0;
    for (size_t i = 0; i < n; i++)
        scale = fmax(scale, fabs(b[i]));
    cr_assert_leq(tf_max_diff(a, b, n) / scale, tolerance(s->e),
                  "%s (%s): max difference %g, scale %g", s->uses,
                  s->e == ACC_F32 ? "f32" : "f64", tf_max_diff(a, b, n),
                  scale);
    free(a);
    free(b);
    acc_free(plan);
    acc_context_destroy(host);
}

/* ---- BLAS --------------------------------------------------------------- */

static acc_node *dot(acc_graph *g, acc_node *const *in)
{
    return acc_dot(g, in[0], in[1]);
}

static acc_node *gemv(acc_graph *g, acc_node *const *in)
{
    return acc_gemv(g, in[0], in[1]);
}

static acc_node *gemm(acc_graph *g, acc_node *const *in)
{
    return acc_gemm(g, in[0], in[1]);
}

/* axpy (a, x, y) = a x + y, with `a` a Scalar input: it stays in device
 * memory, where cuBLAS reads it (pointer mode device). */
static acc_node *axpy(acc_graph *g, acc_node *const *in)
{
    return tf_axpy(g, acc_tuple(g, 3, in));
}

Test(cuda_plugins_device, cublas_dot_gemv_gemm_agree_with_the_fallbacks)
{
    acc_context *dev = device_or_skip();
    for (int k = 0; k < 2; k++) {
        acc_scalar e = k ? ACC_F32 : ACC_F64;
        spec cases[] = {
            {"uses: cublas.dot (plugin cublas", e, 0, 2, {1, 1},
             {{13}, {11}}, 0, {0}, dot},
            {"uses: cublas.dot", e, 0, 2, {1, 1}, {{1000}, {1000}}, 0, {0},
             dot},
            {"uses: cublas.dot", e, 0, 2, {1, 1}, {{0}, {5}}, 0, {0}, dot},
            {"uses: cublas.gemv", e, 0, 2, {2, 1}, {{5, 7}, {7}}, 1, {5},
             gemv},
            {"uses: cublas.gemv", e, 0, 2, {2, 1}, {{5, 7}, {4}}, 1, {5},
             gemv},
            {"uses: cublas.gemv", e, 0, 2, {2, 1}, {{64, 33}, {40}}, 1,
             {64}, gemv},
            {"uses: cublas.gemm", e, 0, 2, {2, 2}, {{4, 6}, {6, 5}}, 2,
             {4, 5}, gemm},
            {"uses: cublas.gemm", e, 0, 2, {2, 2}, {{3, 6}, {4, 2}}, 2,
             {3, 2}, gemm},
            {"uses: cublas.gemm", e, 0, 2, {2, 2}, {{65, 33}, {33, 17}}, 2,
             {65, 17}, gemm},
            {"uses: cublas.gemm", e, 0, 2, {2, 2}, {{3, 0}, {0, 2}}, 2,
             {3, 2}, gemm},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            compare(dev, &cases[i]);
    }
    acc_context_destroy(dev);
}

Test(cuda_plugins_device, cublas_axpy_reads_its_scalar_on_the_device)
{
    acc_context *dev = device_or_skip();
    spec s = {"uses: cublas.axpy (plugin cublas", ACC_F64, 0, 3, {0, 1, 1},
              {{0}, {9}, {12}}, 1, {9}, axpy};
    compare(dev, &s);
    acc_context_destroy(dev);
}

/* ---- FFT ---------------------------------------------------------------- */

static acc_node *fft(acc_graph *g, acc_node *const *in)
{
    return acc_fft(g, in[0]);
}

static acc_node *ifft(acc_graph *g, acc_node *const *in)
{
    return acc_ifft(g, in[0]);
}

static acc_node *round_trip(acc_graph *g, acc_node *const *in)
{
    return acc_ifft(g, acc_fft(g, in[0]));
}

Test(cuda_plugins_device, cufft_transforms_agree_with_the_fallbacks)
{
    static const int32_t ranks[] = {1, 1, 1, 2, 2, 3};
    static const int64_t shapes[][3] = {{8}, {6}, {1024}, {4, 8}, {3, 5},
                                        {2, 3, 4}};
    acc_context *dev = device_or_skip();
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
            acc_scalar e = k ? ACC_F32 : ACC_F64;
            spec s = {"uses: cufft.forward (plugin cufft", e, 1, 1,
                      {ranks[i]}, {{shapes[i][0], shapes[i][1],
                                    shapes[i][2]}},
                      ranks[i], {shapes[i][0], shapes[i][1], shapes[i][2]},
                      fft};
            compare(dev, &s);
            s.uses = "uses: cufft.inverse (plugin cufft";
            s.build = ifft;
            compare(dev, &s);
        }
    acc_context_destroy(dev);
}

/* Both directions in one program share one plan; the result is the input
 * (each leaf compared with the values it was made from). */
Test(cuda_plugins_device, cufft_inverse_undoes_forward)
{
    acc_context *dev = device_or_skip();
    spec s = {"uses: cufft.inverse", ACC_F64, 1, 1, {2}, {{5, 3}}, 2, {5, 3},
              round_trip};
    char *plan = NULL;
    double *r = run_in(dev, &s, &plan);
    cr_assert(strstr(plan, "uses: cufft.forward"), "%s", plan);
    for (int leaf = 0; leaf < 2; leaf++)
        for (int64_t i = 0; i < 15; i++)
            cr_assert_leq(fabs(r[leaf * 15 + i] - value(0, leaf, i)), 1e-12,
                          "leaf %d, element %ld", leaf, (long)i);
    free(r);
    acc_free(plan);
    acc_context_destroy(dev);
}

/* One program run from several threads at once: each call brings its own
 * workspace and the plan's caller info is reused in stream order only.
 * The threads only call acc_run (Criterion's assertions stay on the test's
 * thread). */
typedef struct thread_run {
    acc_program *p;
    const acc_array *inputs;
    acc_array out;
    acc_status status;
} thread_run;

static void *run_thread(void *arg)
{
    thread_run *t = arg;
    t->status = acc_run(t->p, 1, t->inputs, 1, &t->out);
    return NULL;
}

Test(cuda_plugins_device, cufft_calls_from_several_threads_agree)
{
    enum { THREADS = 4, N = 4096 };
    acc_context *dev = device_or_skip();
    spec s = {"uses: cufft.forward", ACC_F32, 1, 1, {1}, {{N}}, 1, {N}, fft};
    acc_graph *g = ts_graph(dev);
    acc_program *p = compile_spec(dev, g, &s);
    acc_array in[1];
    void *bufs[3][2], *obufs[THREADS][3][2];
    thread_run runs[THREADS];
    pthread_t ids[THREADS];
    make_inputs(dev, &s, in, bufs);
    for (int i = 0; i < THREADS; i++) {
        runs[i] = (thread_run){p, in, make_output(dev, &s, obufs[i]),
                               ACC_ERR_INTERNAL};
        cr_assert_eq(pthread_create(&ids[i], NULL, run_thread, &runs[i]), 0);
    }
    double *first = NULL;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(ids[i], NULL);
        cr_assert_eq(runs[i].status, ACC_OK, "thread %d: %s", i,
                     acc_status_string(runs[i].status));
        double *r = values_of(&s, obufs[i]);
        free_buffers(obufs[i]);
        if (!first) {
            first = r;
            continue;
        }
        cr_assert_eq(tf_max_diff(r, first, 2 * N), 0.0, "thread %d: the same "
                     "transform gives the same bits", i);
        free(r);
    }
    free(first);
    free_buffers(bufs);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(dev);
}
