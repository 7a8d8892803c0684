/*
 * test_dotp.c — the dot product fold (+) 0 (zipWith (*) xs ys) end to end
 * through the public ABI: several sizes against a C loop, one program run
 * many times, caller-provided and library-allocated outputs, a wrong output
 * extent, and one program run from four threads at once.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "support.h"

static acc_context *ctx;
static acc_program *prog_f32;
static acc_program *prog_f64;

/* fold (+) 0 (zipWith (*) xs ys) on vectors of `s`, compiled in its own
 * graph, which is freed right away (the program keeps what it needs). */
static acc_program *compile_dotp(acc_scalar s)
{
    const acc_type *t = acc_type_scalar(s);
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, t, 1), *ys = acc_input(g, t, 1);
    acc_node *arrays[2] = {xs, ys};
    acc_node *mul = ts_binop_fn(g, s, ACC_OP_MUL);
    acc_node *add = ts_binop_fn(g, s, ACC_OP_ADD);
    acc_node *r = acc_fold(g, add, acc_const_f64(g, s, 0.0),
                           acc_zipwith(g, mul, 2, arrays));
    acc_program *p = ts_compile(ctx, g, r);
    acc_graph_free(g);
    return p;
}

static void setup(void)
{
    ctx = ts_context(ACC_BACKEND_INTERP);
    prog_f32 = compile_dotp(ACC_F32);
    prog_f64 = compile_dotp(ACC_F64);
}

static void teardown(void)
{
    acc_program_free(prog_f32);
    acc_program_free(prog_f64);
    acc_context_destroy(ctx);
    prog_f32 = prog_f64 = NULL;
    ctx = NULL;
}

TestSuite(dotp, .init = setup, .fini = teardown);

/* |x|, and the tolerance scale max(1, |x|); no libm needed. */
static double absd(double x)
{
    return x < 0 ? -x : x;
}

static double scale(double x)
{
    return absd(x) > 1.0 ? absd(x) : 1.0;
}

/* Deterministic data in [-1, 1) and [0, 2), different for every seed. */
static void fill_f32(float *xs, float *ys, int64_t n, int64_t seed)
{
    for (int64_t i = 0; i < n; i++) {
        xs[i] = (float)((i * 37 + seed * 13) % 200 - 100) / 100.0f;
        ys[i] = (float)((i * 11 + seed) % 100) / 50.0f;
    }
}

static double ref_f32(const float *xs, const float *ys, int64_t n)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++)
        sum += (double)xs[i] * (double)ys[i];
    return sum;
}

/* Runs prog_f32 on n elements with a library-allocated output. */
static acc_status run_f32(acc_program *p, const float *xs, const float *ys,
                          int64_t n, float *result)
{
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, (void *)xs),
                       ts_host(ACC_F32, 1, &n, (void *)ys)};
    acc_array out;
    acc_status st = ts_run_program(p, 2, in, 1, &out);
    if (st == ACC_OK) {
        cr_assert_eq(out.ownership, ACC_OWNERSHIP_LIBRARY);
        cr_assert_eq(out.rank, 0);
        cr_assert(acc_type_equal(out.type, ts_sc(ACC_F32)));
        *result = *(const float *)out.data[0];
        acc_array_release(&out);
        cr_assert_null(out.data[0], "acc_array_release resets data");
    }
    return st;
}

static void check_f32(int64_t n, int64_t seed, double rel)
{
    float *xs = malloc((size_t)(n ? n : 1) * sizeof *xs);
    float *ys = malloc((size_t)(n ? n : 1) * sizeof *ys);
    cr_assert(xs && ys);
    fill_f32(xs, ys, n, seed);
    double want = ref_f32(xs, ys, n);
    float got = -1.0f;
    acc_status st = run_f32(prog_f32, xs, ys, n, &got);
    free(xs);
    free(ys);
    cr_assert_eq(st, ACC_OK, "n=%lld: %s: %s", (long long)n,
                 acc_status_string(st), acc_last_error());
    double tol = rel * scale(want);
    cr_assert(absd((double)got - want) <= tol,
              "n=%lld: got %.8g, expected %.8g", (long long)n, (double)got,
              want);
}

Test(dotp, f32_empty)
{
    check_f32(0, 1, 0.0);
}

Test(dotp, f32_one)
{
    check_f32(1, 3, 1e-7);
}

Test(dotp, f32_thousand)
{
    check_f32(1000, 5, 1e-5);
}

/* Small integers: every product and every partial sum, in any order, is
 * an integer below 2^24, so f32 arithmetic is exact whatever the
 * reduction order and the result must equal the reference exactly. */
