/*
 * test_expand.c — irregular expansion (LANGUAGE.md §3.6) on the reference
 * interpreter: results concatenated in order, empty contributions, tuple
 * elements and results, elements holding a shape, negative sizes, the
 * builder errors, and the sieve of LANGUAGE.md §3.6 (permute' after
 * expand) checked against a sieve of Eratosthenes written in C.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "accel.h"
#include "support.h"

static acc_context *ctx;
static acc_graph *g;

static void setup(void)
{
    ts_fixture_open(&ctx, &g);
}

static void teardown(void)
{
    ts_fixture_close(&ctx, &g);
}

TestSuite(expand, .init = setup, .fini = teardown);

/* ---- small builders --------------------------------------------------- */

/* expand (\x -> x) (\x k -> 10 x + k) xs */
static acc_node *tens(acc_node *xs)
{
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *y = acc_param(g, ts_sc(ACC_I64)),
             *k = acc_param(g, ts_sc(ACC_I64));
    acc_node *get =
        ts_lam2(g, y, k,
                acc_binop(g, ACC_OP_ADD,
                          acc_binop(g, ACC_OP_MUL, y, ts_i64(g, 10)), k));
    return acc_expand(g, ts_lam1(g, x, x), get, xs);
}

/* ---- expand ----------------------------------------------------------- */

Test(expand, results_are_concatenated_in_order)
{
    int64_t x[6] = {3, 0, 2, 1, 0, 4}, n = 6, want[32], m = 0;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = tens(xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    for (int i = 0; i < 6; i++)
        for (int64_t k = 0; k < x[i]; k++)
            want[m++] = 10 * x[i] + k;
    cr_assert_eq(out.rank, 1);
    ts_expect_i64(&out, want, m);
    acc_array_release(&out);
}

Test(expand, empty_input_and_zero_sizes_give_an_empty_vector)
{
    int64_t zeros[3] = {0, 0, 0}, n = 3, none = 0;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = tens(xs);
    acc_program *prog = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &prog));
    acc_array in = ts_host(ACC_I64, 1, &n, zeros), out = ts_empty_output();
    ts_expect_ok(g, acc_run(prog, 1, &in, 1, &out));
    cr_assert_eq(out.extents[0], 0);
    acc_array_release(&out);
    in = ts_host(ACC_I64, 1, &none, NULL);
    ts_expect_ok(g, acc_run(prog, 1, &in, 1, &out));
    cr_assert_eq(out.extents[0], 0);
    acc_array_release(&out);
    acc_program_free(prog);
}

/* Tuple elements in, tuple results out: (count, scale) gives
 * (scale * k as f64, k as i32) for k < count. */
Test(expand, tuple_elements_and_results)
{
    int32_t cnt[4] = {2, 0, 3, 1};
    double scale[4] = {0.5, 9.0, -1.0, 4.0};
    int64_t n = 4;
    const acc_type *fs[2] = {ts_sc(ACC_I32), ts_sc(ACC_F64)};
    const acc_type *e = acc_type_tuple(ctx, 2, fs);
    acc_node *xs = acc_input(g, e, 1);
    acc_node *x = acc_param(g, e);
    acc_node *size = ts_lam1(g, x, acc_convert(g, acc_get(g, x, 0), ACC_I64));
    acc_node *y = acc_param(g, e), *k = acc_param(g, ts_sc(ACC_I64));
    acc_node *res[2] = {acc_binop(g, ACC_OP_MUL, acc_get(g, y, 1),
                                  acc_convert(g, k, ACC_F64)),
                        acc_convert(g, k, ACC_I32)};
    acc_node *r = acc_expand(g, size, ts_lam2(g, y, k, acc_tuple(g, 2, res)),
                             xs);
    void *bufs[2] = {cnt, scale};
    acc_array in = ts_host_array(e, 1, &n, bufs), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, out));
    const double *of = out[0].data[0];
    const int32_t *oi = out[0].data[1];
    int64_t m = 0;
    for (int i = 0; i < 4; i++)
        for (int32_t j = 0; j < cnt[i]; j++, m++) {
            cr_assert_float_eq(of[m], scale[i] * j, 1e-12);
            cr_assert_eq(oi[m], j);
        }
    cr_assert_eq(out[0].extents[0], m);
    acc_array_release(&out[0]);
}

