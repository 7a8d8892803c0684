/*
 * test_cpu_permute_strategies.c — every way the CPU backend combines a
 * permute's source into its target (core/backend/cpu/drive_permute.c,
 * core/skeletons/cpu/permute.c.in) against the reference interpreter:
 * shared (atomics, compare-and-swap or locks), direct (plain stores on the
 * calling thread), privatised (the result as the first thread's copy,
 * private copies for the others, starting as f's identity or flagged per
 * cell), partitioned (each thread owns a part of the cells) and ranged
 * (the sieve: parts of the cells, each visiting only the positions that
 * land in it; other forms of expansion: test_cpu_permute_ranged.c), each
 * on 1, 2 and 3 threads, forced through ACC_CPU_PERMUTE
 * (ts_differ_permute_strategies), and the host's own choice (small
 * sources, large targets).  And ACC_DISABLE=fusion: the
 * sieve's permute' then reads its expansion from an array of its own.
 *
 * Integer results must be equal bit for bit; the float sums add small
 * integers, exact in any order, so they are too (and a bin that receives
 * only -0.0 must stay -0.0: the identity of float (+) is -0.0, not 0.0).
 * Every test skips when there is no working C compiler.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

static void setup(void)
{
    ts_make_cache_dir();
}

static void teardown(void)
{
    unsetenv("ACC_CPU_PERMUTE");
    unsetenv("ACC_CPU_PERMUTE_HALVES");
    unsetenv("ACC_DISABLE");
    ts_remove_cache_dir();
}

TestSuite(cpu_permute_strategies, .init = setup, .fini = teardown);

static const char *const thread_counts[] = {"1", "2", "3"};

/* A source of n i32 values spread over many bins, with repeats. */
static int32_t *spread(int64_t n)
{
    int32_t *x = malloc((size_t)n * sizeof *x);
    cr_assert_not_null(x);
    for (int64_t i = 0; i < n; i++)
        x[i] = (int32_t)((i * 7919 + (i >> 3) * 104729) % 1000003) - 1000;
    return x;
}

/* ---- permute (+) of i32 (fetch-and-add; identity 0) --------------------- */

typedef struct hist_case {
    int64_t bins;
    acc_primop op; /* ADD (identity), MAX (none: flags, compare-and-swap) */
} hist_case;

/* permute op (fill [bins] 5) (\[i] -> [xs!i `mod` bins]) (map (* 3) xs) */
static acc_node *build_hist(acc_graph *g, const void *arg)
{
    const hist_case *c = arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *i = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, i, ts_bin_of(g, acc_read(g, xs, i), c->bins));
    acc_node *u = acc_param(g, ts_sc(ACC_I32));
    acc_node *vals = acc_map(g, ts_lam1(g, u, acc_binop(g, ACC_OP_MUL, u,
                                                        ts_i32(g, 3))), xs);
    acc_node *defs = acc_fill(g, ts_idx1(g, ts_i64(g, c->bins)), ts_i32(g, 5));
    return acc_permute(g, ts_binop_fn(g, ACC_I32, c->op), defs, p, vals);
}

Test(cpu_permute_strategies, sums_and_maxima_of_few_and_many_cells)
{
    /* few cells (privatised by choice), more cells than source elements
     * (shared), a large target (partitioned or privatised), and a source
     * below the small-input threshold (direct) */
    static const struct { int64_t n, bins; } sizes[] = {
        {70000, 97}, {3000, 100000}, {80000, 70000}, {5000, 64}};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        int64_t n = sizes[z].n;
        int32_t *x = spread(n);
        acc_array in = ts_host(ACC_I32, 1, &n, x);
        hist_case add = {sizes[z].bins, ACC_OP_ADD};
        hist_case max = {sizes[z].bins, ACC_OP_MAX};
        ts_differ_permute_strategies(build_hist, &add, 1, &in, ACC_OK);
        ts_differ_permute_strategies(build_hist, &max, 1, &in, ACC_OK);
        free(x);
    }
}