Test(dotp, f32_million_exact)
{
    int64_t n = 1000000;
    float *xs = malloc((size_t)n * sizeof *xs);
    float *ys = malloc((size_t)n * sizeof *ys);
    cr_assert(xs && ys);
    double want = 0.0, abs_sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        xs[i] = (float)((i * 7) % 9 - 4);  /* -4 .. 4 */
        ys[i] = (float)((i * 5) % 4);      /*  0 .. 3 */
        want += (double)xs[i] * (double)ys[i];
        abs_sum += absd((double)xs[i] * (double)ys[i]);
    }
    cr_assert(abs_sum < 16777216.0, "the test data must stay exact in f32");
    float got = 0.0f;
    acc_status st = run_f32(prog_f32, xs, ys, n, &got);
    free(xs);
    free(ys);
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    cr_assert_eq((double)got, want, "got %.1f, expected %.1f", (double)got,
                 want);
}

/* Fractional data: the f32 result must be within 1e-4 (relative) of the
 * f64 reference.  fold may reassociate (f is associative), so a pairwise
 * or blocked summation meets this easily (error ~ log2(n) ulp); a purely
 * sequential f32 accumulation over 10^6 terms does not. */
Test(dotp, f32_million)
{
    check_f32(1000000, 7, 1e-4);
}

Test(dotp, f64_sizes)
{
    static const int64_t sizes[] = {0, 1, 1000, 1000000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int64_t n = sizes[s];
        double *xs = malloc((size_t)(n ? n : 1) * sizeof *xs);
        double *ys = malloc((size_t)(n ? n : 1) * sizeof *ys);
        cr_assert(xs && ys);
        double want = 0.0;
        for (int64_t i = 0; i < n; i++) {
            xs[i] = (double)(i % 1000) / 7.0 - 50.0;
            ys[i] = (double)((i * 3) % 17) * 0.125;
            want += xs[i] * ys[i];
        }
        acc_array in[2] = {ts_host(ACC_F64, 1, &n, xs),
                           ts_host(ACC_F64, 1, &n, ys)};
        acc_array out;
        acc_status st = ts_run_program(prog_f64, 2, in, 1, &out);
        free(xs);
        free(ys);
        cr_assert_eq(st, ACC_OK, "n=%lld: %s", (long long)n, acc_last_error());
        double got = *(const double *)out.data[0];
        acc_array_release(&out);
        cr_assert(absd(got - want) <= 1e-9 * scale(want),
                  "n=%lld: got %.15g, expected %.15g", (long long)n, got,
                  want);
    }
}

Test(dotp, compile_once_run_many)
{
    static const int64_t sizes[5] = {0, 7, 1000, 3, 100000};
    for (int r = 0; r < 5; r++)
        check_f32(sizes[r], 100 + r, 1e-4);
}

Test(dotp, caller_provided_output)
{
    float xs[5] = {1, 2, 3, 4, 5}, ys[5] = {2, 2, 2, 2, -1};
    float result = -99.0f;
    int64_t n = 5;
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, xs),
                       ts_host(ACC_F32, 1, &n, ys)};
    acc_array out = ts_host(ACC_F32, 0, NULL, &result);
    cr_assert_eq(acc_run(prog_f32, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(result, 15.0f);
    cr_assert_eq(out.data[0], (void *)&result, "the caller's buffer is kept");
    cr_assert_eq(out.ownership, ACC_OWNERSHIP_BORROWED);
    acc_array_release(&out); /* a no-op on borrowed arrays */
    cr_assert_eq(out.data[0], (void *)&result);
    cr_assert_eq(result, 15.0f);
}

Test(dotp, caller_and_library_outputs_agree)
{
    enum { N = 4096 };
    static float xs[N], ys[N];
    fill_f32(xs, ys, N, 42);
    float lib = 0.0f, mine = 0.0f;
    cr_assert_eq(run_f32(prog_f32, xs, ys, N, &lib), ACC_OK);
    int64_t n = N;
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, xs),
                       ts_host(ACC_F32, 1, &n, ys)};
    acc_array out = ts_host(ACC_F32, 0, NULL, &mine);
    cr_assert_eq(acc_run(prog_f32, 2, in, 1, &out), ACC_OK);
    cr_assert_eq(lib, mine, "same program, same data: %g vs %g", (double)lib,
                 (double)mine);
    cr_assert(absd((double)mine - ref_f32(xs, ys, N)) < 1e-3);
}