/* Results whose element type holds a shape: ([x + k], x), delivered as a
 * program output with i64 leaves for the shape. */
Test(expand, results_holding_a_shape)
{
    int64_t x[2] = {2, 5}, n = 2;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *v = acc_param(g, ts_sc(ACC_I64));
    acc_node *y = acc_param(g, ts_sc(ACC_I64)),
             *k = acc_param(g, ts_sc(ACC_I64));
    acc_node *res[2] = {ts_idx1(g, acc_binop(g, ACC_OP_ADD, y, k)), y};
    acc_node *r = acc_expand(g, ts_lam1(g, v, ts_i64(g, 2)),
                             ts_lam2(g, y, k, acc_tuple(g, 2, res)), xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(acc_type_leaf_count(out.type), 2);
    const int64_t want_ix[4] = {2, 3, 5, 6}, want_v[4] = {2, 2, 5, 5};
    cr_assert_eq(memcmp(out.data[0], want_ix, sizeof want_ix), 0);
    cr_assert_eq(memcmp(out.data[1], want_v, sizeof want_v), 0);
    acc_array_release(&out);
}

Test(expand, negative_size_is_a_runtime_error)
{
    int64_t x[3] = {1, -2, 3}, n = 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = tens(xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    acc_status st = ts_run(ctx, g, 1, &r, 1, &in, &out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "status %s", acc_status_string(st));
    cr_assert(ts_contains_ci(acc_last_error(), "expand"), "message: %s",
              acc_last_error());
    cr_assert(ts_contains_ci(acc_last_error(), "-2"), "message: %s",
              acc_last_error());
    /* the graph and context stay usable */
    x[1] = 2;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(out.extents[0], 6);
    acc_array_release(&out);
}

Test(expand, needs_a_vector)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    cr_assert_null(tens(xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "expand");
}

Test(expand, size_must_return_i64)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *y = acc_param(g, ts_sc(ACC_I64)),
             *k = acc_param(g, ts_sc(ACC_I64));
    cr_assert_null(acc_expand(g, ts_lam1(g, x, acc_convert(g, x, ACC_I32)),
                              ts_lam2(g, y, k, y), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "expand");
}

Test(expand, get_must_take_the_element_and_an_i64)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *y = acc_param(g, ts_sc(ACC_I64)),
             *k = acc_param(g, ts_sc(ACC_I32));
    cr_assert_null(acc_expand(g, ts_lam1(g, x, x), ts_lam2(g, y, k, y), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "expand");
}

/* ---- the sieve of LANGUAGE.md §3.6 ------------------------------------ */

Test(expand, sieve_marks_the_composites_below_100)
{
    enum { N = 100 };
    int64_t ps[4] = {2, 3, 5, 7}, np = 4, n = N;
    acc_node *psn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *nn = acc_input(g, ts_sc(ACC_I64), 0);
    acc_node *r = ts_sieve_marks(g, psn, nn);
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    cr_assert_eq(out.rank, 1);
    cr_assert_eq(out.extents[0], N);
    const int32_t *marks = out.data[0];
    /* the marks: how many p of ps have m as a multiple, m >= 2p */
    for (int m = 0; m < N; m++) {
        int32_t want = 0;
        for (int j = 0; j < 4; j++)
            want += m >= 2 * ps[j] && m % ps[j] == 0;
        cr_assert_eq(marks[m], want, "marks[%d] is %d, expected %d", m,
                     (int)marks[m], (int)want);
    }
    /* the primes below 100 are exactly the unmarked numbers >= 2 */
    int composite[N] = {0};
    for (int i = 2; i * i < N; i++)
        if (!composite[i])
            for (int j = i * i; j < N; j += i)
                composite[j] = 1;
    for (int m = 2; m < N; m++)
        cr_assert_eq(marks[m] == 0, !composite[m], "%d", m);
    acc_array_release(&out);
}