Test(cpu_permute_strategies, histogram_with_a_bad_bin)
{
    int64_t n = 70000, k = 256;
    int32_t *x = malloc((size_t)n * sizeof *x);
    cr_assert_not_null(x);
    for (int64_t i = 0; i < n; i++)
        x[i] = (int32_t)((i * 31) % k);
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    ts_differ_permute_strategies(ts_build_histogram, &k, 1, &in, ACC_OK);
    x[n - 7] = 256; /* one past the last bin */
    ts_differ_permute_strategies(ts_build_histogram, &k, 1, &in,
                                 ACC_ERR_RUNTIME);
    x[n - 7] = -1;
    ts_differ_permute_strategies(ts_build_histogram, &k, 1, &in,
                                 ACC_ERR_RUNTIME);
    free(x);
}

/* ---- tuples (locks; no identity: flagged private cells) ----------------- */

/* ts_permute_tuples into *arg bins. */
static acc_node *build_tuples(acc_graph *g, const void *arg)
{
    return ts_permute_tuples(g, *(const int64_t *)arg);
}

Test(cpu_permute_strategies, tuple_elements)
{
    int64_t n = 70000, bins[2] = {37, 60000};
    int32_t *x = spread(n);
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    for (int b = 0; b < 2; b++)
        ts_differ_permute_strategies(build_tuples, &bins[b], 1, &in, ACC_OK);
    free(x);
}

/* ---- float (+): identity -0.0 -------------------------------------------- */

/* permute (+) (fill [bins] (-0.0)) (\[i] -> [xs!i `mod` bins])
 *   (map (\x -> if x `mod` bins == 0 then -0.0 else f32 (x `mod` 7)) xs):
 * bin 0 receives only -0.0 and must stay -0.0. */
static acc_node *build_float_sum(acc_graph *g, const void *arg)
{
    int64_t bins = *(const int64_t *)arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *u = acc_param(g, ts_sc(ACC_I32));
    acc_node *m = acc_binop(g, ACC_OP_MOD, acc_convert(g, u, ACC_I64),
                            ts_i64(g, bins));
    acc_node *v = acc_cond(g, acc_binop(g, ACC_OP_EQ, m, ts_i64(g, 0)),
                           ts_f32(g, -0.0f),
                           acc_convert(g, acc_binop(g, ACC_OP_MOD, u,
                                                    ts_i32(g, 7)), ACC_F32));
    acc_node *vals = acc_map(g, ts_lam1(g, u, v), xs);
    acc_node *i = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, i, ts_bin_of(g, acc_read(g, xs, i), bins));
    return acc_permute(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                       acc_fill(g, ts_idx1(g, ts_i64(g, bins)),
                                ts_f32(g, -0.0f)),
                       p, vals);
}

Test(cpu_permute_strategies, float_sums_keep_negative_zero)
{
    int64_t n = 70000, bins = 211;
    int32_t *x = spread(n);
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    ts_differ_permute_strategies(build_float_sum, &bins, 1, &in, ACC_OK);
    /* and the CPU's own result has -0.0 in bin 0 (ts_differ compares
     * floats by value; -0.0 == 0.0) */
    for (size_t s = 0; s < 4; s++) {
        setenv("ACC_CPU_PERMUTE", ts_permute_strategies[s], 1);
        setenv("ACC_NUM_THREADS", "2", 1);
        acc_context *ctx = ts_cpu_context();
        acc_graph *g = ts_graph(ctx);
        acc_node *r = build_float_sum(g, &bins);
        acc_program *p = NULL;
        cr_assert_eq(acc_compile(ctx, g, 1, &r, &p), ACC_OK, "%s",
                     acc_last_error());
        acc_array out = ts_empty_output();
        cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s",
                     acc_last_error());
        float b0 = ((const float *)out.data[0])[0];
        cr_expect(b0 == 0.0f && signbit(b0), "strategy %s: bin 0 is %g",
                  ts_permute_strategies[s], (double)b0);
        acc_array_release(&out);
        acc_program_free(p);
        acc_graph_free(g);
        acc_context_destroy(ctx);
    }
    unsetenv("ACC_CPU_PERMUTE");
    free(x);
}