Test(dotp, wrong_output_extent_is_a_shape_error)
{
    /* a fold over a matrix gives a vector of rows; a caller buffer with the
     * wrong length is refused, naming both lengths */
    acc_graph *g = ts_graph(ctx);
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    acc_node *xs = acc_input(g, f32, 2);
    acc_node *r = acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                           acc_const_f64(g, ACC_F32, 0.0), xs);
    acc_program *p = NULL;
    acc_status st = acc_compile(ctx, g, 1, &r, &p);
    acc_graph_free(g);
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    enum { ROWS = 13, COLS = 3 };
    float m[ROWS * COLS], res[1234] = {0};
    for (int k = 0; k < ROWS * COLS; k++)
        m[k] = (float)k;
    int64_t em[2] = {ROWS, COLS}, wrong = 1234, right = ROWS;
    void *bm = m, *br = res;
    acc_array in = ts_host_array(f32, 2, em, &bm);
    acc_array out = ts_host_array(f32, 1, &wrong, &br);
    st = acc_run(p, 1, &in, 1, &out);
    cr_assert_eq(st, ACC_ERR_SHAPE, "got %s", acc_status_string(st));
    const char *msg = acc_program_last_error(p);
    cr_assert(ts_contains_ci(msg, "1234") && ts_contains_ci(msg, "13"),
              "message names both extents: %s", msg);
    cr_assert(ts_contains_ci(acc_last_error(), "output"), "message: %s",
              acc_last_error());
    cr_assert_eq(out.data[0], (void *)res, "the caller's buffer is kept");
    /* the program still works with the right extent */
    out = ts_host_array(f32, 1, &right, &br);
    st = acc_run(p, 1, &in, 1, &out);
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    for (int i = 0; i < ROWS; i++) {
        float want = 0.0f;
        for (int j = 0; j < COLS; j++)
            want += m[i * COLS + j];
        cr_assert_eq(res[i], want, "row %d", i);
    }
    acc_program_free(p);
}

Test(dotp, wrong_output_rank_is_refused)
{
    float xs[2] = {1, 2}, res[4] = {0};
    int64_t n = 2, e2[2] = {1, 1};
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, xs),
                       ts_host(ACC_F32, 1, &n, xs)};
    acc_array out = ts_host(ACC_F32, 2, e2, res);
    acc_status st = acc_run(prog_f32, 2, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_SHAPE, "got %s", acc_status_string(st));
    cr_assert(ts_contains_ci(acc_last_error(), "output 0"), "message: %s",
              acc_last_error());
    cr_assert(ts_contains_ci(acc_last_error(), "1, 1") ||
                  ts_contains_ci(acc_last_error(), "rank"),
              "message names the given shape: %s", acc_last_error());
}

/* ---- four threads, one program ------------------------------------------- */

typedef struct worker {
    int64_t n, seed;
    int rounds;
    int failures;
    char why[256];
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    float *xs = malloc((size_t)w->n * sizeof *xs);
    float *ys = malloc((size_t)w->n * sizeof *ys);
    if (!xs || !ys) {
        w->failures++;
        snprintf(w->why, sizeof w->why, "out of memory");
        goto out;
    }
    fill_f32(xs, ys, w->n, w->seed);
    double want = ref_f32(xs, ys, w->n);
    for (int r = 0; r < w->rounds; r++) {
        /* no cr_assert here: Criterion asserts belong to the test thread */
        acc_array in[2];
        acc_array_init(&in[0], f32, 1, &w->n);
        acc_array_init(&in[1], f32, 1, &w->n);
        in[0].data[0] = xs;
        in[1].data[0] = ys;
        float mine = 0.0f;
        acc_array out;
        if (r % 2 == 0) { /* library-allocated */
            out = ts_empty_output();
        } else { /* caller-provided */
            acc_array_init(&out, f32, 0, NULL);
            out.data[0] = &mine;
        }
        acc_status st = acc_run(prog_f32, 2, in, 1, &out);
        if (st != ACC_OK) {
            w->failures++;
            snprintf(w->why, sizeof w->why, "run: %s: %s",
                     acc_status_string(st), acc_last_error());
            continue;
        }
        float got = r % 2 == 0 ? *(const float *)out.data[0] : mine;
        acc_array_release(&out);
        if (absd((double)got - want) > 1e-4 * scale(want)) {
            w->failures++;
            snprintf(w->why, sizeof w->why, "got %.8g, expected %.8g",
                     (double)got, want);
        }
    }
out:
    free(xs);
    free(ys);
    return NULL;
}

Test(dotp, one_program_four_threads)
{
    enum { T = 4 };
    pthread_t th[T];
    worker w[T];
    for (int i = 0; i < T; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].n = 20000 + 1111 * i;
        w[i].seed = i + 1;
        w[i].rounds = 6;
    }
    for (int i = 0; i < T; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, run_worker, &w[i]), 0);
    for (int i = 0; i < T; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < T; i++)
        cr_assert_eq(w[i].failures, 0, "thread %d: %d failures, last: %s", i,
                     w[i].failures, w[i].why);
}