/* ---- permute' over expand: the sieve -------------------------------------- */

Test(cpu_permute_strategies, sieve_every_strategy)
{
    static int64_t ps[1000];
    int64_t sizes[2] = {100000, 5000}; /* large target; small input */
    for (int z = 0; z < 2; z++) {
        int64_t n = sizes[z], np = ts_primes_below_root(n, ps, 1000);
        acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                           ts_host(ACC_I64, 0, NULL, &n)};
        ts_differ_permute_strategies(ts_sieve_build, NULL, 2, in, ACC_OK);
    }
}

/* The privatised pass hands each thread every (threads)-th slice of the
 * source, not one contiguous part (drive_permute.c, PRIVATE_SLICES): a
 * sieve whose expansion (about 1.1 million positions) has more slices
 * than the minimum slice size allows below, and whose slice count is not a
 * multiple of 3, on 2 and 3 threads; the contiguous split
 * (ACC_CPU_PERMUTE_HALVES) must give the same marks. */
Test(cpu_permute_strategies, sieve_privatised_in_slices)
{
    static int64_t ps[1000];
    int64_t n = (int64_t)1 << 19, np = ts_primes_below_root(n, ps, 1000);
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)};
    cr_assert_eq(setenv("ACC_CPU_PERMUTE", "private", 1), 0);
    for (int h = 0; h < 2; h++) {
        if (h)
            cr_assert_eq(setenv("ACC_CPU_PERMUTE_HALVES", "1", 1), 0);
        for (size_t t = 1; t < 3; t++) {
            cr_assert_eq(setenv("ACC_NUM_THREADS", thread_counts[t], 1), 0);
            acc_status st = ts_differ(ts_sieve_build, NULL, 2, in, 0, 0);
            cr_assert_eq(st, ACC_OK, "%s threads%s: %s", thread_counts[t],
                         h ? ", halves" : "", acc_status_string(st));
        }
    }
    unsetenv("ACC_CPU_PERMUTE_HALVES");
    unsetenv("ACC_CPU_PERMUTE");
}

/* The number of CPU kernels of build's program, compiled now. */
static int kernels_of(ts_build_fn build)
{
    acc_context *ctx = ts_cpu_context();
    acc_graph *g = ts_graph(ctx);
    acc_node *r = build(g, NULL);
    acc_program *p = NULL;
    cr_assert_eq(acc_compile(ctx, g, 1, &r, &p), ACC_OK, "%s",
                 acc_last_error());
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    const char *at = strstr(json, "\"kernels\":");
    cr_assert_not_null(at, "%s", json);
    int k = atoi(at + strlen("\"kernels\":"));
    cr_expect(strstr(json, "\"interpreted\":0") != NULL, "%s", json);
    acc_free(json);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
    return k;
}

Test(cpu_permute_strategies, disabled_fusion_separates_the_expansion)
{
    static int64_t ps[1000];
    int64_t n = 30000, np = ts_primes_below_root(n, ps, 1000);
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)};
    cr_assert_eq(kernels_of(ts_sieve_build), 1);
    cr_assert_eq(setenv("ACC_DISABLE", "fusion", 1), 0);
    /* the expand writes its pairs, the fill its zeros, the permute' reads
     * them */
    cr_expect_eq(kernels_of(ts_sieve_build), 3);
    cr_assert_eq(ts_differ(ts_sieve_build, NULL, 2, in, 0, 0), ACC_OK);
    unsetenv("ACC_DISABLE");
}
